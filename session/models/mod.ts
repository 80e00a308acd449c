/**
 * Choosing a model provider from `--model PROVIDER:NAME`.
 *
 * @module
 */

import { AnthropicProvider } from "./anthropic.ts";
import { OpenAIProvider } from "./openai.ts";
import type { ModelProvider } from "./provider.ts";
import { ReplayProvider } from "./replay.ts";
import { apiKeyFor, parseModelId } from "./model_id.ts";

/** What picks a provider. */
export interface ModelChoice {
  /** `PROVIDER:NAME`. */
  model: string;
  baseUrl?: string;
  /** Where API keys come from; read here in the main thread only. */
  env: { get(name: string): string | undefined };
  maxRetries?: number;
}

/**
 * Creates the provider for `--model`; throws an Error whose message is one
 * line a person can act on (the same line the flag check exits with).
 */
export async function createProvider(
  choice: ModelChoice,
): Promise<ModelProvider> {
  const id = parseModelId(choice.model);
  if ("problem" in id) throw new Error(id.problem);
  if (id.provider === "replay") return await ReplayProvider.load(id.name);
  const key = apiKeyFor(id.provider, choice.env, choice.baseUrl);
  if ("problem" in key) throw new Error(key.problem);
  const Provider = id.provider === "anthropic"
    ? AnthropicProvider
    : OpenAIProvider;
  return new Provider({
    model: id.name,
    apiKey: key.apiKey,
    baseUrl: choice.baseUrl,
    maxRetries: choice.maxRetries ?? 3,
  });
}
