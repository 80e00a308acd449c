import assert from "node:assert/strict";
import { structuredPatch } from "diff";
import { diffTexts } from "../../../tools/_core/diff.ts";
import { applyHunks, linesOf } from "./_diff_check.ts";

Deno.test("diff: the windowed diff turns the old text into the new, with whole-text line numbers (random edits)", () => {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 500; round++) {
    const lines = Array.from(
      { length: 1 + rand(40) },
      () => ["a", "b", "c", "dd", ""][rand(5)],
    );
    const old = lines.join("\n") + (rand(3) ? "\n" : "");
    const edited = [...lines];
    for (let k = 0; k < 1 + rand(3); k++) {
      const at = rand(edited.length + 1);
      const op = rand(3);
      if (op === 0) edited.splice(at, 0, ["x", "y", "a"][rand(3)]);
      else if (op === 1) edited.splice(at, 1);
      else edited[at] = (edited[at] ?? "") + "z";
    }
    const neu = edited.join("\n") + (rand(3) ? "\n" : "");
    const ours = diffTexts("f", old, neu);
    const label = `round ${round}: ${JSON.stringify(old)} → ${
      JSON.stringify(neu)
    }`;
    assert.deepEqual(applyHunks(old, ours.hunks), linesOf(neu), label);
    // As short as a whole-text diff.
    const whole = structuredPatch("f", "f", old, neu, undefined, undefined, {
      context: 3,
    });
    const changed = (hs: { lines: string[] }[]) =>
      hs.flatMap((h) => h.lines).filter((l) => l[0] === "+" || l[0] === "-")
        .length;
    assert.equal(changed(ours.hunks), changed(whole.hunks), label);
  }
});

Deno.test("diff: counts, first changed line and unified text", () => {
  const d = diffTexts("f.ts", "a\nb\nc\n", "a\nB\nc\nd\n");
  assert.equal(d.firstChangedLine, 2);
  assert.equal(d.added, 2);
  assert.equal(d.removed, 1);
  assert.equal(
    d.unified,
    "--- f.ts\n+++ f.ts\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n",
  );
  assert.deepEqual(diffTexts("f", "same", "same").hunks, []);
});

Deno.test("diff: a one-line change in a 10 MB text stays a small hunk with the right line number", () => {
  const line =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
  const old = line.repeat(160_000);
  const at = 100_000 * line.length;
  const neu = old.slice(0, at) + "CHANGED\n" + old.slice(at + line.length);
  const d = diffTexts("big", old, neu);
  assert.equal(d.hunks.length, 1);
  assert.equal(d.firstChangedLine, 100_001);
  assert.equal(d.hunks[0].oldStart, 99_998);
  assert.equal(d.hunks[0].lines.length, 8);
});

Deno.test("diff: too many changes to diff in bounded time give an incomplete diff that still says where and how much", () => {
  const before = Array.from({ length: 3000 }, (_, i) => `line ${i} old`);
  const after = before.map((l) => l.replace("old", "new"));
  const text = (lines: string[]) =>
    ["head", ...lines, "tail"].join("\n") + "\n";
  const d = diffTexts("f.txt", text(before), text(after));
  assert.equal(d.complete, false);
  assert.equal(d.unified, "");
  assert.deepEqual(d.hunks, []);
  assert.equal(d.firstChangedLine, 2);
  assert.equal(d.added, 3000);
  assert.equal(d.removed, 3000);
  // A few changes are diffed in full.
  const few = diffTexts("f.txt", text(before), text(before.with(7, "x")));
  assert.equal(few.complete, true);
  assert.equal(few.firstChangedLine, 9);
  assert.equal(few.added, 1);
});
