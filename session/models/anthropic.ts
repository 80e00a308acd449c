/**
 * The Anthropic Messages API, through the official SDK (its SSE parsing,
 * its retries of 429 and 5xx honouring `retry-after`).
 *
 * @module
 */

import type Anthropic from "@anthropic-ai/sdk";
import { SdkProvider } from "./_sdk_provider.ts";
import { messagesParams } from "./messages_params.ts";
import type {
  ApiOptions,
  EventStream,
  ModelReply,
  ModelRequest,
  TextStream,
} from "./provider.ts";

/** Imports the Anthropic SDK (slow: a first request, or a preload, pays it once). */
export const loadAnthropicSdk = () => import("@anthropic-ai/sdk");

/** Claude over the Messages API. */
export class AnthropicProvider extends SdkProvider<Anthropic> {
  constructor(options: ApiOptions) {
    super("anthropic", options, loadAnthropicSdk);
  }

  override readonly streamsEvents = true;

  protected async send(
    client: Anthropic,
    request: ModelRequest,
    signal: AbortSignal,
    onText?: TextStream,
    onEvent?: EventStream,
  ): Promise<ModelReply> {
    const stream = client.messages.stream(
      messagesParams(this.model, request),
      { signal },
    );
    if (onText) stream.on("text", (delta) => onText(delta));
    if (onEvent) stream.on("streamEvent", (event) => onEvent(event));
    const message = await stream.finalMessage();
    const content: ModelReply["content"] = [];
    for (const b of message.content) {
      if (b.type === "text") content.push({ type: "text", text: b.text });
      else if (b.type === "thinking") {
        content.push({
          type: "thinking",
          thinking: b.thinking,
          signature: b.signature,
        });
      } else if (b.type === "redacted_thinking") {
        content.push({ type: "redacted_thinking", data: b.data });
      } else if (b.type === "tool_use") {
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
        cache_creation_input_tokens:
          message.usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: message.usage.cache_read_input_tokens ?? 0,
      },
      model: message.model,
      id: message.id,
    };
  }
}
