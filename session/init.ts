/**
 * The `system/init` message, built without loading the tools so it can be
 * written within a few milliseconds of start (docs/protocol.md "Startup").
 *
 * @module
 */

import type { Config } from "./config.ts";
import { PROTOCOL_VERSION, VERSION } from "./version.ts";

/** The first line wave writes: who it is and what it serves. */
export function initMessage(
  config: Config,
  tools: readonly string[],
): { type: "system"; subtype: "init"; [key: string]: unknown } {
  return {
    type: "system",
    subtype: "init",
    session_id: config.sessionId,
    cwd: config.workspace,
    tools: [...tools],
    toolset: config.toolset,
    mode: config.mode,
    model: config.model,

    wave_version: VERSION,
    protocol: PROTOCOL_VERSION,
  };
}
