/**
 * What the providers reached through an official SDK share: the client,
 * made from {@linkcode ApiOptions} on first use, and how the SDK's failures
 * become {@linkcode ModelError}s.
 *
 * @module
 */

import {
  type ApiOptions,
  type EventStream,
  isAbort,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  type TextStream,
} from "./provider.ts";
import { API_KEY_VARIABLES, type ApiProvider } from "./model_id.ts";

/** An SDK module whose default export is its client class (both SDKs take these options). */
export type SdkModule<Client> = {
  default: new (
    options: {
      apiKey: string;
      baseURL?: string;
      maxRetries: number;
      fetch?: typeof fetch;
    },
  ) => Client;
};

/**
 * A provider over an SDK. Subclasses say how one request goes over the
 * wire ({@linkcode SdkProvider.send}); this class guarantees
 * {@linkcode ModelProvider.complete}'s contract around it: an abort stays
 * an abort, every other failure is a {@linkcode ModelError}.
 */
export abstract class SdkProvider<Client> implements ModelProvider {
  readonly id: string;
  readonly streamsEvents: boolean = false;
  /** The model's name, without the provider. */
  protected readonly model: string;
  #provider: ApiProvider;
  #options: ApiOptions;
  #load: () => Promise<SdkModule<Client>>;
  #client: Promise<Client> | undefined;

  /** `load` imports the SDK; it runs on the first request (the SDKs' imports are slow). */
  constructor(
    provider: ApiProvider,
    options: ApiOptions,
    load: () => Promise<SdkModule<Client>>,
  ) {
    this.id = `${provider}:${options.model}`;
    this.model = options.model;
    this.#provider = provider;
    this.#options = options;
    this.#load = load;
  }

  /** Sends one request with the SDK and reads its whole streamed reply. */
  protected abstract send(
    client: Client,
    request: ModelRequest,
    signal: AbortSignal,
    onText?: TextStream,
    onEvent?: EventStream,
  ): Promise<ModelReply>;

  async complete(
    request: ModelRequest,
    signal: AbortSignal,
    onText?: TextStream,
    onEvent?: EventStream,
  ): Promise<ModelReply> {
    const { apiKey, baseUrl: baseURL, maxRetries, fetch } = this.#options;
    const client = await (this.#client ??= this.#load().then((
      { default: Client },
    ) =>
      new Client({ apiKey, baseURL, maxRetries, ...fetch ? { fetch } : {} })
    ));
    try {
      return await this.send(client, request, signal, onText, onEvent);
    } catch (error) {
      if (isAbort(error, signal)) throw error;
      throw toModelError(error, this.#provider);
    }
  }
}

/** An SDK error as a {@linkcode ModelError}: HTTP errors (already retried by the SDK) are final; a cut stream may be retried. */
export function toModelError(
  error: unknown,
  provider: ApiProvider,
): ModelError {
  const e = error as {
    status?: number;
    message?: string;
    error?: { error?: { message?: string } };
  };
  if (typeof e?.status === "number") {
    const detail = e.error?.error?.message ?? e.message ?? "";
    const hint = e.status === 401 || e.status === 403
      ? ` Check the API key (${API_KEY_VARIABLES[provider]}) and --base-url.`
      : e.status === 429 || e.status >= 500
      ? " The provider is busy or failing; it was retried. Try again later."
      : e.status === 404
      ? " Check the model name (--model) and --base-url."
      : "";
    return new ModelError(
      `the model API answered ${e.status}: ${detail}.${hint}`,
      false,
      e.status,
    );
  }
  return new ModelError(
    `the model's reply stream broke off: ${
      (error as Error)?.message ?? String(error)
    }`,
    true,
  );
}
