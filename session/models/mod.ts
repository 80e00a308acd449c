/**
 * Choosing a model provider from `--model PROVIDER:NAME`.
 *
 * @module
 */

import { MODEL_PROVIDERS } from "../config.ts";
import { AnthropicProvider } from "./anthropic.ts";
import { OpenAIProvider } from "./openai.ts";
import type { ModelProvider } from "./provider.ts";
import { ReplayProvider } from "./replay.ts";

/** What picks a provider. */
export interface ModelChoice {
  /** `PROVIDER:NAME`. */
  model: string;
  baseUrl?: string;
  /** Where API keys come from; read here in the main thread only. */
  env: { get(name: string): string | undefined };
  maxRetries?: number;
}

/** Creates the provider for `--model`; throws an Error whose message is one line a person can act on. */
export async function createProvider(
  choice: ModelChoice,
): Promise<ModelProvider> {
  const colon = choice.model.indexOf(":");
  const provider = colon === -1 ? "" : choice.model.slice(0, colon);
  const name = choice.model.slice(colon + 1);
  const maxRetries = choice.maxRetries ?? 3;
  switch (provider) {
    case "anthropic": {
      const apiKey = choice.env.get("ANTHROPIC_API_KEY");
      if (!apiKey) {
        throw new Error(
          "--model anthropic:… needs ANTHROPIC_API_KEY in the environment",
        );
      }
      return new AnthropicProvider({
        model: name,
        apiKey,
        baseUrl: choice.baseUrl,
        maxRetries,
      });
    }
    case "openai": {
      // OpenAI-compatible local servers often need no key; the SDK wants one anyway.
      const apiKey = choice.env.get("OPENAI_API_KEY") ??
        (choice.baseUrl ? "none" : undefined);
      if (!apiKey) {
        throw new Error(
          "--model openai:… needs OPENAI_API_KEY in the environment (or --base-url for a local server)",
        );
      }
      return new OpenAIProvider({
        model: name,
        apiKey,
        baseUrl: choice.baseUrl,
        maxRetries,
      });
    }
    case "replay":
      return await ReplayProvider.load(name);
    default:
      throw new Error(
        `--model must be PROVIDER:NAME with PROVIDER one of ${
          MODEL_PROVIDERS.join(", ")
        }, not "${choice.model}"`,
      );
  }
}
