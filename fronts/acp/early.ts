/**
 * What `wave acp` says about itself in `initialize`, and the answer to a
 * client's `initialize` written before the ACP SDK and the session core
 * load (issue 17: the first answer within 1.5× an empty Deno start). The
 * SDK then reads the same request, and its own answer is not written
 * twice (`main.ts`).
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

/** The ACP protocol version wave speaks (the SDK's `PROTOCOL_VERSION`; tests/fronts/acp_test.ts checks they agree). */
export const ACP_PROTOCOL_VERSION = 1;

/** `initialize`'s answer: wave's capabilities (load, list, resume and close sessions, image prompts, embedded context, MCP servers over HTTP and SSE) and name. */
export function initializeResult() {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      // session/new's mcpServers: stdio always; these two as well.
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    agentInfo: { name: "wave", title: "wave", version: VERSION },
    authMethods: [],
  };
}

/** The answer to `line` when it is an ACP `initialize` request, else null. */
export function initializeAnswer(
  line: string,
): { id: string | number; answer: string } | null {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return null;
  }
  if (
    message?.jsonrpc !== "2.0" || message.method !== "initialize" ||
    !(typeof message.id === "string" || Number.isInteger(message.id)) ||
    !Number.isInteger(message.params?.protocolVersion) ||
    message.params.protocolVersion < 0 ||
    message.params.protocolVersion > 65535 ||
    (message.params.clientCapabilities !== undefined &&
      (typeof message.params.clientCapabilities !== "object" ||
        message.params.clientCapabilities === null))
  ) return null;
  return {
    id: message.id,
    answer: JSON.stringify({
      jsonrpc: "2.0",
      id: message.id,
      result: initializeResult(),
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
    (line) => initializeAnswer(line),
    write,
  );
}
