import assert from "node:assert/strict";
import {
  displayPath,
  isInside,
  realPathOf,
  resolveInWorkspace,
  SensitiveLinks,
} from "../../../tools/kernel/workspace.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { tempDir } from "../../_temp.ts";
import { openRegularFile } from "../../../tools/kernel/regular_file.ts";

async function tree() {
  const base = await Deno.realPath(await tempDir());
  const ws = `${base}/ws`;
  await Deno.mkdir(`${ws}/src`, { recursive: true });
  await Deno.mkdir(`${base}/out`);
  await Deno.writeTextFile(`${base}/out/f.txt`, "x");
  await Deno.writeTextFile(`${ws}/src/a.ts`, "a");
  return { base, ws };
}

Deno.test("resolver: relative, absolute and normalized paths inside", async () => {
  const { ws } = await tree();
  for (
    const raw of [
      "src/a.ts",
      "./src/a.ts",
      `${ws}/src/a.ts`,
      "src/../src/a.ts",
      "src//a.ts",
    ]
  ) {
    const r = resolveInWorkspace(ws, raw);
    assert.equal(r.abs, `${ws}/src/a.ts`, raw);
    assert.equal(r.real, `${ws}/src/a.ts`);
    assert.equal(r.outside, false);
    assert.equal(r.sensitive, undefined);
  }
  assert.equal(resolveInWorkspace(ws, ".").outside, false);
  assert.equal(
    resolveInWorkspace(ws, "new/dir/file.txt").real,
    `${ws}/new/dir/file.txt`,
  );
});

Deno.test("resolver: .. and absolute paths outside are outside", async () => {
  const { base, ws } = await tree();
  assert.equal(resolveInWorkspace(ws, "..").outside, true);
  assert.equal(
    resolveInWorkspace(ws, "../out/f.txt").real,
    `${base}/out/f.txt`,
  );
  assert.equal(resolveInWorkspace(ws, "../out/f.txt").outside, true);
  assert.equal(resolveInWorkspace(ws, "/etc/passwd").outside, true);
  // A sibling whose name starts with the workspace's is not inside it.
  await Deno.mkdir(`${ws}2`);
  assert.equal(resolveInWorkspace(ws, `${ws}2/x`).outside, true);
});

Deno.test("resolver: symlinks to files and directories, chains and dangling links are followed", async () => {
  const { base, ws } = await tree();
  await Deno.symlink(`${base}/out/f.txt`, `${ws}/abs_link`);
  await Deno.symlink("../out/f.txt", `${ws}/rel_link`);
  await Deno.symlink(`${base}/out`, `${ws}/dir_link`);
  await Deno.symlink("hop2", `${ws}/hop1`);
  await Deno.symlink("dir_link/f.txt", `${ws}/hop2`);
  await Deno.symlink(`${base}/out/missing/deeper.txt`, `${ws}/dangling`);
  await Deno.symlink("dangling2", `${ws}/dangling1`);
  await Deno.symlink(`${base}/nowhere`, `${ws}/dangling2`);
  const cases: [string, string][] = [
    ["abs_link", `${base}/out/f.txt`],
    ["rel_link", `${base}/out/f.txt`],
    ["dir_link/f.txt", `${base}/out/f.txt`],
    ["dir_link/new.txt", `${base}/out/new.txt`],
    ["hop1", `${base}/out/f.txt`],
    ["dangling", `${base}/out/missing/deeper.txt`],
    ["dangling1", `${base}/nowhere`],
    ["dangling1/x/y", `${base}/nowhere/x/y`],
  ];
  for (const [raw, real] of cases) {
    const r = resolveInWorkspace(ws, raw);
    assert.equal(r.real, real, raw);
    assert.equal(r.outside, true, raw);
  }
  await Deno.symlink("src", `${ws}/inner_link`);
  const inner = resolveInWorkspace(ws, "inner_link/a.ts");
  assert.equal(inner.outside, false);
  assert.equal(inner.real, `${ws}/src/a.ts`);
});

Deno.test("resolver: a symlink loop is a ToolError, a NUL byte too", async () => {
  const { ws } = await tree();
  await Deno.symlink("loop_b", `${ws}/loop_a`);
  await Deno.symlink("loop_a", `${ws}/loop_b`);
  assert.throws(() => realPathOf(`${ws}/loop_a`), ToolError);
  assert.throws(() => resolveInWorkspace(ws, "a\0b"), /NUL byte/);
});

Deno.test("resolver: a path that cannot be resolved (a name too long) is a ToolError, cut short", async () => {
  const root = await Deno.realPath(await tempDir());
  const raw = "x".repeat(5000);
  assert.throws(
    () => resolveInWorkspace(root, raw),
    (error: unknown) =>
      error instanceof ToolError &&
      error.message ===
        `cannot resolve the path "${
          "x".repeat(200)
        }…": File name too long (os error 36)`,
  );
});

Deno.test("resolver: ~ expands to the home directory when one is given", async () => {
  const { ws } = await tree();
  const r = resolveInWorkspace(ws, "~/notes.txt", "/home/someone");
  assert.equal(r.abs, "/home/someone/notes.txt");
  assert.equal(r.outside, true);
  assert.equal(resolveInWorkspace(ws, "~/x").abs, `${ws}/~/x`);
});

Deno.test("resolver: sensitive by name or by symlink target", async () => {
  const { ws } = await tree();
  await Deno.writeTextFile(`${ws}/.env`, "K=1");
  await Deno.symlink(".env", `${ws}/harmless.txt`);
  assert.match(
    resolveInWorkspace(ws, ".env").sensitive!,
    /sensitive file \(\.env\)/,
  );
  assert.match(resolveInWorkspace(ws, "harmless.txt").sensitive!, /\.env/);
  assert.equal(resolveInWorkspace(ws, "src/a.ts").sensitive, undefined);
});

Deno.test("isInside and displayPath", () => {
  assert.ok(isInside("/a/b", "/a/b"));
  assert.ok(isInside("/a/b", "/a/b/c"));
  assert.ok(!isInside("/a/b", "/a/bc"));
  assert.ok(!isInside("/a/b", "/a"));
  assert.equal(displayPath("/a/b", "/a/b/c/d.ts"), "c/d.ts");
  assert.equal(displayPath("/a/b", "/a/b"), ".");
  assert.equal(displayPath("/a/b", "/x/y"), "/x/y");
});

Deno.test("resolver: a hard link to a sensitive file at the top, in .ssh/ or beside it is sensitive; other linked files are not", async () => {
  const { ws } = await tree();
  await Deno.writeTextFile(`${ws}/.env`, "KEY=1\n");
  await Deno.link(`${ws}/.env`, `${ws}/notes.txt`);
  await Deno.mkdir(`${ws}/.ssh`);
  await Deno.writeTextFile(`${ws}/.ssh/id_rsa`, "key");
  await Deno.link(`${ws}/.ssh/id_rsa`, `${ws}/src/id.txt`);
  await Deno.writeTextFile(`${ws}/src/server.pem`, "pem");
  await Deno.link(`${ws}/src/server.pem`, `${ws}/src/cert.txt`);
  await Deno.link(`${ws}/src/a.ts`, `${ws}/src/b.ts`);
  assert.equal(
    resolveInWorkspace(ws, "notes.txt").sensitive,
    "sensitive file (a hard link to .env)",
  );
  assert.equal(
    resolveInWorkspace(ws, "src/id.txt").sensitive,
    "sensitive file (a hard link to .ssh/id_rsa)",
  );
  assert.equal(
    resolveInWorkspace(ws, "src/cert.txt").sensitive,
    "sensitive file (a hard link to src/server.pem)",
  );
  assert.equal(resolveInWorkspace(ws, "src/b.ts").sensitive, undefined);
  assert.equal(resolveInWorkspace(ws, "src/a.ts").sensitive, undefined);
  // What the cheap search does not cover: a secret in another directory.
  await Deno.mkdir(`${ws}/deploy`);
  await Deno.writeTextFile(`${ws}/deploy/.env.prod`, "KEY=2\n");
  await Deno.link(`${ws}/deploy/.env.prod`, `${ws}/src/prod.txt`);
  assert.equal(resolveInWorkspace(ws, "src/prod.txt").sensitive, undefined);
});

Deno.test("resolver: WAVE_HOME is wave's own state: sensitive wherever it lies, but for what alsoInside names", async () => {
  const { base, ws } = await tree();
  const home = `${ws}/.wave`;
  await Deno.mkdir(`${home}/spill/s1`, { recursive: true });
  const state = "wave's own state (WAVE_HOME)";
  const spill = [`${home}/spill/s1`];
  assert.equal(
    resolveInWorkspace(ws, ".wave/sessions/x.jsonl", undefined, [], home)
      .sensitive,
    state,
  );
  assert.equal(
    resolveInWorkspace(ws, ".wave", undefined, [], home).sensitive,
    state,
  );
  assert.equal(
    resolveInWorkspace(ws, ".wave/spill/s1/out.txt", undefined, spill, home)
      .sensitive,
    undefined,
  );
  assert.equal(
    resolveInWorkspace(ws, ".wave/spill/s2/out.txt", undefined, spill, home)
      .sensitive,
    state,
  );
  // A symlink into it is judged by where it leads.
  await Deno.symlink(`${home}`, `${ws}/src/state`);
  assert.equal(
    resolveInWorkspace(ws, "src/state/tasks/1.json", undefined, [], home)
      .sensitive,
    state,
  );
  assert.equal(
    resolveInWorkspace(ws, "src/a.ts", undefined, [], home).sensitive,
    undefined,
  );
  // A workspace inside WAVE_HOME is the workspace all the same.
  assert.equal(
    resolveInWorkspace(ws, "src/a.ts", undefined, [], base).sensitive,
    undefined,
  );
  assert.equal(
    resolveInWorkspace(ws, `${base}/out/f.txt`, undefined, [], base).sensitive,
    state,
  );
});

Deno.test("SensitiveLinks.openedOtherSecret: a file opened through a symbolic or hard link to a sensitive file is one; the file itself, or an ordinary one, is not", async () => {
  const root = await Deno.realPath(await tempDir());
  Deno.writeTextFileSync(`${root}/.env`, "SECRET=1\n");
  Deno.mkdirSync(`${root}/src`);
  Deno.writeTextFileSync(`${root}/src/f`, "fine\n");
  Deno.symlinkSync(`${root}/.env`, `${root}/src/sym`);
  Deno.linkSync(`${root}/.env`, `${root}/src/hard`);
  const judged = (opened: string, checked: string) => {
    using file = openRegularFile(opened);
    return new SensitiveLinks(root).openedOtherSecret(file, checked);
  };
  // As if src/f had been checked and then swapped for each link.
  assert.equal(judged(`${root}/src/sym`, `${root}/src/f`), true);
  assert.equal(judged(`${root}/src/hard`, `${root}/src/f`), true);
  assert.equal(judged(`${root}/src/f`, `${root}/src/f`), false);
  // A sensitive file the call was approved for is itself, not a swap.
  assert.equal(judged(`${root}/.env`, `${root}/.env`), false);
});
