/**
 * The matcher: exact string replacement that keeps a file's layout (BOM,
 * CRLF, trailing newline), for every dialect's edit tool.
 *
 * Matching happens on LF-normalized text (spec 000 Edit #4), so a model can
 * write `old_string` with `\n` whatever the file uses; the result is written
 * back with the file's own line ending.
 *
 * @module
 */

import { ToolError } from "../kernel/tool.ts";
import { byteSearch } from "./byte_search.ts";
import { spliceChunks } from "./bytes.ts";
import type { ByteChange } from "./diff.ts";
import { BOM, clip, layoutOf, newlinesBefore, normalizeEol } from "./text.ts";

/** One replacement. */
export interface Replacement {
  oldString: string;
  newString: string;
  /** Replace every occurrence; otherwise exactly one must exist. */
  replaceAll?: boolean;
}

/** The outcome of {@linkcode applyReplacement}. */
export interface ReplacementResult {
  /** The new file text, in the file's own layout. */
  text: string;
  /** How many occurrences were replaced. */
  count: number;
}

/** Counts non-overlapping occurrences of `needle` in `haystack`. */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let count = 0;
  for (
    let i = haystack.indexOf(needle);
    i !== -1;
    i = haystack.indexOf(needle, i + needle.length)
  ) count++;
  return count;
}

/**
 * Where a passage matching `needle` except for white space starts (a line
 * number), to help a model correct an `old_string` that is close.
 */
export function nearMatchLine(
  text: string,
  needle: string,
): number | undefined {
  const squeeze = (s: string) => {
    const chars: string[] = [];
    const at: number[] = [];
    let space = false;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (/\s/.test(c)) {
        if (!space && chars.length > 0) {
          chars.push(" ");
          at.push(i);
        }
        space = true;
      } else {
        chars.push(c);
        at.push(i);
        space = false;
      }
    }
    return { text: chars.join(""), at };
  };
  const hay = squeeze(text);
  const pin = squeeze(needle).text.trim();
  if (pin.length < 3) return undefined;
  const found = hay.text.indexOf(pin);
  if (found === -1) return undefined;
  return newlinesBefore(text, hay.at[found]) + 1;
}

/**
 * Replaces `oldString` with `newString` in a file's decoded text.
 *
 * Guarantees: the result keeps the file's BOM and, when every line break
 * is CRLF, its CRLF line endings; with `replaceAll` false exactly one
 * occurrence must exist. Failures are {@linkcode ToolError}s whose message
 * quotes the attempted string (cut to 200 characters) or gives the count.
 */
export function applyReplacement(
  original: string,
  replacement: Replacement,
  display: string,
): ReplacementResult {
  const { oldString, newString, replaceAll = false } = replacement;
  if (oldString === newString) {
    throw new ToolError(
      "old_string and new_string are the same; there is nothing to change.",
      { type: "no_change" },
    );
  }
  if (oldString === "") {
    throw new ToolError(
      `old_string is empty; give the exact text to replace in ${display} (to rewrite the whole file, write it instead).`,
    );
  }
  const bom = original.startsWith(BOM);
  const body = bom ? original.slice(1) : original;
  const needle = normalizeEol(oldString);
  const replacementText = normalizeEol(newString);

  if (!body.includes("\r\n")) {
    const text = replaceIn(body, needle, replacementText, replaceAll, display);
    return { text: (bom ? BOM : "") + text.text, count: text.count };
  }

  // CRLF (or mixed) file: match on the LF view, then splice into the
  // original so only the matched text changes and each replacement takes
  // the line ending around it.
  const normalized = normalizeEol(body);
  const starts = matchStarts(normalized, needle, replaceAll, display);
  const crlfAt: number[] = []; // LF-view indices of "\n"s that were "\r\n"
  for (
    let i = body.indexOf("\r\n"), seen = 0;
    i !== -1;
    i = body.indexOf("\r\n", i + 2)
  ) {
    crlfAt.push(i - seen++);
  }
  const before = (x: number) => {
    let lo = 0;
    let hi = crlfAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (crlfAt[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const dominant = layoutOf(body).eol === "\r\n" ||
    crlfAt.length * 2 >= countOccurrences(normalized, "\n");
  let out = "";
  let last = 0;
  for (const s of starts) {
    const from = s + before(s);
    const to = s + needle.length + before(s + needle.length);
    const region = body.slice(from, to);
    const eol = region.includes("\r\n") || (!region.includes("\n") && dominant)
      ? "\r\n"
      : "\n";
    out += body.slice(last, from) + replacementText.replaceAll("\n", eol);
    last = to;
  }
  out += body.slice(last);
  return { text: (bom ? BOM : "") + out, count: starts.length };
}

/** Start indices of the occurrences to replace; throws when there are none, or too many. */
function matchStarts(
  text: string,
  needle: string,
  all: boolean,
  display: string,
): number[] {
  const count = checkCount(text, needle, all, display);
  const starts: number[] = [];
  for (
    let i = text.indexOf(needle);
    i !== -1 && starts.length < (all ? count : 1);
    i = text.indexOf(needle, i + needle.length)
  ) {
    starts.push(i);
  }
  return starts;
}

function replaceIn(
  text: string,
  needle: string,
  replacement: string,
  all: boolean,
  display: string,
): { text: string; count: number } {
  const count = checkCount(text, needle, all, display);
  if (all) return { text: text.split(needle).join(replacement), count };
  const at = text.indexOf(needle);
  return {
    text: text.slice(0, at) + replacement + text.slice(at + needle.length),
    count: 1,
  };
}

/** The number of occurrences, when it is acceptable; a ToolError when none, or several without `all`. */
function checkCount(
  text: string,
  needle: string,
  all: boolean,
  display: string,
): number {
  const count = countOccurrences(text, needle);
  if (count === 0) {
    const near = nearMatchLine(text, needle);
    throw new ToolError(
      `String to replace not found in ${display}.\nString: ${clip(needle)}` +
        (near !== undefined
          ? `\nA passage that differs only in white space starts at line ${near}; copy old_string exactly from the file (Read shows it).`
          : "\nRead the file again and copy old_string exactly, including white space and indentation."),
      { type: "not_found", attempted: clip(needle) },
    );
  }
  if (count > 1 && !all) {
    throw new ToolError(
      `Found ${count} matches of old_string in ${display}, but replace_all is false. Add surrounding lines to old_string so it matches exactly once, or set replace_all to true to replace every match.\nString: ${
        clip(needle)
      }`,
      { type: "not_unique", matches: count },
    );
  }
  return count;
}

const LINE_BREAK = /[\r\n]/;
const CR = 0x0d;

/** A replacement made on encoded bytes: the new content as chunks, in order. */
export interface ByteReplacement {
  chunks: Uint8Array[];
  count: number;
  /** The span that changed, for a windowed diff. */
  change: ByteChange;
}

/**
 * The fast path of {@linkcode applyReplacement} for UTF-8 files: the
 * replacement is made on the bytes, without decoding the file. It applies
 * to strings without line breaks in any file, and to multi-line ones in
 * files without a CR.
 * Returns `null` when the fast path does not apply, or when the match count
 * is wrong; the text path then does the work and writes the error.
 */
export function applyReplacementToBytes(
  bytes: Uint8Array,
  replacement: Replacement,
): ByteReplacement | null {
  const { oldString, newString, replaceAll = false } = replacement;
  if (oldString === "" || oldString === newString) return null;
  // Strings without line breaks match and splice the same in any file; one
  // with a break must know the file's line endings, so a file with a CR in
  // it (CRLF, mixed) takes the text path.
  const search = byteSearch(bytes);
  if (
    (LINE_BREAK.test(oldString) || LINE_BREAK.test(newString)) &&
    search.indexOfByte(CR) !== -1
  ) {
    return null;
  }
  const encoder = new TextEncoder();
  const needle = encoder.encode(normalizeEol(oldString));
  const starts = search.findAll(needle, replaceAll ? Infinity : 2);
  if (starts.length === 0 || (starts.length > 1 && !replaceAll)) return null;
  const inserted = encoder.encode(normalizeEol(newString));
  const chunks = spliceChunks(bytes, starts, needle.length, inserted);
  const lastEnd = starts[starts.length - 1] + needle.length;
  return {
    chunks,
    count: starts.length,
    change: {
      start: starts[0],
      oldEnd: lastEnd,
      newEnd: lastEnd + starts.length * (inserted.length - needle.length),
    },
  };
}
