import assert from "node:assert/strict";
import {
  countNewlines,
  indexOfBytes,
  linesBack,
  linesForward,
  sameBytes,
  sliceChunks,
  spliceChunks,
} from "../../../tools/_core/bytes.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("bytes: search agrees with String.indexOf on encoded text (random cases, short and long needles)", () => {
  let seed = 3;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = ["a", "b", "é", "\n", " ", "x", "日"];
  for (let round = 0; round < 3000; round++) {
    const text = Array.from(
      { length: rand(80) },
      () => alphabet[rand(alphabet.length)],
    ).join("");
    const needle = Array.from(
      { length: 1 + rand(6) },
      () => alphabet[rand(alphabet.length)],
    ).join("");
    const from = rand(text.length + 1);
    const expected = text.indexOf(needle, from);
    const byteFrom = enc(text.slice(0, from)).length;
    const got = indexOfBytes(enc(text), enc(needle), byteFrom);
    assert.equal(
      got,
      expected === -1 ? -1 : enc(text.slice(0, expected)).length,
      JSON.stringify({ text, needle, from }),
    );
  }
});

Deno.test("bytes: splice, newline counting and line walking", () => {
  const b = enc("ab ab ab");
  const chunks = spliceChunks(b, [0, 6], 2, enc("XYZ"));
  assert.equal(chunks.map(dec).join(""), "XYZ ab XYZ");
  assert.equal(dec(sliceChunks(chunks, 2, 7)), "Z ab ");
  assert.equal(dec(sliceChunks(chunks, 0, 10)), "XYZ ab XYZ");
  const text = enc("l1\nl2\n\nl4\nl5");
  for (let end = 0; end <= text.length; end++) {
    assert.equal(
      countNewlines(text, end),
      dec(text.subarray(0, end)).split("\n").length - 1,
      `end ${end}`,
    );
  }
  // Unaligned views count the same.
  const shifted = enc("x\n\n\nabc\n\ndef\n").subarray(1);
  assert.equal(countNewlines(shifted, shifted.length), 6);
  // From "l4" (offset 7), one line back is the empty third line, two back is "l2".
  assert.equal(linesBack(text, 7, 1), 6);
  assert.equal(linesBack(text, 8, 2), 3);
  assert.equal(linesBack(text, 1, 5), 0);
  assert.equal(linesForward(text, 0, 2), 6);
});

Deno.test("sameBytes: equal and unequal bytes at every alignment, and lengths that differ", () => {
  const bytes = Uint8Array.from({ length: 103 }, (_, i) => (i * 37) % 256);
  const shifted = new Uint8Array(bytes.length + 3);
  for (const shift of [0, 1, 2, 3]) {
    shifted.set(bytes, shift);
    const copy = shifted.subarray(shift, shift + bytes.length);
    for (const start of [0, 1, 2, 3, 5]) {
      assert.equal(
        sameBytes(bytes.subarray(start), copy.subarray(start)),
        true,
      );
      for (const at of [start, start + 4, bytes.length - 1]) {
        const other = copy.slice(start);
        other[at - start] ^= 0x40;
        assert.equal(
          sameBytes(bytes.subarray(start), other),
          false,
          `shift ${shift}, start ${start}, changed at ${at}`,
        );
      }
    }
  }
  assert.equal(sameBytes(bytes, bytes.subarray(1)), false);
  assert.equal(sameBytes(new Uint8Array(0), new Uint8Array(0)), true);
});
