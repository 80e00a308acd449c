/**
 * Searching a large byte buffer: a needle's occurrences, many needles'
 * occurrences in one pass (a nibble-table filter over three rare bytes
 * of each needle, its candidates compared whole), a single byte's, and how often a
 * byte occurs, sixteen positions at a time with WebAssembly SIMD
 * (byte_search.wat). Small buffers and long needles are searched in
 * JavaScript.
 *
 * @module
 */

import { BYTE_SEARCH_WASM } from "./_byte_search_wasm.ts";
import { indexOfBytes } from "./bytes.ts";

/** Buffers from this size are searched with SIMD. */
const SIMD_FROM = 64 * 1024;
/**
 * The buffer is searched a window at a time, copied into one small memory
 * that stays mapped: a fresh memory the size of the buffer would cost
 * more in page faults than the search saves.
 */
const WINDOW = 1 << 20;
/** Needles longer than this skip far enough in JavaScript (Horspool). */
const SIMD_NEEDLE_MAX = 4096;
const PAGE = 64 * 1024;
/** Where findEach's nibble tables go: after the window and the needle. */
const TABLES = WINDOW + SIMD_NEEDLE_MAX;
/** Where findEach's candidates go (i32s), after the tables. */
const CANDIDATES = TABLES + 128;
/** Candidates taken from the filter at a time. */
const CANDIDATES_MAX = 4096;
/**
 * Needles compared at candidates in a window, at most. A window that
 * needs more is dense with needle starts (indentation, say, or a common
 * word): the rest of the buffer is searched a needle at a time, which
 * costs about what it did before the filter.
 */
const CHECKS_MAX = 1 << 14;
/** How many bytes in a row of each needle the candidate filter looks at. */
const FILTER_BYTES = 3;
/** Needles share a bucket of the filter (a bit of a table byte). */
const BUCKETS = 8;

/** Searches over one buffer. */
export interface ByteSearch {
  /** The first index at or after `from` where `needle` starts, or -1 (always -1 for an empty needle). */
  indexOf(needle: Uint8Array, from?: number): number;
  /** The first index at or after `from` that holds `byte` (0–255), or -1. */
  indexOfByte(byte: number, from?: number): number;
  /** Start offsets of the non-overlapping occurrences of `needle`, at most `max`. */
  findAll(needle: Uint8Array, max?: number): number[];
  /**
   * `findAll` of each needle (at most `max` occurrences of each): the same
   * results, in one pass over the buffer for all of them.
   */
  findEach(needles: readonly Uint8Array[], max?: number): number[][];
  /** How many times `[from, to)` holds `byte` (0–255). */
  countByte(byte: number, from?: number, to?: number): number;
}

/** Searches over `haystack`, which must not change while they are used. Results are those of a plain scan. */
export function byteSearch(haystack: Uint8Array): ByteSearch {
  return new Search(haystack);
}

interface SearchExports {
  find(
    len: number,
    needleAt: number,
    needleLength: number,
    from: number,
  ): number;
  find_byte(len: number, byte: number, from: number): number;
  find_candidates(
    len: number,
    from: number,
    to: number,
    tables: number,
    out: number,
    max: number,
  ): number;
  count_byte(from: number, to: number, byte: number): number;
}

/** The window, with the needle after it; made on first use, shared by every search. */
let simd:
  | { exports: SearchExports; memory: WebAssembly.Memory }
  | undefined;

function simdWindow() {
  if (!simd) {
    const memory = new WebAssembly.Memory({
      initial: Math.ceil((CANDIDATES + 4 * CANDIDATES_MAX) / PAGE),
    });
    const instance = new WebAssembly.Instance(
      new WebAssembly.Module(BYTE_SEARCH_WASM),
      { env: { memory } },
    );
    simd = { exports: instance.exports as unknown as SearchExports, memory };
  }
  return simd;
}

class Search implements ByteSearch {
  #haystack: Uint8Array;

  constructor(haystack: Uint8Array) {
    this.#haystack = haystack;
  }

  indexOf(needle: Uint8Array, from = 0): number {
    return this.#find(needle, Math.max(0, from), 1)[0] ?? -1;
  }

  indexOfByte(byte: number, from = 0): number {
    const hay = this.#haystack;
    from = Math.max(0, from);
    if (!Number.isInteger(byte) || byte < 0 || byte > 0xff) return -1;
    if (hay.length - from < SIMD_FROM) return hay.indexOf(byte, from);
    const { exports, memory } = simdWindow();
    const window = new Uint8Array(memory.buffer);
    for (let start = from; start < hay.length; start += WINDOW) {
      const part = hay.subarray(start, start + WINDOW);
      window.set(part);
      const at = exports.find_byte(part.length, byte, 0);
      if (at !== -1) return start + at;
    }
    return -1;
  }

  findAll(needle: Uint8Array, max = Infinity): number[] {
    return this.#find(needle, 0, max);
  }

  countByte(byte: number, from = 0, to = Infinity): number {
    const hay = this.#haystack;
    from = Math.max(0, from);
    to = Math.min(hay.length, to);
    if (!Number.isInteger(byte) || byte < 0 || byte > 0xff) return 0;
    let n = 0;
    if (to - from < SIMD_FROM) {
      for (let i = hay.indexOf(byte, from); i !== -1 && i < to;) {
        n++;
        i = hay.indexOf(byte, i + 1);
      }
      return n;
    }
    const { exports, memory } = simdWindow();
    const window = new Uint8Array(memory.buffer);
    for (let start = from; start < to; start += WINDOW) {
      const part = hay.subarray(start, Math.min(to, start + WINDOW));
      window.set(part);
      n += exports.count_byte(0, part.length, byte);
    }
    return n;
  }

  findEach(needles: readonly Uint8Array[], max = Infinity): number[][] {
    const hay = this.#haystack;
    // Needles shorter than the filter's bytes are searched alone.
    const filtered = needles.filter((n) => n.length >= FILTER_BYTES).length;
    if (filtered < 2 || max < 1 || hay.length < SIMD_FROM) {
      return needles.map((n) => this.#find(n, 0, max));
    }
    const found: number[][] = needles.map((n) =>
      n.length < FILTER_BYTES ? this.#find(n, 0, max) : []
    );
    const { exports, memory } = simdWindow();
    const window = new Uint8Array(memory.buffer);
    const filter = candidateFilter(needles);
    window.set(filter.tables, TABLES);
    const next = needles.map(() => 0); // where each needle's search goes on
    let open = filtered; // filtered needles with fewer than `max` found
    /** Takes needle k at `at` if it starts there (a candidate). */
    const check = (k: number, at: number) => {
      const needle = needles[k];
      if (at < next[k] || at < 0 || found[k].length >= max) return;
      if (at + needle.length > hay.length) return;
      for (let j = needle.length - 1; j >= 0; j--) {
        if (hay[at + j] !== needle[j]) return;
      }
      found[k].push(at);
      next[k] = at + needle.length;
      if (found[k].length === max) open--;
    };
    const candidates = new Int32Array(
      memory.buffer,
      CANDIDATES,
      CANDIDATES_MAX,
    );
    // A candidate is where a needle's chosen bytes may be (its start plus
    // their offset); each position is a candidate in one window only.
    const last = hay.length - FILTER_BYTES + 1; // positions end here
    for (let start = 0; start < last && open > 0;) {
      const part = hay.subarray(start, start + WINDOW);
      const to = Math.min(last - start, part.length - FILTER_BYTES + 1);
      window.set(part);
      let checks = 0; // needles compared in this window
      for (let from = 0; from < to && open > 0;) {
        const count = exports.find_candidates(
          part.length,
          from,
          to,
          TABLES,
          CANDIDATES,
          CANDIDATES_MAX,
        );
        for (let c = 0; c < count; c++) {
          const at = start + candidates[c];
          const ks = filter.at.get(startKey(hay, at));
          if (!ks) continue;
          for (const k of ks) check(k, at - filter.offset[k]);
          checks += ks.length;
          if (checks > CHECKS_MAX) {
            // Dense with candidates: the rest a needle at a time, from
            // past every start this position has settled.
            return needles.map((needle, k) => {
              if (needle.length < FILTER_BYTES || found[k].length >= max) {
                return found[k];
              }
              const from = Math.max(next[k], at + 1 - filter.offset[k]);
              return found[k].concat(
                this.#find(needle, from, max - found[k].length),
              );
            });
          }
        }
        from = count < CANDIDATES_MAX ? to : candidates[count - 1] + 1;
      }
      start += to;
    }
    return found;
  }

  /** Non-overlapping occurrences from `from` on, at most `max`; each window is copied once. */
  #find(needle: Uint8Array, from: number, max: number): number[] {
    const hay = this.#haystack;
    const m = needle.length;
    const starts: number[] = [];
    if (m === 0 || max < 1) return starts;
    if (hay.length - from < SIMD_FROM || m > SIMD_NEEDLE_MAX) {
      for (
        let i = indexOfBytes(hay, needle, from);
        i !== -1 && starts.length < max;
        i = indexOfBytes(hay, needle, i + m)
      ) starts.push(i);
      return starts;
    }
    const { exports, memory } = simdWindow();
    const window = new Uint8Array(memory.buffer);
    window.set(needle, WINDOW);
    // Windows overlap by m - 1 bytes, so a match across their edge is
    // found; `from` moves past each match, so none is found twice.
    for (let start = from; start + m <= hay.length;) {
      const part = hay.subarray(start, start + WINDOW);
      window.set(part);
      while (starts.length < max) {
        const at = exports.find(
          part.length,
          WINDOW,
          m,
          Math.max(0, from - start),
        );
        if (at === -1) break;
        starts.push(start + at);
        from = start + at + m;
      }
      if (starts.length >= max || start + WINDOW >= hay.length) break;
      start = Math.max(start + WINDOW - m + 1, from);
    }
    return starts;
  }
}

/** The FILTER_BYTES bytes at `at`, as one number. */
function startKey(bytes: Uint8Array, at: number): number {
  return (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
}

/**
 * How common a byte is in text, roughly (higher: more common): a
 * needle's filter bytes are its rarest three in a row, so that, say,
 * indentation does not make every line a candidate.
 */
function commonness(byte: number): number {
  if (byte === 0x20) return 100;
  if (byte === 0x09 || byte === 0x0a || byte === 0x0d) return 90;
  if (byte >= 0x61 && byte <= 0x7a) {
    return "etaoinsrhldcu".includes(String.fromCharCode(byte)) ? 60 : 45;
  }
  if (byte >= 0x30 && byte <= 0x39) return 35;
  if (byte >= 0x41 && byte <= 0x5a) return 30;
  if (byte >= 0x80) return 25;
  return 40; // punctuation, controls
}

/** The offset of the needle's rarest FILTER_BYTES bytes in a row (the first of equals), within its first 256. */
function rarestOffset(needle: Uint8Array): number {
  let best = 0, bestScore = Infinity;
  const end = Math.min(needle.length - FILTER_BYTES, 256);
  for (let o = 0; o <= end; o++) {
    let score = 0;
    for (let j = 0; j < FILTER_BYTES; j++) score += commonness(needle[o + j]);
    if (score < bestScore) [best, bestScore] = [o, score];
  }
  return best;
}

/**
 * findEach's filter: for each needle, the offset of the bytes it is
 * filtered by; the nibble tables byte_search.wat's `find_candidates`
 * reads; and which needles may have their filter bytes at a candidate
 * (by those bytes). Needles with the same filter bytes share a bucket;
 * the filter bytes in sorted order are spread over the buckets in runs,
 * so similar ones share (fewer false candidates).
 */
function candidateFilter(needles: readonly Uint8Array[]) {
  const at = new Map<number, number[]>();
  const offset = needles.map((needle, k) => {
    if (needle.length < FILTER_BYTES) return 0; // searched alone
    const o = rarestOffset(needle);
    const key = startKey(needle, o);
    const ks = at.get(key);
    if (ks) ks.push(k);
    else at.set(key, [k]);
    return o;
  });
  const keys = [...at.keys()].sort((a, b) => a - b);
  const tables = new Uint8Array(32 * FILTER_BYTES);
  keys.forEach((key, s) => {
    const bit = 1 << Math.floor(s * BUCKETS / keys.length);
    for (let j = 0; j < FILTER_BYTES; j++) {
      const byte = (key >> (8 * (FILTER_BYTES - 1 - j))) & 0xff;
      tables[32 * j + (byte & 0x0f)] |= bit;
      tables[32 * j + 16 + (byte >> 4)] |= bit;
    }
  });
  return { tables, at, offset };
}
