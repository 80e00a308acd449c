import assert from "node:assert/strict";
import { byteSearch } from "../../../tools/_core/byte_search.ts";
import { BYTE_SEARCH_WASM } from "../../../tools/_core/_byte_search_wasm.ts";
import { compileByteSearch } from "../../../scripts/build_wasm.ts";

/** The reference: a plain scan. */
function naiveIndexOf(hay: Uint8Array, needle: Uint8Array, from: number) {
  if (needle.length === 0) return -1;
  outer: for (let i = Math.max(0, from); i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (hay[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}

function random(seed: number) {
  return (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
}

// Sizes on both sides of the SIMD threshold (64 KiB), and off the 16- and 64-byte blocks.
const SIZES = [0, 1, 15, 100, 65_535, 65_536, 65_537, 65_536 + 63, 70_001];

Deno.test("byte search: agrees with a plain scan around block edges, the end and `from` (random cases)", () => {
  const rand = random(11);
  for (const size of SIZES) {
    // Three symbols, so first-and-last-byte candidates that fail are common.
    const hay = Uint8Array.from({ length: size }, () => 97 + rand(3));
    const search = byteSearch(hay);
    for (let round = 0; round < 300; round++) {
      const m = 1 + rand(40);
      let needle: Uint8Array;
      const kind = rand(3);
      if (kind === 0 && size > m) {
        // A copy of a passage, often one near the end.
        const at = rand(2)
          ? size - m - rand(Math.min(40, size - m))
          : rand(size - m);
        needle = hay.slice(at, at + m);
      } else if (kind === 1) {
        needle = Uint8Array.from({ length: m }, () => 97 + rand(3));
      } else {
        needle = Uint8Array.from({ length: m }, () => 97 + rand(4));
      }
      const from = rand(3) === 0 ? rand(size + 2) : 0;
      assert.equal(
        search.indexOf(needle, from),
        naiveIndexOf(hay, needle, from),
        JSON.stringify({ size, needle: [...needle], from }),
      );
    }
  }
});

Deno.test("byte search: a single byte anywhere, and none", () => {
  for (const size of SIZES) {
    const hay = new Uint8Array(size).fill(32);
    const search = byteSearch(hay);
    assert.equal(search.indexOfByte(13), -1, `size ${size}`);
    for (const at of [0, 15, 16, 63, 64, 65, size - 65, size - 2, size - 1]) {
      if (at < 0 || at >= size) continue;
      hay[at] = 13;
      const fresh = byteSearch(hay);
      assert.equal(fresh.indexOfByte(13), at, `size ${size}, at ${at}`);
      assert.equal(
        fresh.indexOfByte(13, at + 1),
        -1,
        `size ${size}, after ${at}`,
      );
      assert.equal(fresh.indexOfByte(13, -5), at);
      hay[at] = 32;
    }
    assert.equal(search.indexOfByte(256), -1);
  }
});

Deno.test("byte search: findAll takes non-overlapping matches, at most max", () => {
  for (const size of [8, 70_000]) {
    const hay = new Uint8Array(size).fill(120);
    hay.set(new TextEncoder().encode("ab ab ab"));
    if (size > 8) hay.set(new TextEncoder().encode("aaaa"), size - 4);
    const search = byteSearch(hay);
    const ab = new TextEncoder().encode("ab");
    assert.deepEqual(search.findAll(ab), [0, 3, 6]);
    assert.deepEqual(search.findAll(ab, 2), [0, 3]);
    if (size > 8) {
      assert.deepEqual(search.findAll(new TextEncoder().encode("aa")), [
        size - 4,
        size - 2,
      ]);
    }
    assert.equal(search.indexOf(new Uint8Array()), -1);
    // Long needles take the scalar path.
    assert.equal(
      search.indexOf(new Uint8Array(10_000).fill(120)),
      size > 10_000 ? 8 : -1,
    );
  }
});

Deno.test("byte search: matches across the edges of the 1 MiB windows a large buffer is searched in", () => {
  const WINDOW = 1 << 20;
  const hay = new Uint8Array(2 * WINDOW + 12_345).fill(120);
  const search = byteSearch(hay);
  for (const m of [1, 2, 7, 16, 17, 40]) {
    const needle = Uint8Array.from({ length: m }, (_, k) => 65 + (k % 26));
    for (const edge of [WINDOW, 2 * WINDOW - m + 1]) {
      for (let at = edge - m - 2; at <= edge + 2; at++) {
        hay.set(needle, at);
        assert.equal(search.indexOf(needle), at, `m ${m}, at ${at}`);
        assert.equal(search.indexOf(needle, at - 1000), at);
        assert.equal(search.indexOf(needle, at + 1), -1);
        assert.equal(search.indexOfByte(65), at);
        hay.fill(120, at, at + m);
      }
    }
  }
  hay[hay.length - 1] = 13;
  assert.equal(search.indexOfByte(13), hay.length - 1);
});

Deno.test("byte search: findAll over many windows takes every match once", () => {
  // A match every 97 bytes for 3 MiB: many per window, some across window edges.
  const size = 3 * (1 << 20) + 5;
  const hay = new Uint8Array(size).fill(120);
  const needle = new TextEncoder().encode("needle");
  const expected: number[] = [];
  for (let at = 3; at + needle.length <= size; at += 97) {
    hay.set(needle, at);
    expected.push(at);
  }
  const search = byteSearch(hay);
  assert.deepEqual(search.findAll(needle), expected);
  assert.deepEqual(search.findAll(needle, 5), expected.slice(0, 5));
  // Overlapping candidates: "aa" in "aaaa…" is taken two bytes at a time.
  const as = new Uint8Array(70_001).fill(97);
  assert.equal(byteSearch(as).findAll(new Uint8Array([97, 97])).length, 35_000);
});

Deno.test("byte search: the committed module is what byte_search.wat compiles to", async () => {
  assert.deepEqual(
    BYTE_SEARCH_WASM,
    await compileByteSearch(),
    "run `deno task build-wasm` after changing byte_search.wat",
  );
});

Deno.test("byte search: findEach gives each needle's findAll in one pass, across window edges", () => {
  const size = 3 * (1 << 20) + 12345;
  const hay = new Uint8Array(size);
  let seed = 7;
  for (let i = 0; i < size; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    hay[i] = 97 + (seed % 4);
  }
  const enc = new TextEncoder();
  const needles = ["abcd", "dcbaabcd", "aaaaaaa", "bcbcbcbcbc", "cab"].map((
    s,
  ) => enc.encode(s));
  // Plant a needle across the first window edge.
  hay.set(needles[3], (1 << 20) - 4);
  const search = byteSearch(hay);
  assert.deepEqual(
    search.findEach(needles),
    needles.map((n) => search.findAll(n)),
  );
  assert.deepEqual(
    search.findEach(needles, 2),
    needles.map((n) => search.findAll(n, 2)),
  );
});
