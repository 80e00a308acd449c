/** Directory listings: the options spec 004's list mode needs (name order, .git not entered, a count of what was left out). */
import assert from "node:assert/strict";
import { listDirectory } from "../../../tools/_core/listing.ts";
import { TestSession } from "../../_context.ts";

async function tree(s: TestSession) {
  await s.write("b.txt", "b");
  await s.write("a/z.txt", "z");
  await s.write("C.txt", "c");
  await s.write(".git/config", "x");
  await s.write("d/e/f.txt", "f");
}

Deno.test("listDirectory: directories first by default; by name alone with order name", async () => {
  const s = await TestSession.create();
  await tree(s);
  const byDefault = await listDirectory(s.context(), s.workspace, {
    maxEntries: 100,
  });
  assert.deepEqual(byDefault.entries.map((e) => e.path), [
    ".git",
    "a",
    "d",
    "C.txt",
    "b.txt",
  ]);
  const byName = await listDirectory(s.context(), s.workspace, {
    maxEntries: 100,
    order: "name",
    recursive: true,
    opaque: [".git"],
  });
  assert.deepEqual(byName.entries.map((e) => e.path), [
    ".git",
    "C.txt",
    "a",
    "a/z.txt",
    "b.txt",
    "d",
    "d/e",
    "d/e/f.txt",
  ]);
  assert.equal(byName.total, 8);
});

Deno.test("listDirectory: countAll keeps counting past maxEntries; without it the walk stops", async () => {
  const s = await TestSession.create();
  await tree(s);
  const counted = await listDirectory(s.context(), s.workspace, {
    maxEntries: 3,
    order: "name",
    recursive: true,
    countAll: true,
  });
  assert.equal(counted.entries.length, 3);
  assert.equal(counted.truncated, true);
  assert.equal(counted.total, 9); // .git/config too: nothing is opaque here
  const stopped = await listDirectory(s.context(), s.workspace, {
    maxEntries: 3,
    recursive: true,
  });
  assert.equal(stopped.entries.length, 3);
  assert.equal(stopped.truncated, true);
});
