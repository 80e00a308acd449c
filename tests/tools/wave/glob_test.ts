/** Spec 000 Glob, on the tool module in-process. */
import assert from "node:assert/strict";
import Glob from "../../../tools/wave/glob.ts";
import { TestSession, text } from "../../_context.ts";

async function tree(s: TestSession) {
  await s.write(".gitignore", "dist/\n");
  await s.write("src/a.ts", "a");
  await s.write("src/deep/b.ts", "b");
  await s.write("dist/out.ts", "ignored but listed");
  await s.write(".git/hooks/x.ts", "never");
  await s.write("README.md", "r");
  const times: [string, number][] = [["src/a.ts", 3000], [
    "src/deep/b.ts",
    1000,
  ], ["dist/out.ts", 2000]];
  for (const [p, t] of times) await Deno.utime(`${s.workspace}/${p}`, t, t);
}

Deno.test("000 Glob #2: **/*.ts lists TypeScript files, ignored ones too, never .git/, newest first", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(Glob, { pattern: "**/*.ts" });
  assert.equal(text(r), "src/a.ts\ndist/out.ts\nsrc/deep/b.ts");
  const st = r.structured as Record<string, unknown>;
  assert.deepEqual({ ...st, durationMs: 0 }, {
    type: "glob",
    pattern: "**/*.ts",
    path: s.workspace,
    files: ["src/a.ts", "dist/out.ts", "src/deep/b.ts"],
    count: 3,
    total: 3,
    truncated: false,
    durationMs: 0,
  });
  assert.equal(typeof st.durationMs, "number");
});

Deno.test("000 Glob #2: at most limit (default 100), saying it was cut", async () => {
  const s = await TestSession.create();
  for (let i = 0; i < 120; i++) await s.write(`many/f${i}.txt`, "");
  const r = await s.call(Glob, { pattern: "*.txt" });
  assert.equal((r.structured as { count: number }).count, 100);
  assert.equal((r.structured as { total: number }).total, 120);
  assert.equal((r.structured as { truncated: boolean }).truncated, true);
  assert.match(text(r), /Showing the 100 most recently modified of 120 files/);
  const five = await s.call(Glob, { pattern: "*.txt", limit: 5 });
  assert.equal((five.structured as { files: string[] }).files.length, 5);
});

Deno.test("000 Glob: path narrows the search; no match and a missing directory say so", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(Glob, { pattern: "*.ts", path: "src/deep" });
  assert.equal(text(r), "src/deep/b.ts");
  const none = await s.call(Glob, { pattern: "*.rs" });
  assert.equal(text(none), "No files found matching *.rs in the workspace.");
  const missing = await s.call(Glob, { pattern: "*", path: "nope" });
  assert.equal(missing.isError, true);
  assert.equal(text(missing), "Directory does not exist: nope.");
});

Deno.test("000 Glob: a file name with a newline is one file", async () => {
  const s = await TestSession.create();
  await s.write("new\nline.txt", "x\n");
  await s.write("plain.txt", "x\n");
  const r = await s.call(Glob, { pattern: "*.txt" });
  const st = r.structured as { files: string[]; count: number };
  assert.equal(st.count, 2);
  assert.deepEqual(st.files.toSorted(), ["new\nline.txt", "plain.txt"]);
});

Deno.test("000 Glob: a pattern with a slash is relative to path; an absolute one inside it is made relative", async () => {
  const s = await TestSession.create();
  await s.write("pkg/src/a.ts", "");
  await s.write("pkg/b.ts", "");
  await s.write("src/c.ts", "");
  const files = async (input: Record<string, unknown>) =>
    ((await s.call(Glob, input)).structured as { files: string[] }).files
      .toSorted();
  assert.deepEqual(await files({ pattern: "src/*.ts", path: "pkg" }), [
    "pkg/src/a.ts",
  ]);
  assert.deepEqual(await files({ pattern: "src/*.ts" }), ["src/c.ts"]);
  assert.deepEqual(
    await files({ pattern: `${s.workspace}/pkg/**/*.ts` }),
    ["pkg/b.ts", "pkg/src/a.ts"],
  );
  assert.deepEqual(
    await files({ pattern: `${s.workspace}/pkg/src/*.ts`, path: "pkg" }),
    ["pkg/src/a.ts"],
  );
  const outside = await s.call(Glob, { pattern: "/etc/*.conf", path: "pkg" });
  assert.equal(outside.isError, true);
  assert.equal(
    text(outside),
    "The pattern /etc/*.conf is an absolute path outside the search path (pkg). Set path to the directory to search, and give a pattern relative to it.",
  );
});

Deno.test("000 Glob: the atomic writer's temp and old files are never listed, whatever the pattern", async () => {
  const s = await TestSession.create();
  await s.write("src/a.ts", "a");
  await s.write("src/.a.ts.0123abcd.wave-tmp", "half a wri");
  await s.write(".notes.md.89abcdef.wave-old", "old");
  for (const pattern of ["**/*", "*", ".*", "**/*.wave-tmp", "**/.*"]) {
    const r = await s.call(Glob, { pattern });
    assert.ok(!/0123abcd|89abcdef/.test(text(r)), `${pattern}: ${text(r)}`);
  }
  assert.equal(text(await s.call(Glob, { pattern: "**/*" })), "src/a.ts");
});
