/**
 * The Chat Completions parameters of a model request (OpenAI and the
 * servers that speak it), apart from the SDK's client: the provider
 * (`openai.ts`) sends them, and the early first request
 * (`session/early_request.ts`) builds its body with them before the
 * session loads, without reaching the SDK's module graph.
 *
 * @module
 */

import type OpenAI from "openai";
import { blocksOf, type Message } from "../messages.ts";
import type { ContentBlock } from "../../tools/kernel/tool.ts";
import type { ModelRequest, ModelTool } from "./provider.ts";

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** An image block as a data URL part. */
function imagePart(
  block: Extract<ContentBlock, { type: "image" }>,
): UserPart {
  const { media_type, data } = block.source;
  return {
    type: "image_url",
    image_url: { url: `data:${media_type};base64,${data}` },
  };
}

/** The session's messages in Chat Completions form: tool results become `tool` messages. */
export function chatMessages(
  system: string,
  messages: Message[],
): ChatMessage[] {
  const out: ChatMessage[] = [{ role: "system", content: system }];
  for (const message of messages) {
    const blocks = blocksOf(message.content);
    if (message.role === "assistant") {
      const text = blocks.flatMap((b) => b.type === "text" ? [b.text] : [])
        .join("");
      const calls = blocks.flatMap((b) =>
        b.type === "tool_use"
          ? [{
            id: b.id,
            type: "function" as const,
            function: { name: b.name, arguments: JSON.stringify(b.input) },
          }]
          : []
      );
      out.push({
        role: "assistant",
        content: text || null,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      continue;
    }
    // Tool messages take text only: a result's images follow, after every
    // tool message of the turn, in a user message that names the call.
    const attached: UserPart[] = [];
    let images = 0;
    for (const block of blocks) {
      if (block.type !== "tool_result") continue;
      let content: string;
      if (typeof block.content === "string") content = block.content;
      else {
        const parts: string[] = [];
        for (const b of block.content) {
          if (b.type === "text") {
            parts.push(b.text);
            continue;
          }
          const n = ++images;
          parts.push(`[image ${n}: attached in the next user message]`);
          attached.push(
            {
              type: "text",
              text: `Image ${n}, from the result of ${block.tool_use_id}:`,
            },
            imagePart(b),
          );
        }
        content = parts.join("\n");
      }
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content });
    }
    const rest = blocks.flatMap((b): UserPart[] =>
      b.type === "text"
        ? [{ type: "text", text: b.text }]
        : b.type === "image"
        ? [imagePart(b)]
        : []
    );
    if (attached.length + rest.length === 0) continue;
    out.push({ role: "user", content: [...attached, ...rest] });
  }
  return out;
}

/** Tools in Chat Completions form. */
export function chatTools(
  tools: ModelTool[],
): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters: t.input_schema,
    },
  }));
}

/**
 * The Chat Completions parameters of `request` to `model` (`stream: true` last,
 * where the SDK's stream helper puts it too): the one place they are made, for
 * the SDK and for the early first request alike.
 */
export function chatParams(
  model: string,
  request: ModelRequest,
): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
  return {
    model,
    max_completion_tokens: request.maxTokens,
    messages: chatMessages(request.system, request.messages),
    ...(request.tools.length ? { tools: chatTools(request.tools) } : {}),
    stream_options: { include_usage: true },
    stream: true,
  };
}
