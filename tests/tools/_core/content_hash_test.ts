/** The content hash (tools/_core/content_hash.ts): XXH3-128, the same for any chunking. */

import assert from "node:assert/strict";
import {
  contentHash,
  loadContentHash,
} from "../../../tools/_core/content_hash.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const enc = new TextEncoder();

Deno.test("content hash: XXH3-128 in 32 hex digits (the reference implementation's values, short and long input)", () => {
  assert.equal(
    contentHash(new Uint8Array()),
    "99aa06d3014798d86001c324468d497f",
  );
  assert.equal(
    contentHash(enc.encode("a")),
    "a96faf705af16834e6c632b61e964e1f",
  );
  // bytes 0..255, 1000 times: past the short-input paths, many stripes.
  const long = new Uint8Array(256_000).map((_, i) => i & 0xff);
  assert.equal(contentHash(long), "548512d98989de2d776474c39d20f9aa");
});

Deno.test("content hash: chunks hash as the bytes they make in order, and other bytes hash otherwise", () => {
  const bytes = new Uint8Array(3 * 1024 * 1024 + 17);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + (i >> 9)) & 0xff;
  const whole = contentHash(bytes);
  const cuts = [0, 1, 4096, 1 << 20, (1 << 20) + 3, bytes.length - 5];
  const chunks = cuts.map((at, k) => bytes.subarray(at, cuts[k + 1]));
  assert.equal(contentHash(chunks), whole);
  assert.equal(contentHash([]), contentHash(new Uint8Array()));
  const changed = bytes.slice();
  changed[2_000_000] ^= 1;
  assert.notEqual(contentHash(changed), whole);
});
