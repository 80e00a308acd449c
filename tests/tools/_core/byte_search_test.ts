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

/** The reference findAll: non-overlapping starts by a plain scan, at most `max`. */
function naiveFindAll(hay: Uint8Array, needle: Uint8Array, max = Infinity) {
  const starts: number[] = [];
  for (
    let i = naiveIndexOf(hay, needle, 0);
    i !== -1 && starts.length < max;
    i = naiveIndexOf(hay, needle, i + needle.length)
  ) starts.push(i);
  return starts;
}

Deno.test("byte search: findEach agrees with a plain scan of each needle: overlapping, repeated, short, at the start and end, non-ASCII (random cases)", () => {
  const rand = random(23);
  const enc = new TextEncoder();
  // Text from a few words, ASCII and not, so needles recur and overlap.
  const words = [
    "ab",
    "ba",
    "é",
    "ça",
    "→",
    "日本",
    " ",
    "\n",
    "aab",
    "\u2019",
  ];
  for (const size of [70_001, (1 << 20) + 70_003]) {
    const parts: string[] = [];
    let length = 0;
    while (length < size) {
      const word = words[rand(words.length)];
      parts.push(word);
      length += enc.encode(word).length;
    }
    const hay = enc.encode(parts.join("")).subarray(0, size);
    const search = byteSearch(hay);
    for (let round = 0; round < 12; round++) {
      const needles: Uint8Array[] = [];
      const count = 2 + rand(30);
      while (needles.length < count) {
        const m = 1 + rand(24);
        const kind = rand(6);
        if (kind === 0) needles.push(hay.slice(0, m)); // at the start
        else if (kind === 1) needles.push(hay.slice(size - m)); // at the end
        else if (kind === 2 && needles.length > 0) {
          // The same as an earlier one, or overlapping it (shifted, cut).
          const earlier = needles[rand(needles.length)];
          const from = rand(Math.max(1, earlier.length - 1));
          needles.push(
            rand(2) ? earlier : earlier.slice(from, from + 1 + rand(m)),
          );
        } else if (kind === 3) {
          needles.push(
            enc.encode(
              Array.from({ length: 1 + rand(4) }, () => words[rand(10)]).join(
                "",
              ),
            ),
          );
        } else {
          const at = rand(size - m);
          needles.push(hay.slice(at, at + m));
        }
      }
      for (const max of [1, 2, Infinity]) {
        assert.deepEqual(
          search.findEach(needles, max),
          needles.map((n) => naiveFindAll(hay, n, max)),
          JSON.stringify({
            size,
            round,
            max,
            needles: needles.map((n) => [...n]),
          }),
        );
      }
    }
  }
});

Deno.test("byte search: findEach over text dense with needle starts (each window's rest taken a needle at a time) agrees with a plain scan", () => {
  const enc = new TextEncoder();
  // Every position starts "aaa": the filter passes nearly all of them.
  const hay = new Uint8Array((1 << 20) + 100_000).fill(97);
  for (let at = 5; at < hay.length; at += 1001) hay[at] = 98;
  for (const at of [(1 << 20) - 3, (1 << 20) + 1, hay.length - 2]) hay[at] = 99;
  const search = byteSearch(hay);
  const needles = [
    "aaa",
    "aab",
    "baa",
    "aaaaac",
    "ac",
    "ca",
    "aaaaaaaaaaaaaaab",
  ]
    .map((s) => enc.encode(s));
  for (const max of [2, Infinity]) {
    assert.deepEqual(
      search.findEach(needles, max),
      needles.map((n) => naiveFindAll(hay, n, max)),
    );
  }
});

Deno.test("byte search: findEach finds needles across every window edge, and the same needle twice", () => {
  const WINDOW = 1 << 20;
  const hay = new Uint8Array(3 * WINDOW + 77).fill(120);
  const enc = new TextEncoder();
  const needles = ["MARKER 1\n", "MARKER 2\n", "MARKER 1\n", "ARKER", "日本語"]
    .map((s) => enc.encode(s));
  const search = byteSearch(hay);
  for (const edge of [WINDOW, 2 * WINDOW - 8, 3 * WINDOW - 16]) {
    for (let shift = -12; shift <= 3; shift++) {
      const at = edge + shift;
      hay.set(needles[0], at);
      hay.set(needles[4], at + 40);
      hay.set(needles[1], hay.length - needles[1].length);
      hay.set(needles[1], 0);
      const got = search.findEach(needles);
      assert.deepEqual(got, [
        [at],
        [0, hay.length - needles[1].length],
        [at],
        [1, at + 1, hay.length - needles[1].length + 1],
        [at + 40],
      ], `edge ${edge}, shift ${shift}`);
      hay.fill(120, at, at + 50);
    }
  }
});

Deno.test("byte search: countByte counts a byte in a range, as a plain scan does", () => {
  const rand = random(5);
  for (const size of [0, 17, 70_000, (1 << 20) + 4099 + 16 * 255 * 3]) {
    const hay = Uint8Array.from(
      { length: size },
      () => rand(4) === 0 ? 10 : 97,
    );
    const search = byteSearch(hay);
    for (let round = 0; round < 8; round++) {
      const from = rand(size + 1);
      const to = from + rand(size - from + 1);
      let expected = 0;
      for (let i = from; i < to; i++) if (hay[i] === 10) expected++;
      assert.equal(search.countByte(10, from, to), expected, `${from}–${to}`);
    }
    assert.equal(search.countByte(10), hay.filter((b) => b === 10).length);
    assert.equal(search.countByte(300), 0);
  }
});

Deno.test("byte search: findEach filters each needle by its rarest bytes, wherever they are in it: indented needles, one longer than the SIMD limit, split by window edges", () => {
  const WINDOW = 1 << 20;
  const enc = new TextEncoder();
  const line = enc.encode("        if (value > limit) { return x; }\n");
  const hay = new Uint8Array(3 * WINDOW + 999);
  for (let at = 0; at < hay.length; at += line.length) {
    hay.set(line.subarray(0, hay.length - at), at);
  }
  const long = new Uint8Array(5000).fill(32);
  long.set(enc.encode("Q#7"), 4990);
  const needles = [
    enc.encode("        return Z9;\n"),
    enc.encode("        if (value > limit) { return X1; }"),
    long,
    enc.encode("    if (value > limit) { return x; }\n    "),
  ];
  // Each planted with its start in one window and its rare bytes
  // ("Z9", "X1", "Q#7") in the next (windows start every WINDOW - 2
  // bytes), and once more well inside one.
  const planted = needles.slice(0, 3).map((needle, k) => {
    const rare = k === 2 ? 4990 : needle.length - (k === 0 ? 3 : 4);
    const edge = (k + 1) * (WINDOW - 2) + (k === 2 ? 100 : 1);
    const at = [edge - rare, 1000 + 7000 * k];
    for (const a of at) hay.set(needle, a);
    return at.sort((a, b) => a - b);
  });
  const search = byteSearch(hay);
  const expected = needles.map((n) => naiveFindAll(hay, n));
  assert.deepEqual(expected.slice(0, 3), planted);
  assert.ok(expected[3].length > 1000); // dense: every line
  assert.deepEqual(search.findEach(needles), expected);
  assert.deepEqual(
    search.findEach(needles, 2),
    needles.map((n) => naiveFindAll(hay, n, 2)),
  );
});

Deno.test("byte search: when findEach turns to a needle at a time, a needle whose start it passed but whose rare bytes it had not reached is still found", () => {
  // Every position is a candidate for "aaa": the 16385th compare (at
  // position 16384) turns the search dense, inside the needle planted at
  // 16380, whose rare bytes "XYZ" are at 16390.
  const enc = new TextEncoder();
  const hay = new Uint8Array(100_000).fill(97);
  const late = enc.encode("aaaaaaaaaaXYZ");
  hay.set(late, 16_380);
  const needles = [enc.encode("aaa"), late];
  assert.deepEqual(
    byteSearch(hay).findEach(needles),
    needles.map((n) => naiveFindAll(hay, n)),
  );
  assert.deepEqual(byteSearch(hay).findEach(needles)[1], [16_380]);
});
