import assert from "node:assert/strict";
import { deniedPaths, hideDenied } from "../../session/denied_paths.ts";
import type { BwrapConfinement } from "../../tools/kernel/bwrap.ts";
import { tempDir } from "../_temp.ts";

async function workspace(): Promise<string> {
  const ws = await Deno.realPath(await tempDir());
  for (const dir of ["secrets/a", "src/secrets", "config", "node_modules/x"]) {
    await Deno.mkdir(`${ws}/${dir}`, { recursive: true });
  }
  for (
    const file of [
      "secrets/a/key",
      "src/secrets/b",
      "config/prod.env",
      "config/app.json",
      "node_modules/x/.env",
      "README.md",
    ]
  ) await Deno.writeTextFile(`${ws}/${file}`, "x");
  await Deno.symlink(`${ws}/config`, `${ws}/link`);
  return ws;
}

Deno.test("denied paths: the existing paths Read rules cover, outermost only, found as the permission check sees them; symlinks are not followed", async () => {
  const ws = await workspace();
  try {
    assert.deepEqual(
      deniedPaths(["secrets/**", "*.env", "README.md", "missing/**"], {
        workspace: ws,
      }),
      {
        dirs: [`${ws}/secrets`],
        files: [
          `${ws}/README.md`,
          `${ws}/config/prod.env`,
          `${ws}/node_modules/x/.env`,
        ],
      },
    );
    // A name without a slash at any depth: both secrets directories.
    assert.deepEqual(deniedPaths(["secrets"], { workspace: ws }), {
      dirs: [`${ws}/secrets`, `${ws}/src/secrets`],
      files: [],
    });
    assert.deepEqual(deniedPaths(["src/**/b"], { workspace: ws }), {
      dirs: [],
      files: [`${ws}/src/secrets/b`],
    });
    assert.deepEqual(
      deniedPaths([`/${ws}/config/*.json`], { workspace: ws }),
      { dirs: [], files: [`${ws}/config/app.json`] },
    );
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("denied paths: a walk past its bound refuses the call, naming the rule", async () => {
  const ws = await workspace();
  try {
    const found = deniedPaths(["*.env"], { workspace: ws }, 5);
    assert.ok("refused" in found);
    assert.equal(
      found.refused,
      `the deny rule Read(*.env) has more than 5 files and directories to look through for what it covers (from ${ws}), so what the command could read past it cannot be hidden from it; a narrower rule (a directory, a name under one) or a higher --max-deny-walk lets commands run (searches and the file tools are not bound by this)`,
    );
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("denied paths: bubblewrap seals denied directories and hides denied files, except the workspace itself and what its sandbox already hides", () => {
  const base: BwrapConfinement = {
    kind: "bwrap",
    hideDirs: ["/home"],
    hideFiles: ["/etc/shadow"],
    showReadOnly: [],
    network: false,
  };
  assert.deepEqual(
    hideDenied(base, {
      dirs: ["/home/u/ws/secrets", "/home/u/.aws", "/w2", "/tmp/x"],
      files: ["/home/u/ws/a.env", "/etc/hosts", "/home/u/ws"],
    }, "/home/u/ws"),
    {
      ...base,
      sealDirs: ["/home/u/ws/secrets", "/w2"],
      hideFiles: ["/etc/shadow", "/home/u/ws/a.env", "/etc/hosts"],
    },
  );
  assert.equal(hideDenied(base, { dirs: [], files: [] }, "/w"), base);
  // Directories every command needs stay; what is below them can go.
  assert.deepEqual(
    hideDenied(base, {
      dirs: ["/", "/etc", "/usr", "/etc/ssl/private"],
      files: [],
    }, "/w"),
    { ...base, sealDirs: ["/etc/ssl/private"] },
  );
});

Deno.test("denied paths: what a walk found is kept only while a directory is unchanged: a covered file made later, or one removed, is seen at the next call", async () => {
  const ws = await workspace();
  try {
    // Settled: every directory last changed an hour ago.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (
      const dir of [
        "",
        "/secrets",
        "/secrets/a",
        "/src",
        "/src/secrets",
        "/config",
        "/node_modules",
        "/node_modules/x",
      ]
    ) {
      await Deno.utime(`${ws}${dir}`, hourAgo, hourAgo);
    }
    const files = () => {
      const found = deniedPaths(["*.env"], { workspace: ws });
      assert.ok(!("refused" in found));
      return found.files;
    };
    assert.deepEqual(files(), [
      `${ws}/config/prod.env`,
      `${ws}/node_modules/x/.env`,
    ]);
    await Deno.writeTextFile(`${ws}/src/secrets/late.env`, "x");
    await Deno.remove(`${ws}/config/prod.env`);
    assert.deepEqual(files(), [
      `${ws}/node_modules/x/.env`,
      `${ws}/src/secrets/late.env`,
    ]);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("denied paths: each writable directory between a root and a hidden path is bound over itself, so a command cannot rename it and take the path out of its rule", () => {
  const base: BwrapConfinement = {
    kind: "bwrap",
    hideDirs: [],
    hideFiles: [],
    showReadOnly: [],
    showWritable: ["/r2"],
    network: false,
  };
  assert.deepEqual(
    hideDenied(base, {
      dirs: ["/ws/app/secrets", "/ws/top"],
      files: ["/ws/app/conf/prod.env", "/r2/a/b.env", "/etc/ssl/key.pem"],
    }, "/ws"),
    {
      ...base,
      sealDirs: ["/ws/app/secrets", "/ws/top"],
      hideFiles: ["/ws/app/conf/prod.env", "/r2/a/b.env", "/etc/ssl/key.pem"],
      showWritable: ["/r2", "/r2/a", "/ws/app", "/ws/app/conf"],
    },
  );
});
