/**
 * What `wave mcp` says about itself in `initialize`, and the answer to a
 * client's `initialize` written before the MCP SDK and the tools load
 * (issue 17: the first answer within 1.5× an empty Deno start). The SDK
 * then reads the same request, so its state is what it would be, and its
 * own answer to it is not written twice (`_stdio_transport.ts`).
 *
 * Runs before the first answer: it imports nothing heavy.
 *
 * @module
 */

import type { Config } from "../../session/config.ts";
import {
  answerFirstLine,
  type ByteSource,
  type EarlyAnswered,
} from "../../session/_first_line.ts";
import { VERSION } from "../../session/version.ts";

/** The server's name and version. */
export const SERVER_INFO = { name: "wave", version: VERSION } as const;

/** What wave offers: tools, and the task list as a subscribable resource. */
export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: false },
} as const;

/**
 * The MCP protocol versions the SDK speaks, newest first: its
 * `SUPPORTED_PROTOCOL_VERSIONS` (tests/fronts/mcp_test.ts checks they agree).
 */
export const PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
] as const;

/** The server's instructions for `config`'s session. */
export function instructionsFor(
  config: Pick<Config, "toolset" | "workspace">,
): string {
  return `wave's ${config.toolset} tools, working in ${config.workspace}. Paths outside it, and sensitive files, need the user's approval.`;
}

/**
 * The answer to `line` when it is an MCP `initialize` request the SDK
 * accepts (the version the client asked for when the SDK speaks it, else
 * the newest), or null for any other line.
 */
export function initializeAnswer(
  line: string,
  config: Pick<Config, "toolset" | "workspace">,
): { id: string | number; answer: string } | null {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return null;
  }
  const params = message?.params;
  const info = params?.clientInfo;
  if (
    message?.jsonrpc !== "2.0" || message.method !== "initialize" ||
    !(typeof message.id === "string" || Number.isInteger(message.id)) ||
    typeof params?.protocolVersion !== "string" ||
    typeof params.capabilities !== "object" || params.capabilities === null ||
    typeof info?.name !== "string" || typeof info.version !== "string"
  ) return null;
  const protocolVersion = (PROTOCOL_VERSIONS as readonly string[]).includes(
      params.protocolVersion,
    )
    ? params.protocolVersion
    : PROTOCOL_VERSIONS[0];
  return {
    id: message.id,
    answer: JSON.stringify({
      result: {
        protocolVersion,
        capabilities: CAPABILITIES,
        serverInfo: SERVER_INFO,
        instructions: instructionsFor(config),
      },
      jsonrpc: "2.0",
      id: message.id,
    }),
  };
}

/**
 * Answers the client's first line at once when it is `initialize`
 * (`answerFirstLine`), and hands on the whole input with the id it answered.
 */
export function answerEarly(
  config: Config,
  stdin: ReadableStream<Uint8Array> | ByteSource,
  write: (text: string) => void,
): Promise<EarlyAnswered> {
  return answerFirstLine(
    stdin,
    config.maxLineBytes,
    (line) => initializeAnswer(line, config),
    write,
  );
}
