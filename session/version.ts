/**
 * wave's version, as written in `system/init` and printed by `--version`;
 * equals deno.json's (a test checks it).
 *
 * @example
 * ```ts
 * import { VERSION } from "@wave/wave";
 * console.log(`wave ${VERSION}`);
 * ```
 */
export const VERSION = "0.1.0";

/** The stdio protocol version this build speaks (docs/protocol.md). */
export const PROTOCOL_VERSION = 1;
