/**
 * The Anthropic Messages API, through the official SDK (its SSE parsing,
 * its retries of 429 and 5xx honouring `retry-after`).
 *
 * @module
 */

import type Anthropic from "@anthropic-ai/sdk";
import {
  type ApiOptions,
  isAbort,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
} from "./provider.ts";

/** Claude over the Messages API. */
export class AnthropicProvider implements ModelProvider {
  readonly id: string;
  #options: ApiOptions;
  #client: Promise<Anthropic> | undefined;

  constructor(options: ApiOptions) {
    this.id = `anthropic:${options.model}`;
    this.#options = options;
  }

  /** The SDK client, imported on first use (the SDK's import is slow). */
  #clientFor(): Promise<Anthropic> {
    const { apiKey, baseUrl: baseURL, maxRetries } = this.#options;
    return this.#client ??= import("@anthropic-ai/sdk").then((
      { default: Client },
    ) => new Client({ apiKey, baseURL, maxRetries }));
  }

  async complete(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<ModelReply> {
    const client = await this.#clientFor();
    try {
      const stream = client.messages.stream({
        model: this.#options.model,
        max_tokens: request.maxTokens,
        system: request.system,
        messages: request.messages as Anthropic.MessageParam[],
        tools: request.tools as Anthropic.Tool[],
      }, { signal });
      const message = await stream.finalMessage();
      const content: ModelReply["content"] = [];
      for (const b of message.content) {
        if (b.type === "text") content.push({ type: "text", text: b.text });
        else if (b.type === "tool_use") {
          content.push({
            type: "tool_use",
            id: b.id,
            name: b.name,
            input: b.input,
          });
        }
      }
      return {
        content,

        stopReason: message.stop_reason ?? "end_turn",
        usage: {
          input_tokens: message.usage.input_tokens,
          output_tokens: message.usage.output_tokens,
        },
        model: message.model,
      };
    } catch (error) {
      if (isAbort(error, signal)) throw error;
      throw toModelError(error);
    }
  }
}

/** An SDK error as a {@linkcode ModelError}: HTTP errors (already retried by the SDK) are final; a cut stream may be retried. */
export function toModelError(error: unknown): ModelError {
  const e = error as {
    status?: number;
    message?: string;
    error?: { error?: { message?: string } };
  };
  if (typeof e?.status === "number") {
    const detail = e.error?.error?.message ?? e.message ?? "";
    const hint = e.status === 401 || e.status === 403
      ? " Check the API key (ANTHROPIC_API_KEY or OPENAI_API_KEY) and --base-url."
      : e.status === 429 || e.status >= 500
      ? " The provider is busy or failing; it was retried. Try again later."
      : e.status === 404
      ? " Check the model name (--model) and --base-url."
      : "";
    return new ModelError(
      `the model API answered ${e.status}: ${detail}.${hint}`,
      false,
    );
  }
  return new ModelError(
    `the model's reply stream broke off: ${
      (error as Error)?.message ?? String(error)
    }`,
    true,
  );
}
