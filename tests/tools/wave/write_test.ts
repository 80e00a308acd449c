/** Spec 000 Write, on the tool module in-process. */
import assert from "node:assert/strict";
import Grep from "../../../tools/wave/grep.ts";
import Read from "../../../tools/wave/read.ts";
import Write from "../../../tools/wave/write.ts";
import { TestSession, text, touchLater } from "../../_context.ts";

Deno.test("000 Write: a new file needs no read; missing parents are created", async () => {
  const s = await TestSession.create();
  const r = await s.call(Write, {
    file_path: "deep/er/new.ts",
    content: "export {};\n",
  });
  assert.equal(r.isError, undefined);
  assert.equal(text(r), "Created deep/er/new.ts (1 line, 11 B).");
  assert.deepEqual(r.structured, {
    type: "create",
    path: `${s.workspace}/deep/er/new.ts`,
    bytes: 11,
    previousBytes: null,
    lines: 1,
    diff: null,
    firstChangedLine: null,
  });
  assert.equal(await s.read("deep/er/new.ts"), "export {};\n");
});

Deno.test("000 edge 写入前读取: overwriting an existing file needs a read (Grep does not count)", async () => {
  const s = await TestSession.create();
  await s.write("exists.ts", "old\n");
  await s.call(Grep, { pattern: "old" });
  const r = await s.call(Write, { file_path: "exists.ts", content: "new\n" });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "exists.ts has not been read in this session. Call Read on it first, then overwrite it.",
  );
  assert.equal(await s.read("exists.ts"), "old\n");
});

Deno.test("000 Write: an update after a read reports bytes and a diff", async () => {
  const s = await TestSession.create();
  await s.write("u.ts", "a\nb\n");
  await s.call(Read, { file_path: "u.ts" });
  const r = await s.call(Write, { file_path: "u.ts", content: "a\nB\n" });
  assert.equal(r.isError, undefined);
  assert.equal(
    text(r),
    "Updated u.ts (2 lines, 4 B).\n--- u.ts\n+++ u.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
  );
  const st = r.structured as {
    type: string;
    previousBytes: number;
    firstChangedLine: number;
  };
  assert.equal(st.type, "update");
  assert.equal(st.previousBytes, 4);
  assert.equal(st.firstChangedLine, 2);
});

Deno.test("000 edge 陈旧检测: Write uses the same staleness rule as Edit", async () => {
  const s = await TestSession.create();
  const path = await s.write("st.ts", "v1\n");
  await s.call(Read, { file_path: "st.ts" });
  await touchLater(path);
  assert.equal(
    (await s.call(Write, { file_path: "st.ts", content: "v2\n" })).isError,
    undefined,
    "touched only",
  );
  await Deno.writeTextFile(path, "changed elsewhere\n");
  await touchLater(path, 10);
  const stale = await s.call(Write, { file_path: "st.ts", content: "v3\n" });
  assert.equal(stale.isError, true);
  assert.match(text(stale), /has changed on disk since it was last read/);
  assert.equal(await s.read("st.ts"), "changed elsewhere\n");
});

Deno.test("000 Write: exact bytes on disk (no newline added), empty content, a directory refused", async () => {
  const s = await TestSession.create();
  await s.call(Write, { file_path: "exact.txt", content: "no newline at end" });
  assert.equal(await s.read("exact.txt"), "no newline at end");
  await s.call(Write, { file_path: "zero.txt", content: "" });
  assert.equal((await Deno.stat(`${s.workspace}/zero.txt`)).size, 0);
  await Deno.mkdir(`${s.workspace}/adir`);
  const dir = await s.call(Write, { file_path: "adir", content: "x" });
  assert.equal(dir.isError, true);
  assert.equal(text(dir), "adir is a directory; give a file path to write.");
});
