/**
 * The `system/init` message, built without loading the tools so it can be
 * written within a few milliseconds of start (docs/protocol.md "Startup").
 *
 * @module
 */

import { planSandbox } from "./_sandbox_plan.ts";
import type { Config } from "./config.ts";
import { PROTOCOL_VERSION, VERSION } from "./version.ts";
import { permissionModeOf } from "./flags.ts";

/**
 * The first line wave writes: who it is, what it serves (its tools, and
 * its MCP servers' states: none unless `--mcp-config` named some, when it
 * is written once they connected or failed), and how its commands are
 * confined (planned without starting a process; bubblewrap's probe
 * starts once the CLI wrote this, and runs while the session loads).
 */
export function initMessage(
  config: Config,
  tools: readonly string[],
  mcpServers: readonly { name: string; status: string }[] = [],
): { type: "system"; subtype: "init"; [key: string]: unknown } {
  return {
    type: "system",
    subtype: "init",
    session_id: config.sessionId,
    cwd: config.workspace,
    tools: [...tools],
    mcp_servers: [...mcpServers],
    toolset: config.toolset,
    mode: config.mode,
    model: config.model,
    sandbox: {
      ...planSandbox(config).report,
      files: config.fileBoundary,
    },
    wave_version: VERSION,
    protocol: PROTOCOL_VERSION,
    // Claude Code's fields, for a parent written for it.
    apiKeySource: config.apiKey && config.model?.startsWith("anthropic:")
      ? "ANTHROPIC_API_KEY"
      : "none",
    permissionMode: config.permissionMode ?? permissionModeOf(config.mode),
    slash_commands: [],
    output_style: "default",
    claude_code_version: `wave ${VERSION}`,
    skills: [],
    plugins: [],
    uuid: crypto.randomUUID(),
  };
}
