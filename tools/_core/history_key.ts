/**
 * The name of a workspace's history directory, without `node:crypto`:
 * {@linkcode historyDirOfDigest} is the one place the layout is written,
 * and {@linkcode historyDirAsync} hashes with WebCrypto. The start of a
 * session names the directory (a worker's grant) before it loads Node's
 * compatibility layer and `node:crypto` (about 40 ms), which
 * `history_dir.ts`'s synchronous {@linkcode historyDir} needs.
 *
 * @module
 */

/**
 * `WAVE_HOME/history/<key>`, `key` being the first 16 hex digits of
 * `sha256Hex`, the SHA-256 of the workspace's real path.
 */
export function historyDirOfDigest(
  waveHome: string,
  sha256Hex: string,
): string {
  return `${waveHome.replace(/\/+$/, "")}/history/${sha256Hex.slice(0, 16)}`;
}

/**
 * The history directory of `workspace` under `waveHome`, the same as
 * `historyDir` (history_dir.ts) gives, hashed by WebCrypto.
 */
export async function historyDirAsync(
  ctx: { workspace: string; waveHome: string },
): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(ctx.workspace),
  );
  const hex = Array.from(
    new Uint8Array(digest),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
  return historyDirOfDigest(ctx.waveHome, hex);
}
