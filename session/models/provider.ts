/**
 * The model provider contract: one request, one complete reply, streamed
 * underneath. Providers translate to and from their wire format; the loop
 * never sees it.
 *
 * @module
 */

import type {
  Message,
  ThinkingBlock,
  ToolUseBlock,
  Usage,
} from "../messages.ts";

/** A tool as a model is offered it. */
export interface ModelTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** One request to a model. */
export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ModelTool[];
  maxTokens: number;
  /** Extended thinking's token budget (Anthropic), when the session sets one. */
  thinkingBudget?: number;
}

/** A model's complete reply. */
export interface ModelReply {
  content: ({ type: "text"; text: string } | ToolUseBlock | ThinkingBlock)[];
  /** `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, or the provider's own word. */
  stopReason: string;
  usage: Usage;
  model: string;
  /** The provider's id of the message, where it gives one. */
  id?: string;
}

/** A failure a parent can act on: what went wrong, and whether trying again may help. */
export class ModelError extends Error {
  readonly retryable: boolean;
  /** The HTTP status the API answered with, when it answered. */
  readonly status?: number;
  constructor(message: string, retryable: boolean, status?: number) {
    super(message);
    this.name = "ModelError";
    this.retryable = retryable;
    this.status = status;
  }
}

/** How to reach a model API. */
export interface ApiOptions {
  model: string;
  apiKey: string;
  baseUrl?: string;
  /** Retries of 429 and 5xx answers, done by the SDK (it honours retry-after). */
  maxRetries: number;
  /** The `fetch` the SDK sends with (the global one when absent). */
  fetch?: typeof fetch;
}

/** A model endpoint. */
/**
 * Takes the reply's text as it streams, piece by piece, in order (the
 * reply that `complete` resolves with holds all of it). A reply tried
 * again after its stream broke off streams again from its start.
 */
export type TextStream = (delta: string) => void;

/**
 * Takes each raw event of the reply's stream, in the Anthropic Messages
 * API's shape (`message_start`, `content_block_delta`, ...): what a Claude
 * Code parent reads as `stream_event` messages.
 */
export type EventStream = (event: { type: string }) => void;

export interface ModelProvider {
  /** "provider:name", as `system/init` shows it. */
  readonly id: string;
  /**
   * Streams one reply. Rejects with an `AbortError`-named error when
   * `signal` aborts, and with a {@linkcode ModelError} for everything else
   * (its `retryable` set for a stream cut off mid-reply).
   */
  complete(
    request: ModelRequest,
    signal: AbortSignal,
    onText?: TextStream,
    onEvent?: EventStream,
  ): Promise<ModelReply>;
  /** Whether `onEvent` gets the provider's own events; else the loop makes them from the text. */
  readonly streamsEvents?: boolean;
}

/** Whether an error is an abort (the signal fired). */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted ||
    (error instanceof Error &&
      (error.name === "AbortError" || error.name === "APIUserAbortError"));
}
