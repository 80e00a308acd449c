/**
 * A model id, `PROVIDER:NAME`: the providers wave knows, how an id splits,
 * and the variable holding each provider's API key (`api_key.ts` reads it).
 * The flag check (before start-up) and `createProvider` (on the first turn)
 * both ask here, so a person reads the same message from either.
 *
 * Imports nothing: the binary reads it before `system/init`.
 *
 * @module
 */

/** The model providers `--model PROVIDER:NAME` accepts. */
export const MODEL_PROVIDERS = ["anthropic", "openai", "replay"] as const;

/** One of {@linkcode MODEL_PROVIDERS}. */
export type ProviderName = typeof MODEL_PROVIDERS[number];

/** The providers reached over an HTTP API, and the variable holding each one's key. */
export const API_KEY_VARIABLES = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
} as const;

/** A provider reached over an HTTP API (every one but `replay`). */
export type ApiProvider = keyof typeof API_KEY_VARIABLES;

/**
 * Splits `PROVIDER:NAME` at its first colon (a name may hold more); a bare
 * name (or one of {@linkcode CLAUDE_ALIASES}) is an Anthropic model, as
 * Claude Code's `--model` takes it. Guarantees: a known provider and a non-empty name, or the message saying
 * what `--model` must be.
 */
export function parseModelId(
  model: string,
): { provider: ProviderName; name: string } | { problem: string } {
  // Claude Code's --model: a bare name (or alias) is an Anthropic model.
  if (/^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(model)) {
    return { provider: "anthropic", name: CLAUDE_ALIASES[model] ?? model };
  }
  const colon = model.indexOf(":");
  const provider = model.slice(0, colon) as ProviderName;
  const name = model.slice(colon + 1);
  if (colon === -1 || !MODEL_PROVIDERS.includes(provider) || !name) {
    const last = MODEL_PROVIDERS.length - 1;
    const providers = `${MODEL_PROVIDERS.slice(0, last).join(", ")} or ${
      MODEL_PROVIDERS[last]
    }`;
    return {
      problem:
        `--model must be a Claude model name, or PROVIDER:NAME with PROVIDER ${providers}, not "${model}"`,
    };
  }
  return { provider, name };
}

/**
 * Claude Code's model aliases and the models they stand for (`--model
 * sonnet`, `set_model`, `supportedModels()`).
 */
export const CLAUDE_ALIASES: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
};

/** The speech-to-text providers `--stt-model PROVIDER:NAME` accepts. */
export const STT_PROVIDERS = ["openai"] as const;

/** One of {@linkcode STT_PROVIDERS}. */
export type SttProviderName = typeof STT_PROVIDERS[number];

/**
 * Splits `--stt-model`'s `PROVIDER:NAME` at its first colon. Guarantees: a
 * known speech-to-text provider and a non-empty name, or the message
 * saying what `--stt-model` must be.
 */
export function parseSttModelId(
  model: string,
): { provider: SttProviderName; name: string } | { problem: string } {
  const colon = model.indexOf(":");
  const provider = model.slice(0, colon) as SttProviderName;
  const name = model.slice(colon + 1);
  if (colon === -1 || !STT_PROVIDERS.includes(provider) || !name) {
    return {
      problem:
        `--stt-model must be openai:NAME (the OpenAI audio transcription API, or a compatible server with --stt-base-url), not "${model}"`,
    };
  }
  return { provider, name };
}
