/**
 * Where a workspace's file history lives (history.ts has the layout):
 * apart from the history itself, so the main thread, which only names the
 * directory (a worker's grant, a deny rule), does not load the history's
 * code and its content hash at start.
 *
 * @module
 */

import { sha256 } from "./sha256.ts";
import { historyDirOfDigest } from "./history_key.ts";

/**
 * The history directory of `workspace` under `waveHome`:
 * `WAVE_HOME/history/<key>`, `key` being the first 16 hex digits of the
 * SHA-256 of the workspace's real path. The same workspace always gets the
 * same directory.
 */
export function historyDir(
  ctx: { workspace: string; waveHome: string },
): string {
  return historyDirOfDigest(
    ctx.waveHome,
    sha256(new TextEncoder().encode(ctx.workspace)),
  );
}
