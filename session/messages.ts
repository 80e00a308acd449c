/**
 * The conversation, in one shape for every provider (Anthropic's content
 * blocks): what the loop keeps, what transcripts store, and what provider
 * adapters translate.
 *
 * @module
 */

import type { ContentBlock } from "../tools/kernel/tool.ts";

/** A tool call in an assistant message. */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** A tool's result in a user message. */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | ContentBlock[];
  is_error?: boolean;
}

/**
 * A model's extended thinking (`--max-thinking-tokens`), kept in the
 * history as it came: the API wants it back, unchanged, before the tool
 * results of the same reply.
 */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** Any block a message may hold. */
export type Block =
  | ContentBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock;

/** One message of the conversation. */
export interface Message {
  role: "user" | "assistant";
  content: string | Block[];
}

/** Token counts. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Tokens written to the provider's prompt cache, where it says. */
  cache_creation_input_tokens?: number;
  /** Tokens read from the provider's prompt cache, where it says. */
  cache_read_input_tokens?: number;
}

/** The blocks of a message's content (a string is one text block). */
export function blocksOf(content: string | Block[]): Block[] {
  return typeof content === "string"
    ? [{ type: "text", text: content }]
    : content;
}

/** The text of a message's content, text blocks joined. */
export function textOf(content: string | Block[]): string {
  return blocksOf(content).flatMap((b) => b.type === "text" ? [b.text] : [])
    .join("\n");
}

/**
 * The messages as an API takes them: consecutive messages of one role
 * (a tool-result message, then a meta reminder) merged into one.
 */
export function mergeTurns(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (last && last.role === message.role) {
      out[out.length - 1] = {
        role: last.role,
        content: [...blocksOf(last.content), ...blocksOf(message.content)],
      };
    } else out.push(message);
  }
  return out;
}
