/**
 * The content hash: what file history names a version's blob by (two
 * versions with the same bytes share one) and what the read-state keeps of
 * a whole read or write (a file whose mtime moved is still fresh when its
 * bytes hash the same). XXH3-128, 32 hex digits, from hash-wasm's
 * WebAssembly build of that one algorithm.
 *
 * Neither use needs a cryptographic hash: history shares a blob only
 * after comparing its bytes (history.ts), so a collision, even a crafted
 * one, costs a second blob, never a wrong restore; and a process that
 * could craft one for the freshness check could as well write the file.
 * On a 10 MB file XXH3-128 takes about 1.7 ms where SHA-256 takes 5.5 ms
 * (node:crypto, with the CPU's SHA instructions): the hash of every edit
 * of a large file (`deno task bench files`).
 *
 * @module
 */

// The package's build of this one algorithm (20 KB), not its index of all
// of them (280 KB): every worker that writes or reads files loads it.
import xxhashBuild from "hash-wasm/dist/xxhash128.umd.min.js";
import type { createXXHash128 as CreateXXHash128 } from "hash-wasm";

const { createXXHash128 } = xxhashBuild as {
  createXXHash128: typeof CreateXXHash128;
};

/** One hasher per thread: {@linkcode contentHash} runs start to end without yielding, so calls never interleave. */
const hasher = await createXXHash128();

/**
 * The content hash of `data` (bytes, or chunks hashed in order as one
 * sequence): XXH3-128 as 32 lowercase hex digits. Equal bytes always give
 * equal hashes, whatever the chunking.
 */
export function contentHash(data: Uint8Array | readonly Uint8Array[]): string {
  hasher.init();
  for (const chunk of data instanceof Uint8Array ? [data] : data) {
    hasher.update(chunk);
  }
  return hasher.digest("hex");
}
