/**
 * Searching a large byte buffer: a needle's occurrences, and a single
 * byte's, sixteen positions at a time with WebAssembly SIMD
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

/** Searches over one buffer. */
export interface ByteSearch {
  /** The first index at or after `from` where `needle` starts, or -1 (always -1 for an empty needle). */
  indexOf(needle: Uint8Array, from?: number): number;
  /** The first index at or after `from` that holds `byte` (0–255), or -1. */
  indexOfByte(byte: number, from?: number): number;
  /** Start offsets of the non-overlapping occurrences of `needle`, at most `max`. */
  findAll(needle: Uint8Array, max?: number): number[];
  /**
   * `findAll` of each needle (at most `max` occurrences of each), in one
   * pass: each window of the buffer is copied once for all of them.
   */
  findEach(needles: readonly Uint8Array[], max?: number): number[][];
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
}

/** The window, with the needle after it; made on first use, shared by every search. */
let simd:
  | { exports: SearchExports; memory: WebAssembly.Memory }
  | undefined;

function simdWindow() {
  if (!simd) {
    const memory = new WebAssembly.Memory({
      initial: Math.ceil((WINDOW + SIMD_NEEDLE_MAX) / PAGE),
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

  findEach(needles: readonly Uint8Array[], max = Infinity): number[][] {
    const hay = this.#haystack;
    const longest = Math.max(0, ...needles.map((n) => n.length));
    if (
      hay.length < SIMD_FROM || longest > SIMD_NEEDLE_MAX ||
      needles.some((n) => n.length === 0)
    ) {
      return needles.map((n) => this.#find(n, 0, max));
    }
    const { exports, memory } = simdWindow();
    const window = new Uint8Array(memory.buffer);
    const found: number[][] = needles.map(() => []);
    const next = needles.map(() => 0); // where each needle's search goes on
    // Windows overlap by longest - 1 bytes, so a match across an edge is
    // found; each needle's next start moves past its matches.
    for (let start = 0; start < hay.length;) {
      const part = hay.subarray(start, start + WINDOW);
      window.set(part);
      needles.forEach((needle, k) => {
        if (found[k].length >= max) return;
        window.set(needle, WINDOW);
        while (found[k].length < max) {
          const at = exports.find(
            part.length,
            WINDOW,
            needle.length,
            Math.max(0, next[k] - start),
          );
          if (at === -1) break;
          found[k].push(start + at);
          next[k] = start + at + needle.length;
        }
      });
      if (start + WINDOW >= hay.length) break;
      start += WINDOW - longest + 1;
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
