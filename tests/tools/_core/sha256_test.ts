import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256 } from "../../../tools/_core/sha256.ts";

Deno.test("sha256: the FIPS 180-4 examples", () => {
  const text = (s: string) => new TextEncoder().encode(s);
  assert.equal(
    sha256(text("")),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256(text("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha256(
      text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    ),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256: equals node:crypto's at every length around the block edges, chunked or not", () => {
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 131 + 7) % 256);
  for (let n = 0; n <= 300; n++) {
    const data = bytes.subarray(0, n);
    const expected = createHash("sha256").update(data).digest("hex");
    assert.equal(sha256(data), expected, `length ${n}`);
    const cut = Math.floor(n / 3);
    assert.equal(
      sha256([data.subarray(0, cut), data.subarray(cut)]),
      expected,
      `length ${n} in two chunks`,
    );
  }
});
