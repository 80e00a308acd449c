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

import type { createXXHash128 as CreateXXHash128, IHasher } from "hash-wasm";

/** One hasher per thread: {@linkcode contentHash} runs start to end without yielding, so calls never interleave. */
let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;
/** Why the hasher could not be loaded, for the calls that then need it. */
let failure: unknown;

/**
 * Loads the hasher of this thread, once; {@linkcode contentHash} needs it
 * loaded. Not at this module's load: the package's build of this one
 * algorithm (20 KB, not its index of all of them, 280 KB) is CommonJS,
 * which loads Deno's Node compatibility layer, and the main thread loads
 * this module with the tools' definitions but hashes nothing
 * (kernel/posix_path.ts says what that layer costs). A sandbox worker
 * loads it as it starts (`_tool_worker.ts`'s `prepare`).
 */
export function loadContentHash(): Promise<void> {
  return loading ??= (async () => {
    const { default: build } = await import(
      "hash-wasm/dist/xxhash128.umd.min.js"
    );
    hasher = await (build as { createXXHash128: typeof CreateXXHash128 })
      .createXXHash128();
  })().catch((error) => {
    failure = error;
    throw error;
  });
}

/**
 * The content hash of `data` (bytes, or chunks hashed in order as one
 * sequence): XXH3-128 as 32 lowercase hex digits. Equal bytes always give
 * equal hashes, whatever the chunking. Throws until this thread's
 * {@linkcode loadContentHash} has resolved.
 */
export function contentHash(data: Uint8Array | readonly Uint8Array[]): string {
  if (!hasher) {
    throw new Error(
      failure === undefined
        ? "the content hash was used before loadContentHash()"
        : `the content hash could not be loaded: ${failure}`,
    );
  }
  hasher.init();
  for (const chunk of data instanceof Uint8Array ? [data] : data) {
    hasher.update(chunk);
  }
  return hasher.digest("hex");
}
