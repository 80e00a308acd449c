/**
 * Diffs of a file's old and new text (npm:diff): the unified diff a model
 * and a person read, the first changed line, and word-level changes for
 * hunks whose removed and added line counts match (spec 000 Edit #3).
 *
 * Only the region between the common prefix and suffix is handed to the
 * diff algorithm, so a one-line edit of a 10 MB file costs about as much as
 * comparing the strings.
 *
 * @module
 */

import { diffWordsWithSpace, structuredPatch } from "diff";
import {
  countNewlines,
  linesBack,
  linesForward,
  sliceChunks,
} from "./bytes.ts";
import { newlinesBefore, normalizeEol, plural } from "./text.ts";

/** One hunk, line numbers 1-based. `lines` start with " ", "-" or "+". */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** A word-level view of one changed line pair. */
export interface WordChange {
  oldLine: number;
  newLine: number;
  parts: { value: string; added?: true; removed?: true }[];
}

/** A file's diff. */
export interface FileDiff {
  /** The unified diff text (`--- path`, `+++ path`, hunks). Empty when nothing changed. */
  unified: string;
  hunks: DiffHunk[];
  /** The first changed line in the new text, or `null` when nothing changed. */
  firstChangedLine: number | null;
  /**
   * Lines added and removed. When the diff is not `complete`, the lines of
   * the changed span on each side: as many as could have changed.
   */
  added: number;
  removed: number;
  /** Word-level changes where a block removed and added the same number of lines. */
  wordDiffs: WordChange[];
  /**
   * False when the changes were too many to diff in bounded time (a
   * replace_all over thousands of lines): `unified` is empty, no hunks.
   */
  complete: boolean;
}

/**
 * The bounds of one diff: past this many edits, or this long, a diff is
 * given up (Myers' algorithm slows with the number of changes times the
 * length, and a diff that large helps no reader).
 */
const MAX_EDIT_LENGTH = 2000;
const DIFF_TIMEOUT_MS = 250;

/**
 * Length of the longest common prefix of `a` and `b`: galloping, then a
 * binary search, so the work is proportional to the prefix (each probe is
 * one native string comparison).
 */
function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let lo = 0;
  let step = 256;
  while (lo + step <= n && a.slice(lo, lo + step) === b.slice(lo, lo + step)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(lo + step, n);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.slice(lo, mid) === b.slice(lo, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Length of the longest common suffix of `a` and `b` that leaves the first `skip` characters alone. */
function commonSuffixLength(a: string, b: string, skip: number): number {
  const n = Math.min(a.length, b.length) - skip;
  const tailEq = (from: number, to: number) =>
    a.slice(a.length - to, a.length - from) ===
      b.slice(b.length - to, b.length - from);
  let lo = 0;
  let step = 256;
  while (lo + step <= n && tailEq(lo, lo + step)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(lo + step, n);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (tailEq(lo, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index just past the longest common prefix of `a` and `b` that ends at a line start. */
function commonPrefixLines(a: string, b: string): number {
  const lo = commonPrefixLength(a, b);
  // lastIndexOf clamps a negative start to 0, which would find a leading "\n".
  return lo === 0 ? 0 : a.lastIndexOf("\n", lo - 1) + 1;
}

/** Length of the longest common suffix of `a` and `b` (not reaching into the first `skip` chars) that starts at a line start. */
function commonSuffixLines(a: string, b: string, skip: number): number {
  const lo = commonSuffixLength(a, b, skip);
  // Move the suffix start to just after a newline, so whole lines are cut.
  const start = a.length - lo;
  if (start === 0) return lo;
  const nl = a.indexOf("\n", start - 1);
  if (nl === -1) return 0;
  return a.length - (nl + 1);
}

/** Lines (with their newlines) ending at `end`, going back `count` lines. */
function backLines(text: string, end: number, count: number): number {
  let at = end;
  for (let i = 0; i < count && at > 0; i++) {
    at = at < 2 ? 0 : text.lastIndexOf("\n", at - 2) + 1;
  }
  return at;
}

/** Forward `count` lines from `start`. */
function forwardLines(text: string, start: number, count: number): number {
  let at = start;
  for (let i = 0; i < count && at < text.length; i++) {
    const nl = text.indexOf("\n", at);
    at = nl === -1 ? text.length : nl + 1;
  }
  return at;
}

/**
 * Diffs two texts. `path` names both sides in the unified header.
 * Guarantees: the hunks turn `oldText` into `newText`; their line numbers
 * refer to the whole texts, with `context` lines of context. Where several
 * shortest diffs exist (which of two blank lines was removed), it may pick
 * another of them than a diff of the whole texts would.
 */
export function diffTexts(
  path: string,
  oldText: string,
  newText: string,
  context = 3,
): FileDiff {
  if (oldText === newText) {
    return {
      unified: "",
      hunks: [],
      firstChangedLine: null,
      added: 0,
      removed: 0,
      wordDiffs: [],
      complete: true,
    };
  }
  const prefix = commonPrefixLines(oldText, newText);
  const suffix = commonSuffixLines(oldText, newText, prefix);
  // Widen by the context, so the diff library sees the same surroundings.
  const from = backLines(oldText, prefix, context);
  const oldTo = forwardLines(oldText, oldText.length - suffix, context);
  const newTo = forwardLines(newText, newText.length - suffix, context);
  return diffRegion(
    path,
    oldText.slice(from, oldTo),
    newText.slice(from, newTo),
    newlinesBefore(oldText, from),
    context,
  );
}

/**
 * Diffs a region of two texts that starts at the same line (`lineOffset`
 * lines into both) and has at least `context` unchanged lines around its
 * changes, or reaches the ends of the texts.
 */
export function diffRegion(
  path: string,
  oldPart: string,
  newPart: string,
  lineOffset: number,
  context = 3,
): FileDiff {
  const patch = structuredPatch(
    path,
    path,
    oldPart,
    newPart,
    undefined,
    undefined,
    { context, maxEditLength: MAX_EDIT_LENGTH, timeout: DIFF_TIMEOUT_MS },
  );
  if (!patch) return tooLargeToDiff(oldPart, newPart, lineOffset);
  const hunks: DiffHunk[] = patch.hunks.map((h) => ({
    oldStart: h.oldStart + lineOffset,
    oldLines: h.oldLines,
    newStart: h.newStart + lineOffset,
    newLines: h.newLines,
    lines: h.lines,
  }));

  let added = 0;
  let removed = 0;
  let firstChangedLine: number | null = null;
  const wordDiffs: WordChange[] = [];
  for (const hunk of hunks) {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    let i = 0;
    while (i < hunk.lines.length) {
      const line = hunk.lines[i];
      if (line.startsWith(" ") || line.startsWith("\\")) {
        if (line.startsWith(" ")) {
          oldLine++;
          newLine++;
        }
        i++;
        continue;
      }
      // A block of changes: "-" lines then "+" lines.
      const minus: string[] = [];
      const plus: string[] = [];
      while (i < hunk.lines.length && hunk.lines[i].startsWith("-")) {
        minus.push(hunk.lines[i++].slice(1));
      }
      while (i < hunk.lines.length && hunk.lines[i].startsWith("+")) {
        plus.push(hunk.lines[i++].slice(1));
      }
      while (i < hunk.lines.length && hunk.lines[i].startsWith("\\")) i++;
      firstChangedLine ??= newLine;
      if (minus.length === plus.length) {
        minus.forEach((before, k) => {
          wordDiffs.push({
            oldLine: oldLine + k,
            newLine: newLine + k,
            parts: diffWordsWithSpace(before, plus[k]).map((c) => ({
              value: c.value,
              ...(c.added ? { added: true as const } : {}),
              ...(c.removed ? { removed: true as const } : {}),
            })),
          });
        });
      }
      removed += minus.length;
      added += plus.length;
      oldLine += minus.length;
      newLine += plus.length;
    }
  }
  const unified = unifiedText(path, hunks);
  return {
    unified,
    hunks,
    firstChangedLine,
    added,
    removed,
    wordDiffs,
    complete: true,
  };
}

/** What is known of a change too large to diff: where it starts, and its span. */
function tooLargeToDiff(
  oldPart: string,
  newPart: string,
  lineOffset: number,
): FileDiff {
  const prefix = commonPrefixLines(oldPart, newPart);
  const suffix = commonSuffixLines(oldPart, newPart, prefix);
  // Prefix and suffix are whole lines, so the span between is too.
  const lines = (text: string) => {
    const span = text.slice(prefix, text.length - suffix);
    return newlinesBefore(span, span.length) +
      (span && !span.endsWith("\n") ? 1 : 0);
  };
  return {
    unified: "",
    hunks: [],
    firstChangedLine: lineOffset + newlinesBefore(oldPart, prefix) + 1,
    added: lines(newPart),
    removed: lines(oldPart),
    wordDiffs: [],
    complete: false,
  };
}

/** The unified diff text of `hunks` of the file shown as `path` (both headers name it). */
export function unifiedText(path: string, hunks: readonly DiffHunk[]): string {
  return [
    `--- ${path}`,
    `+++ ${path}`,
    ...hunks.flatMap((h) => [
      `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
      ...h.lines,
    ]),
  ].join("\n") + "\n";
}

/** The text a diff is made of: no BOM, LF line ends (a `\r` in a diff line means nothing to a reader). */
export function diffable(text: string): string {
  return normalizeEol(text.startsWith("\uFEFF") ? text.slice(1) : text);
}

/** Where a byte-level replacement changed a file: old bytes `[start, oldEnd)` became new bytes `[start, newEnd)`. */
export interface ByteChange {
  start: number;
  oldEnd: number;
  newEnd: number;
}

/**
 * Diffs two UTF-8 byte strings that differ only within `change`, decoding
 * just the window of lines around it. Hunks are those of the whole texts.
 */
export function diffBytes(
  path: string,
  oldBytes: Uint8Array,
  newChunks: readonly Uint8Array[],
  change: ByteChange,
  context = 3,
): FileDiff {
  const from = linesBack(oldBytes, change.start, context);
  // One more line forward covers a change that ends inside a line.
  const oldTo = linesForward(oldBytes, change.oldEnd, context + 1);
  const newTo = oldTo + (change.newEnd - change.oldEnd);
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  // The window starts and ends at line starts, so it never splits a CRLF;
  // a BOM can only be at the start of the file.
  const text = (bytes: Uint8Array) => {
    const part = decoder.decode(bytes);
    return from === 0 ? diffable(part) : normalizeEol(part);
  };
  return diffRegion(
    path,
    text(oldBytes.subarray(from, oldTo)),
    text(sliceChunks(newChunks, from, newTo)),
    countNewlines(oldBytes, from),
    context,
  );
}

/** The most diff text put in a model's result; the whole diff stays in `structured`. */
export const MAX_DIFF_CHARS = 8000;

/** A diff cut for a model's context: at most {@linkcode MAX_DIFF_CHARS}, at a line end, saying how much was cut. */
export function diffForModel(unified: string): string {
  if (unified.length <= MAX_DIFF_CHARS) return unified;
  const cut = unified.slice(0, MAX_DIFF_CHARS);
  return `${cut.slice(0, cut.lastIndexOf("\n") + 1)}… (diff cut: ${
    unified.length - MAX_DIFF_CHARS
  } more characters)\n`;
}

/**
 * An edit's diff as the model reads it ({@linkcode diffForModel}), or,
 * when the changes were too many to diff, a line saying so and what to do.
 */
export function diffOrWhy(diff: FileDiff): string {
  return diff.complete
    ? diffForModel(diff.unified)
    : `(No diff: the changes span ${
      plural(diff.removed, "line")
    }, too many to diff. Read the file to check them.)\n`;
}
