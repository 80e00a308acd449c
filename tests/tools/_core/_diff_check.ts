/** Test helper: checks a diff by applying its hunks. */
import assert from "node:assert/strict";
import type { DiffHunk } from "../../../tools/_core/diff.ts";

/** Applies hunks to a text's lines (the check that a diff is right, whichever alignment it chose). */
export function applyHunks(old: string, hunks: DiffHunk[]): string[] {
  const lines = linesOf(old);
  let shift = 0;
  for (const hunk of hunks) {
    // "\\ No newline at end of file" markers say nothing about line content.
    const h = { ...hunk, lines: hunk.lines.filter((l) => !l.startsWith("\\")) };
    const at = h.oldStart - 1 + shift + (h.oldLines === 0 ? 1 : 0);
    const expectOld = h.lines.filter((l) => l[0] === " " || l[0] === "-").map((
      l,
    ) => l.slice(1));
    assert.deepEqual(
      lines.slice(at, at + expectOld.length),
      expectOld,
      "hunk does not fit the old text",
    );
    const neu = h.lines.filter((l) => l[0] === " " || l[0] === "+").map((l) =>
      l.slice(1)
    );
    lines.splice(at, expectOld.length, ...neu);
    shift += neu.length - expectOld.length;
  }
  return lines;
}

/** A text's lines as a diff counts them: a final newline does not start another line. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}
