/**
 * The editor's buffers (`ctx.buffers`, tools/_core/buffers.ts) under the
 * wave dialect's Read, Edit and Write, in process: what is read from the
 * editor, what goes back to it, and what stays on the disk.
 */

import assert from "node:assert/strict";
import { TestSession, text, touchLater } from "../../_context.ts";
import { TINY_PNG } from "../../_images.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import Edit from "../../../tools/wave/edit.ts";
import Read from "../../../tools/wave/read.ts";
import Write from "../../../tools/wave/write.ts";
import { loadContentHash } from "../../../tools/_core/content_hash.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

/** An editor: open buffers by real path (else the disk), and what it was asked. */
function editor(s: TestSession, open: Record<string, string>) {
  const buffers = new Map(
    Object.entries(open).map((
      [path, text],
    ) => [`${s.workspace}/${path}`, text]),
  );
  const asked: string[] = [];
  s.buffers = {
    read: async (path) => {
      asked.push(`read ${path.slice(s.workspace.length + 1)}`);
      return buffers.get(path) ?? await Deno.readTextFile(path);
    },
    write: (path, text) => {
      asked.push(`write ${path.slice(s.workspace.length + 1)}`);
      buffers.set(path, text);
      return Promise.resolve();
    },
  };
  return {
    asked,
    text: (path: string) => buffers.get(`${s.workspace}/${path}`),
    type: (path: string, text: string) =>
      buffers.set(`${s.workspace}/${path}`, text),
  };
}

Deno.test("buffers: a ranged Read of a buffer still knows the whole buffer, so Edit may change it; the disk is never written", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "disk\n");
  const ed = editor(s, { "a.txt": "one\ntwo\nthree\n" });
  const r = await s.call(Read, { file_path: "a.txt", offset: 2, limit: 1 });
  assert.equal(
    text(r),
    "     2\ttwo\n\n(Showing lines 2-2 of 3. Call Read with offset 3 to continue.)",
  );
  assert.equal((r.structured as { bytes: number }).bytes, 14);
  const e = await s.call(Edit, {
    file_path: "a.txt",
    old_string: "three",
    new_string: "THREE",
  });
  assert.equal(e.isError, undefined, text(e));
  assert.equal(ed.text("a.txt"), "one\ntwo\nTHREE\n");
  assert.equal(await s.read("a.txt"), "disk\n");
  assert.deepEqual(ed.asked, ["read a.txt", "read a.txt", "write a.txt"]);
});

Deno.test("buffers: Read says unchanged only while the buffer is, whatever the disk does; a buffer the person changed is stale for Edit and Write", async () => {
  const s = await TestSession.create();
  const disk = await s.write("a.txt", "disk\n");
  const ed = editor(s, { "a.txt": "hello\n" });
  assert.equal(
    text(await s.call(Read, { file_path: "a.txt" })),
    "     1\thello",
  );
  // The disk changing does not matter: the editor holds the text.
  await touchLater(disk);
  const again = await s.call(Read, { file_path: "a.txt" });
  assert.deepEqual(
    (again.structured as { type: string }).type,
    "file_unchanged",
  );
  ed.type("a.txt", "hello, typed\n");
  const stale = await s.call(Edit, {
    file_path: "a.txt",
    old_string: "hello",
    new_string: "bye",
  });
  assert.equal(stale.isError, true);
  assert.equal(
    text(stale),
    "a.txt has changed in the editor since it was last read (the person typed, or another tool changed the buffer). Call Read on it again, then edit it.",
  );
  assert.deepEqual(stale.structured, { type: "stale" });
  const write = await s.call(Write, { file_path: "a.txt", content: "x" });
  assert.deepEqual(write.structured, { type: "stale" });
  assert.equal(
    text(await s.call(Read, { file_path: "a.txt" })),
    "     1\thello, typed",
  );
  const written = await s.call(Write, { file_path: "a.txt", content: "new\n" });
  assert.equal(written.isError, undefined, text(written));
  assert.equal(ed.text("a.txt"), "new\n");
  assert.equal(await s.read("a.txt"), "disk\n");
});

Deno.test("buffers: Write creates a new file on the disk, and an image is read from the disk; the editor is not asked", async () => {
  const s = await TestSession.create();
  await s.write("dot.png", TINY_PNG);
  const ed = editor(s, {});
  const w = await s.call(Write, {
    file_path: "dir/new.txt",
    content: "fresh\n",
  });
  assert.equal(w.isError, undefined, text(w));
  assert.equal(await s.read("dir/new.txt"), "fresh\n");
  const image = await s.call(Read, { file_path: "dot.png" });
  assert.equal(image.isError, undefined);
  assert.deepEqual(ed.asked, []);
  // What was written to the disk is the disk's: the next Edit goes there too.
  const e = await s.call(Edit, {
    file_path: "dir/new.txt",
    old_string: "fresh",
    new_string: "FRESH",
  });
  assert.equal(e.isError, undefined, text(e));
  assert.equal(await s.read("dir/new.txt"), "FRESH\n");
  assert.deepEqual(ed.asked, []);
});

Deno.test("buffers: the editor's failure is the call's error, and nothing is written", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "disk\n");
  s.buffers = {
    read: () =>
      Promise.reject(
        new ToolError("the editor could not give the text of a.txt: gone", {
          type: "buffer_failed",
        }),
      ),
    write: () => Promise.reject(new Error("not reached")),
  };
  const r = await s.call(Read, { file_path: "a.txt" });
  assert.equal(r.isError, true);
  assert.equal(text(r), "the editor could not give the text of a.txt: gone");
  assert.deepEqual(r.structured, { type: "buffer_failed" });
  assert.equal(await s.read("a.txt"), "disk\n");
});
