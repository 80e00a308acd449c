/**
 * A model id, `PROVIDER:NAME`: the providers wave knows, how an id splits,
 * and the API key each provider needs. The flag check (before start-up) and
 * {@linkcode createProvider} (on the first turn) both ask here, so a person
 * reads the same message from either.
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
 * Splits `PROVIDER:NAME` at its first colon (a name may hold more).
 * Guarantees: a known provider and a non-empty name, or the message saying
 * what `--model` must be.
 */
export function parseModelId(
  model: string,
): { provider: ProviderName; name: string } | { problem: string } {
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
        `--model must be PROVIDER:NAME with PROVIDER ${providers}, not "${model}"`,
    };
  }
  return { provider, name };
}

/**
 * The key to call `provider`'s API with. An OpenAI-compatible server given
 * by `--base-url` often needs none; the SDK wants one anyway, so it gets
 * `"none"`. Guarantees: a non-empty key, or the message saying which
 * variable to set.
 */
export function apiKeyFor(
  provider: ApiProvider,
  env: { get(name: string): string | undefined },
  baseUrl: string | undefined,
): { apiKey: string } | { problem: string } {
  const variable = API_KEY_VARIABLES[provider];
  const apiKey = env.get(variable) ||
    (provider === "openai" && baseUrl ? "none" : undefined);
  if (apiKey) return { apiKey };
  return {
    problem: `--model ${provider}:… needs ${variable} in the environment${
      provider === "openai" ? " (or --base-url for a local server)" : ""
    }`,
  };
}
