/**
 * OpenAI Chat Completions (and the servers that speak it: vLLM, llama.cpp,
 * Ollama, LM Studio), through the official SDK, whose stream helper joins
 * tool-call deltas by index.
 *
 * @module
 */

import type OpenAI from "openai";
import { SdkProvider } from "./_sdk_provider.ts";
import { chatParams } from "./chat_params.ts";
import type {
  ApiOptions,
  ModelReply,
  ModelRequest,
  TextStream,
} from "./provider.ts";

const STOP_REASONS: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  content_filter: "content_filter",
};

/** Imports the OpenAI SDK (slow: a first request, or a preload, pays it once). */
export const loadOpenAISdk = () => import("openai");

/** A model over Chat Completions. */
export class OpenAIProvider extends SdkProvider<OpenAI> {
  constructor(options: ApiOptions) {
    super("openai", options, loadOpenAISdk);
  }

  protected async send(
    client: OpenAI,
    request: ModelRequest,
    signal: AbortSignal,
    onText?: TextStream,
  ): Promise<ModelReply> {
    const stream = client.chat.completions.stream(
      chatParams(this.model, request),
      { signal },
    );
    if (onText) stream.on("content.delta", ({ delta }) => onText(delta));
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0];
    if (!choice) throw new Error("the reply had no choices");
    const content: ModelReply["content"] = [];
    if (choice.message.content) {
      content.push({ type: "text", text: choice.message.content });
    }
    for (const call of choice.message.tool_calls ?? []) {
      if (call.type !== "function") continue;
      let input: unknown;
      try {
        input = call.function.arguments
          ? JSON.parse(call.function.arguments)
          : {};
      } catch {
        // Let the tool's schema check say what is wrong, with the raw text to go on.
        input = { _unparsed_arguments: call.function.arguments };
      }
      content.push({
        type: "tool_use",
        id: call.id,
        name: call.function.name,
        input,
      });
    }
    return {
      content,
      stopReason: STOP_REASONS[choice.finish_reason ?? "stop"] ??
        choice.finish_reason ?? "end_turn",
      usage: {
        input_tokens: completion.usage?.prompt_tokens ?? 0,
        output_tokens: completion.usage?.completion_tokens ?? 0,
      },
      model: completion.model,
    };
  }
}
