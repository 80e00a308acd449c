/**
 * The Messages API parameters of a model request, apart from the SDK's
 * client: the Anthropic provider (`anthropic.ts`) sends them, and the
 * early first request (`session/early_request.ts`) builds its body with
 * them before the session loads, without reaching the SDK's module graph.
 *
 * @module
 */

import type Anthropic from "@anthropic-ai/sdk";
import type { ModelRequest } from "./provider.ts";

/**
 * The Messages API parameters of `request` to `model` (the SDK sends them
 * with `stream: true` added last): the one place they are made, for the
 * SDK and for the early first request alike.
 */
export function messagesParams(
  model: string,
  request: ModelRequest,
): Anthropic.MessageCreateParamsNonStreaming {
  const budget = request.thinkingBudget;
  return {
    model,
    // The budget is part of the output: room for the answer after it.
    max_tokens: budget ? budget + request.maxTokens : request.maxTokens,
    system: request.system,
    messages: request.messages as Anthropic.MessageParam[],
    tools: request.tools as Anthropic.Tool[],
    ...(budget
      ? { thinking: { type: "enabled" as const, budget_tokens: budget } }
      : {}),
  };
}
