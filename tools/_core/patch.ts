/**
 * Multi-target patches (spec 004 edit_file `mode: "patch"`): every anchor
 * is located in the original text before any change applies, so a
 * target's position never depends on what an earlier one changed.
 *
 * Rules: two targets that cover the same region, or a target whose
 * old_string occurs inside an earlier target's new_string, reject the
 * whole patch. An anchor that differs from the text only in curly versus
 * straight quotes still matches, and its replacement takes the text's
 * quote style. A file whose line breaks are CRLF is matched with `\n` in
 * an anchor standing for `\r\n`, and keeps its CRLFs.
 *
 * @module
 */

import { ToolError } from "../kernel/tool.ts";
import { type ByteSearch, byteSearch } from "./byte_search.ts";
import {
  type DiffHunk,
  diffRegion,
  type FileDiff,
  unifiedText,
} from "./diff.ts";
import { clip, newlinesBefore, normalizeEol } from "./text.ts";

/** One target of a patch. */
export interface PatchTarget {
  oldString: string;
  newString: string;
  /** Replace every occurrence; otherwise exactly one must exist. */
  replaceAll?: boolean;
}

/** One replaced region of the original text. */
export interface PatchChange {
  /** Which target (0-based). */
  target: number;
  /** `[start, end)` in the original text. */
  start: number;
  end: number;
  /** What replaces it. */
  text: string;
}

/** A patch applied to a text. */
export interface Patched {
  /** The new text. */
  text: string;
  /** The changes, in the order of the text. */
  changes: PatchChange[];
}

const CURLY_DOUBLE = /[\u201C\u201D\u201E\u201F]/g;
const CURLY_SINGLE = /[\u2018\u2019\u201A\u201B]/g;

/** The text with curly quotes made straight: same length, same positions. */
export function foldQuotes(text: string): string {
  return text.replace(CURLY_DOUBLE, '"').replace(CURLY_SINGLE, "'");
}

/** Every start of `needle` in `hay`, not overlapping. */
function occurrences(hay: string, needle: string): number[] {
  const found: number[] = [];
  for (
    let i = hay.indexOf(needle);
    i !== -1;
    i = hay.indexOf(needle, i + needle.length)
  ) found.push(i);
  return found;
}

/**
 * `replacement` in the quote style of `matched` (the file's text the
 * anchor matched): where the file uses curly quotes of a kind, straight
 * ones of that kind become curly (opening after a space or an opening
 * bracket, closing elsewhere; an apostrophe inside a word is closing);
 * where it uses straight ones, curly ones become straight.
 */
export function inQuoteStyle(replacement: string, matched: string): string {
  let out = replacement;
  for (
    const [straight, curly, open, close] of [
      ['"', CURLY_DOUBLE, "\u201C", "\u201D"],
      ["'", CURLY_SINGLE, "\u2018", "\u2019"],
    ] as const
  ) {
    curly.lastIndex = 0;
    const fileCurly = curly.test(matched);
    const fileStraight = matched.includes(straight);
    if (fileCurly && !fileStraight) {
      out = [...out].map((c, i, all) => {
        if (c !== straight) return c;
        const before = i === 0 ? "" : all[i - 1];
        return before === "" || /[\s([{\u2014\u2013-]/.test(before)
          ? open
          : close;
      }).join("");
    } else if (fileStraight && !fileCurly) {
      out = out.replace(curly, straight);
    }
  }
  return out;
}

/** The checks of target `i` that need no file: not empty, a change, not inside an earlier target's new_string. */
function checkTarget(targets: readonly PatchTarget[], i: number): void {
  const t = targets[i];
  const n = `targets[${i}]`;
  if (t.oldString === "") {
    throw new ToolError(
      `${n}.old_string is empty: give the exact text to replace (to insert, repeat the text before the insertion point at the start of new_string; to replace the whole file, use mode "write").`,
      { type: "empty_anchor", target: i },
    );
  }
  if (t.oldString === t.newString) {
    throw new ToolError(
      `${n}: old_string and new_string are the same; there is nothing to change.`,
      { type: "no_change", target: i },
    );
  }
  for (let j = 0; j < i; j++) {
    if (targets[j].newString.includes(t.oldString)) {
      throw new ToolError(
        `${n}.old_string occurs inside targets[${j}].new_string. Every anchor is found in the file as it is before the call, so a target cannot edit what an earlier target writes; nothing was written. Merge the two targets into one.`,
        { type: "nested_anchor", target: i, earlier: j },
      );
    }
  }
}

/**
 * Applies `targets` to `original` (decoded text, BOM and all), each anchor
 * located in the original first. Throws a {@linkcode ToolError} (nothing
 * applied) for: an empty or unchanged target, an anchor not found, one
 * found more than once without `replaceAll`, two targets covering the
 * same region, or an anchor inside an earlier target's new_string.
 */
export function applyPatch(
  original: string,
  targets: readonly PatchTarget[],
  shown: string,
): Patched {
  const crlf = original.includes("\r\n") &&
    !/(^|[^\r])\n/.test(original);
  const eol = (s: string) =>
    crlf ? normalizeEol(s).replaceAll("\n", "\r\n") : s;
  let folded: string | undefined;
  const changes: PatchChange[] = [];
  targets.forEach((t, i) => {
    const n = `targets[${i}]`;
    checkTarget(targets, i);
    const needle = eol(t.oldString);
    let replacement = eol(t.newString);
    let starts = occurrences(original, needle);
    if (starts.length === 0) {
      folded ??= foldQuotes(original);
      starts = occurrences(folded, foldQuotes(needle));
      if (starts.length > 0) {
        const matched = original.slice(starts[0], starts[0] + needle.length);
        replacement = inQuoteStyle(replacement, matched);
      }
    }
    if (starts.length === 0) {
      throw new ToolError(
        `${n}.old_string was not found in ${shown}: "${
          clip(t.oldString)
        }". Copy it exactly from a read_files read (without the row number and tab); nothing was written.`,
        { type: "not_found", target: i },
      );
    }
    if (starts.length > 1 && !t.replaceAll) {
      throw new ToolError(
        `${n}.old_string occurs ${starts.length} times in ${shown} (first at line ${
          newlinesBefore(original, starts[0]) + 1
        }): add surrounding lines to make it unique, or set replace_all to change every one; nothing was written.`,
        { type: "ambiguous", target: i, count: starts.length },
      );
    }
    for (const start of starts) {
      changes.push({
        target: i,
        start,
        end: start + needle.length,
        text: replacement,
      });
    }
  });
  changes.sort((a, b) => a.start - b.start || a.end - b.end);
  for (let k = 1; k < changes.length; k++) {
    const [a, b] = [changes[k - 1], changes[k]];
    if (b.start < a.end) {
      const [first, second] = [a.target, b.target].sort((x, y) => x - y);
      throw new ToolError(
        `targets[${first}] and targets[${second}] cover the same region of ${shown} (line ${
          newlinesBefore(original, b.start) + 1
        }); nothing was written. Give each region one target.`,
        { type: "overlap", targets: [first, second] },
      );
    }
  }
  const parts: string[] = [];
  let at = 0;
  for (const change of changes) {
    parts.push(original.slice(at, change.start), change.text);
    at = change.end;
  }
  parts.push(original.slice(at));
  return { text: parts.join(""), changes };
}

/** Lines of context in a patch's diff. */
const CONTEXT = 3;

/**
 * The diff of a patch, made from windows of lines around its changes (the
 * rest of a large file is never diffed). Hunks and line numbers are those
 * of the whole texts.
 */
export function patchDiff(
  shown: string,
  original: string,
  patched: Patched,
): FileDiff {
  // Windows: from CONTEXT lines before a change's start to CONTEXT lines
  // after its end, merged where they touch.
  const windows: { from: number; to: number; changes: PatchChange[] }[] = [];
  for (const change of patched.changes) {
    const from = linesBack(original, change.start, CONTEXT);
    const to = linesForward(original, change.end, CONTEXT + 1);
    const last = windows.at(-1);
    if (last && from <= last.to) {
      last.to = Math.max(last.to, to);
      last.changes.push(change);
    } else windows.push({ from, to, changes: [change] });
  }
  const parts: DiffWindow[] = [];
  let lineAt = 0, lineCount = 0; // old lines before lineAt
  for (const w of windows) {
    lineCount += countNewlines(original, lineAt, w.from);
    lineAt = w.from;
    let newPart = "";
    let at = w.from;
    for (const c of w.changes) {
      newPart += original.slice(at, c.start) + c.text;
      at = c.end;
    }
    newPart += original.slice(at, w.to);
    parts.push({
      oldPart: original.slice(w.from, w.to),
      newPart,
      linesBefore: lineCount,
    });
  }
  return windowsDiff(shown, parts);
}

/** A window of a patch's diff: old and new text of whole lines, and how many lines come before it. */
interface DiffWindow {
  oldPart: string;
  newPart: string;
  linesBefore: number;
}

/** The diff of a patch from its windows, in the order of the file. */
function windowsDiff(shown: string, windows: readonly DiffWindow[]): FileDiff {
  const hunks: DiffHunk[] = [];
  let firstChangedLine: number | null = null;
  let added = 0, removed = 0, complete = true;
  let shift = 0; // new minus old lines so far
  for (const { oldPart, newPart, linesBefore } of windows) {
    const diff = diffRegion(
      shown,
      normalizeEol(oldPart.replace(/^\uFEFF/, "")),
      normalizeEol(newPart.replace(/^\uFEFF/, "")),
      linesBefore,
      CONTEXT,
    );
    complete &&= diff.complete;
    added += diff.added;
    removed += diff.removed;
    for (const h of diff.hunks) {
      hunks.push({ ...h, newStart: h.newStart + shift });
    }
    if (firstChangedLine === null && diff.firstChangedLine !== null) {
      firstChangedLine = diff.firstChangedLine + shift;
    }
    shift += countNewlines(newPart, 0, newPart.length) -
      countNewlines(oldPart, 0, oldPart.length);
  }
  const unified = !complete || hunks.length === 0
    ? ""
    : unifiedText(shown, hunks);
  return {
    unified,
    hunks: complete ? hunks : [],
    firstChangedLine,
    added,
    removed,
    wordDiffs: [],
    complete,
  };
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (
    let i = text.indexOf("\n", from);
    i !== -1 && i < to;
    i = text.indexOf("\n", i + 1)
  ) n++;
  return n;
}

/** The start of the line `lines` lines before the one holding `at`. */
function linesBack(text: string, at: number, lines: number): number {
  let i = at;
  for (let k = 0; k <= lines; k++) {
    const nl = text.lastIndexOf("\n", i - 1);
    if (nl === -1) return 0;
    i = nl;
  }
  return i + 1;
}

/** The end (after its newline) of the line `lines - 1` lines after the one holding `at`. */
function linesForward(text: string, at: number, lines: number): number {
  let i = at;
  for (let k = 0; k < lines; k++) {
    const nl = text.indexOf("\n", i);
    if (nl === -1) return text.length;
    i = nl + 1;
  }
  return i;
}

/** A patch applied to a UTF-8 file's bytes, without decoding them. */
export interface BytePatched {
  /** The new content, in order (the unchanged stretches share the old bytes). */
  chunks: Uint8Array[];
  /** The changes, in the order of the file: `[start, end)` of the old bytes and what replaces them. */
  changes: { target: number; start: number; end: number; bytes: Uint8Array }[];
}

/**
 * The fast path of {@linkcode applyPatch} for a large file: every anchor
 * is found in the bytes exactly (for a CRLF file, with `\n` as `\r\n`),
 * nothing overlaps. Returns `undefined` whenever the text path must decide
 * (an anchor not found, or found too often, or two overlapping, a quote to
 * fold): it gives the same result or the same error. The target checks
 * that need no file throw here as there.
 */
export function applyPatchToBytes(
  bytes: Uint8Array,
  targets: readonly PatchTarget[],
): BytePatched | undefined {
  targets.forEach((_, i) => checkTarget(targets, i));
  const search = byteSearch(bytes);
  const enc = new TextEncoder();
  const changes: BytePatched["changes"] = [];
  // As the text path: in a file whose line breaks are all CRLF, every
  // anchor and replacement has \n as \r\n. Only a target with a \n cares.
  const crlf =
    targets.some((t) =>
      t.oldString.includes("\n") || t.newString.includes("\n")
    ) && allCrlf(bytes, search);
  const eol = (s: string) =>
    crlf ? normalizeEol(s).replaceAll("\n", "\r\n") : s;
  const needles = targets.map((t) => enc.encode(eol(t.oldString)));
  // One pass for every anchor (at most 2 of each: the second says "not
  // unique"); a replace_all target is searched again for all of them.
  const firsts = search.findEach(needles, 2);
  for (const [i, t] of targets.entries()) {
    const needle = needles[i];
    const replacement = enc.encode(eol(t.newString));
    let starts = firsts[i];
    if (t.replaceAll && starts.length > 1) starts = search.findAll(needle);
    if (starts.length === 0 || (starts.length > 1 && !t.replaceAll)) {
      return undefined;
    }
    for (const start of starts) {
      changes.push({
        target: i,
        start,
        end: start + needle.length,
        bytes: replacement,
      });
    }
  }
  changes.sort((a, b) => a.start - b.start);
  for (let k = 1; k < changes.length; k++) {
    if (changes[k].start < changes[k - 1].end) return undefined;
  }
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const c of changes) {
    chunks.push(bytes.subarray(at, c.start), c.bytes);
    at = c.end;
  }
  chunks.push(bytes.subarray(at));
  return { chunks, changes };
}

/** Whether the bytes hold a CRLF and no LF without a CR before it (the text path's test). */
function allCrlf(bytes: Uint8Array, search: ByteSearch): boolean {
  const first = search.indexOfByte(0x0a);
  if (first < 1 || bytes[first - 1] !== 0x0d) return false;
  return search.findAll(CRLF).length === search.countByte(0x0a);
}

const CRLF = new Uint8Array([0x0d, 0x0a]);

/**
 * The diff of a byte patch, decoding only windows of lines around its
 * changes; the same hunks as {@linkcode patchDiff} gives for the text.
 */
export function bytePatchDiff(
  shown: string,
  bytes: Uint8Array,
  patched: BytePatched,
): FileDiff {
  const lineStart = (at: number) => {
    for (let i = at - 1; i >= 0; i--) if (bytes[i] === 0x0a) return i + 1;
    return 0;
  };
  const back = (at: number, lines: number) => {
    let i = lineStart(at);
    for (let k = 0; k < lines && i > 0; k++) i = lineStart(i - 1);
    return i;
  };
  const forward = (at: number, lines: number) => {
    let i = at;
    for (let k = 0; k < lines; k++) {
      const nl = bytes.indexOf(0x0a, i);
      if (nl === -1) return bytes.length;
      i = nl + 1;
    }
    return i;
  };
  const windows: {
    from: number;
    to: number;
    changes: BytePatched["changes"];
  }[] = [];
  for (const change of patched.changes) {
    const from = back(change.start, CONTEXT);
    const to = forward(change.end, CONTEXT + 1);
    const last = windows.at(-1);
    if (last && from <= last.to) {
      last.to = Math.max(last.to, to);
      last.changes.push(change);
    } else windows.push({ from, to, changes: [change] });
  }
  // Each window as text (old and new), with the lines before it; only the
  // windows are decoded.
  const dec = new TextDecoder("utf-8", { ignoreBOM: true });
  const search = byteSearch(bytes);
  const parts: DiffWindow[] = [];
  let lines = 0, at = 0; // newlines before `at`
  for (const w of windows) {
    lines += search.countByte(0x0a, at, w.from);
    at = w.from;
    let oldPart = "", newPart = "";
    let cursor = w.from;
    for (const c of w.changes) {
      const same = dec.decode(bytes.subarray(cursor, c.start));
      oldPart += same + dec.decode(bytes.subarray(c.start, c.end));
      newPart += same + dec.decode(c.bytes);
      cursor = c.end;
    }
    const rest = dec.decode(bytes.subarray(cursor, w.to));
    parts.push({
      oldPart: oldPart + rest,
      newPart: newPart + rest,
      linesBefore: lines,
    });
  }
  return windowsDiff(shown, parts);
}
