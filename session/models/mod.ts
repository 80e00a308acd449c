/**
 * Choosing a model provider from `--model PROVIDER:NAME`.
 *
 * @module
 */

import { AnthropicProvider, loadAnthropicSdk } from "./anthropic.ts";
import { loadOpenAISdk, OpenAIProvider } from "./openai.ts";
import type { ModelProvider } from "./provider.ts";
import { ReplayProvider } from "./replay.ts";
import { type ApiKey, readApiKey } from "./api_key.ts";
import { parseModelId } from "./model_id.ts";

/** What picks a provider. */
export interface ModelChoice {
  /** `PROVIDER:NAME`. */
  model: string;
  baseUrl?: string;
  /**
   * The API key, read at start (`Config.apiKey`, `api_key.ts`): wave's
   * environment no longer holds it when the first turn makes the provider.
   */
  apiKey?: ApiKey;
  maxRetries?: number;
  /** The `fetch` its SDK sends with (the early first request's, `early_request.ts`). */
  fetch?: typeof fetch;
}

/**
 * Starts loading what the provider of `model` (`PROVIDER:NAME`) needs
 * (its SDK, the slowest import on the way to the first request), without
 * waiting: called once the session starts, so a user turn that comes
 * finds it loaded, or loading. Never fails: a failing import is reported
 * by the turn that needs it.
 */
export function preloadProvider(model: string): void {
  const id = parseModelId(model);
  if ("problem" in id) return;
  const loading = id.provider === "anthropic"
    ? loadAnthropicSdk()
    : id.provider === "openai"
    ? loadOpenAISdk()
    : undefined;
  loading?.catch(() => {});
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
  let apiKey = choice.apiKey;
  if (!apiKey) {
    // No key: "none" for a local server, else what the flag check says.
    const found = readApiKey(id.provider, {
      env: { get: () => undefined },
      cwd: "/",
      baseUrl: choice.baseUrl,
    });
    if ("problem" in found) throw new Error(found.problem);
    apiKey = found.key;
  }
  const Provider = id.provider === "anthropic"
    ? AnthropicProvider
    : OpenAIProvider;
  return new Provider({
    model: id.name,
    apiKey: apiKey.reveal(),
    baseUrl: choice.baseUrl,
    maxRetries: choice.maxRetries ?? 3,
    ...choice.fetch ? { fetch: choice.fetch } : {},
  });
}
