/**
 * Searching and splicing encoded text without decoding it. UTF-8 is
 * self-synchronizing, so the byte occurrences of an encoded string are
 * exactly its occurrences in the decoded text; a large file can be edited
 * without turning all of it into a string and back.
 *
 * @module
 */

/**
 * Whether `a` and `b` hold the same bytes. Compares four bytes at a time
 * where both views allow it (a 10 MB blob in a few milliseconds), without
 * node:buffer's `compare` (kernel/posix_path.ts says why).
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  if (a.byteOffset % 4 === b.byteOffset % 4) {
    // Bytes up to a 4-byte boundary of both, then whole words.
    const lead = Math.min(a.length, (4 - a.byteOffset % 4) % 4);
    for (; i < lead; i++) if (a[i] !== b[i]) return false;
    const words = Math.floor((a.length - i) / 4);
    const wa = new Uint32Array(a.buffer, a.byteOffset + i, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset + i, words);
    for (let w = 0; w < words; w++) if (wa[w] !== wb[w]) return false;
    i += words * 4;
  }
  for (; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bytes that are common in text and code: poor anchors for a search. */
const COMMON = new Set(
  [..." \n\teaoinstrlcdhu.,;:=()_/-\"'{}"].map((c) => c.charCodeAt(0)),
);

/** The index in `needle` of the byte to scan for: the first uncommon one, else the first. */
function anchorOf(needle: Uint8Array): number {
  for (let i = 0; i < needle.length; i++) if (!COMMON.has(needle[i])) return i;
  return 0;
}

/**
 * Finds the byte sequence `needle` in `haystack` from `from`, or -1.
 * Needles of 4 bytes or more use Boyer–Moore–Horspool (it skips ahead by up
 * to the needle's length); shorter ones scan natively for their least
 * common byte and check each hit.
 */
export function indexOfBytes(
  haystack: Uint8Array,
  needle: Uint8Array,
  from = 0,
): number {
  const m = needle.length;
  if (m === 0) return -1;
  if (m >= 4) return horspool(haystack, needle, from);
  const anchor = anchorOf(needle);
  const byte = needle[anchor];
  const last = haystack.length - m;
  for (
    let hit = haystack.indexOf(byte, from + anchor);
    hit !== -1;
    hit = haystack.indexOf(byte, hit + 1)
  ) {
    const start = hit - anchor;
    if (start > last) return -1;
    let j = 0;
    while (j < m && haystack[start + j] === needle[j]) j++;
    if (j === m) return start;
  }
  return -1;
}

function horspool(
  haystack: Uint8Array,
  needle: Uint8Array,
  from: number,
): number {
  const m = needle.length;
  const end = haystack.length - m;
  const skip = new Int32Array(256).fill(m);
  for (let i = 0; i < m - 1; i++) skip[needle[i]] = m - 1 - i;
  const last = needle[m - 1];
  for (let i = from; i <= end;) {
    const c = haystack[i + m - 1];
    if (c === last) {
      let j = m - 2;
      while (j >= 0 && haystack[i + j] === needle[j]) j--;
      if (j < 0) return i;
    }
    i += skip[c];
  }
  return -1;
}

/**
 * Replaces `length` bytes at each of `starts` (ascending, non-overlapping)
 * with `replacement`, as chunks: views of `bytes` around the replacements,
 * nothing copied.
 */
export function spliceChunks(
  bytes: Uint8Array,
  starts: readonly number[],
  length: number,
  replacement: Uint8Array,
): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let read = 0;
  for (const start of starts) {
    chunks.push(bytes.subarray(read, start), replacement);
    read = start + length;
  }
  chunks.push(bytes.subarray(read));
  return chunks;
}

/** Bytes `from` .. `to` of chunks taken as one sequence (copied). */
export function sliceChunks(
  chunks: readonly Uint8Array[],
  from: number,
  to: number,
): Uint8Array {
  const out = new Uint8Array(Math.max(0, to - from));
  let at = 0;
  for (const chunk of chunks) {
    const end = at + chunk.length;
    if (end > from && at < to) {
      const a = Math.max(from, at) - at;
      const b = Math.min(to, end) - at;
      out.set(chunk.subarray(a, b), Math.max(from, at) - from);
    }
    at = end;
  }
  return out;
}

/** The total length of chunks. */
export function chunksLength(chunks: readonly Uint8Array[]): number {
  return chunks.reduce((n, c) => n + c.length, 0);
}

/**
 * How many `\n` bytes come before `end`: four bytes at a time (a SWAR
 * zero-byte count), which is about twice as fast as scanning for each one.
 */
export function countNewlines(bytes: Uint8Array, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && ((bytes.byteOffset + i) & 3) !== 0) {
    if (bytes[i++] === 10) n++;
  }
  const words = new Uint32Array(
    bytes.buffer,
    bytes.byteOffset + i,
    (end - i) >>> 2,
  );
  for (let k = 0; k < words.length; k++) {
    const x = words[k] ^ 0x0a0a0a0a; // a "\n" byte becomes 0
    // High bit set exactly in the bytes of x that are 0.
    const zero = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
    if (zero !== 0) n += Math.imul(zero >>> 7, 0x01010101) >>> 24;
  }
  for (i += words.length * 4; i < end; i++) if (bytes[i] === 10) n++;
  return n;
}

/** The offset `count` lines before the start of the line holding `at`. */
export function linesBack(
  bytes: Uint8Array,
  at: number,
  count: number,
): number {
  let start = at <= 0 ? 0 : bytes.lastIndexOf(10, at - 1) + 1;
  for (let i = 0; i < count && start > 0; i++) {
    start = start < 2 ? 0 : bytes.lastIndexOf(10, start - 2) + 1;
  }
  return start;
}

/** The offset just past `count` more newlines from `at` (or the end). */
export function linesForward(
  bytes: Uint8Array,
  at: number,
  count: number,
): number {
  let end = at;
  for (let i = 0; i < count && end < bytes.length; i++) {
    const nl = bytes.indexOf(10, end);
    end = nl === -1 ? bytes.length : nl + 1;
  }
  return end;
}
