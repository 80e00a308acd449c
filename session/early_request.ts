/**
 * The early first request (issue 18): when a session's first line is a
 * user message, its model request goes out at once, built here from what
 * is known at start (the flags, the tool list `system/init` announced,
 * `tools/schemas.json`), while the session, the tools and the model's SDK
 * are still loading. The SDK's first request then gets that response
 * instead of sending its own: its client is given a `fetch`
 * ({@linkcode EarlyRequest.fetchFor}) that hands it over only when the
 * SDK's request is the same, byte for byte in its URL and body and in
 * every header; else the early one is aborted and the SDK's goes out, as
 * it would have. The SDK still parses the stream, and its retries (429,
 * 5xx, a failed connection) go out through the real `fetch`.
 *
 * Taken only where the first request is fully known at start
 * ({@linkcode earlyRequestBlocker} says why not otherwise). Loaded by
 * cli.ts through a computed specifier, after `system/init`; it imports
 * nothing heavy (no SDK, no zod, no tool module).
 *
 * @module
 */

import SCHEMAS from "../tools/schemas.json" with { type: "json" };
import type { Config } from "./config.ts";
import type { PeekedStream } from "./_first_line.ts";
import type { Block } from "./messages.ts";
import { modelRequest } from "./model_request.ts";
import { messagesParams } from "./models/messages_params.ts";
import { chatParams } from "./models/chat_params.ts";
import { API_KEY_VARIABLES, parseModelId } from "./models/model_id.ts";
import { permissionSettings } from "./permission_modes.ts";
import { shownDir } from "./_paths.ts";
import { connectTo, Http1Post } from "./_http1.ts";

/**
 * The SDK versions the headers name (`User-Agent`, `X-Stainless-Package-Version`).
 * When an SDK moves on, the early request differs from its request and is
 * not used (wave says so on stderr); tests/e2e/early_request_test.ts fails.
 */
const SDK_VERSIONS = { anthropic: "1.14.0", openai: "7.59.0" } as const;
/** The Messages API version the Anthropic SDK sends. */
const ANTHROPIC_VERSION = "2026-10-21";

/** One tool in `tools/schemas.json` (scripts/tool_schemas.ts writes it). */
interface SchemaEntry {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  emits: string[];
}

/** One HTTP request, as the SDK would send it. */
export interface Wire {
  /** Where it goes (a POST). */
  url: string;
  /** Its headers, by lower-case name. */
  headers: Record<string, string>;
  /** Its body, JSON. */
  body: string;
}

/**
 * Why the first request of `config`'s session cannot be sent early, or
 * null when it can: a resumed or forked session (its history is read
 * later), structured output, a fallback model, extra tool modules or MCP
 * servers (their tools are known only once loaded), a front other than
 * stream-json, no model API, no key read at start, settings of the SDK's
 * own in the environment (a base URL, headers) that it would honour, or
 * `WAVE_EARLY_REQUEST=off` (the way to compare the two paths).
 */
export function earlyRequestBlocker(
  config: Config,
  env: { toObject(): Record<string, string> },
): string | null {
  if (env.toObject().WAVE_EARLY_REQUEST === "off") {
    return "WAVE_EARLY_REQUEST=off";
  }
  if (config.front !== "stream-json") return "not the stream-json front";
  if (!config.model) return "no model";
  const id = parseModelId(config.model);
  if ("problem" in id || id.provider === "replay") return "no model API";
  if (!config.apiKey) return "no API key read at start";
  if (config.resume || config.forkFrom) return "a resumed session";
  if (config.jsonSchema) return "structured output";
  if (config.fallbackModel) return "a fallback model";
  if (config.toolModules.length > 0) return "extra tool modules";
  if (Object.keys(config.mcpServers).length > 0) return "MCP servers";
  const provider = id.provider;
  const prefix = provider === "anthropic" ? "ANTHROPIC_" : "OPENAI_";
  const own = Object.keys(env.toObject()).find((name) =>
    name.startsWith(prefix) && name !== API_KEY_VARIABLES[provider]
  );
  if (own) return `${own} is set (the SDK reads it)`;
  return null;
}

/** The user message content of a protocol line, when it is a user message `inbound.ts` accepts; else null. */
export function userContent(line: string): string | Block[] | null {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return null;
  }
  if (value.type !== "user") return null;
  const message = value.message;
  if (typeof message !== "object" || message === null) return null;
  if (message.role !== "user") return null;
  const content = message.content;
  if (typeof content === "string") return content;
  if (
    Array.isArray(content) && content.length > 0 &&
    content.every((b) =>
      typeof b === "object" && b !== null && !Array.isArray(b) &&
      typeof b.type === "string"
    )
  ) return content as Block[];
  return null;
}

/** Deno's and the SDKs' names of the platform (the SDKs' `X-Stainless-*` headers). */
function platformHeaders(version: string): Record<string, string> {
  const arch = Deno.build.arch as string;
  const os = Deno.build.os.toLowerCase();
  return {
    "x-stainless-lang": "js",
    "x-stainless-package-version": version,
    "x-stainless-os": os === "darwin"
      ? "MacOS"
      : os === "linux"
      ? "Linux"
      : os === "windows"
      ? "Other:windows"
      : os === "freebsd"
      ? "FreeBSD"
      : os === "openbsd"
      ? "OpenBSD"
      : os === "android"
      ? "Android"
      : `Other:${os}`,
    "x-stainless-arch": arch === "x86_64"
      ? "x64"
      : arch === "aarch64"
      ? "arm64"
      : `other:${arch}`,
    "x-stainless-runtime": "deno",
    "x-stainless-runtime-version": Deno.version.deno,
  };
}

/** `base` + `path`, joined as the SDKs join them. */
function joinUrl(base: string, path: string): string {
  return base + (base.endsWith("/") ? path.slice(1) : path);
}

/** Where the first request of `config`'s session goes (its model's API, at its base URL). */
export function firstRequestUrl(config: Config): string {
  const id = parseModelId(config.model!);
  return "provider" in id && id.provider === "anthropic"
    ? joinUrl(config.baseUrl ?? "https://api.anthropic.com", "/v1/messages")
    : joinUrl(
      config.baseUrl ?? "https://api.openai.com/v1",
      "/chat/completions",
    );
}

/**
 * The proxy variable set in `env`, or null: `fetch` honours them, and the
 * early request then goes through `fetch` too (not over a connection of
 * its own, which would not).
 */
export function proxyVariable(
  env: { toObject(): Record<string, string> },
): string | null {
  return Object.keys(env.toObject()).find((name) =>
    /^(https?|all)_proxy$/i.test(name)
  ) ?? null;
}

/**
 * How an early request goes out: over a connection of its own
 * (`_http1.ts`: no `fetch` machinery loads before it is written), or
 * through a `fetch` (the global one where a proxy is set).
 */
export type Transport = typeof fetch | { connection: Promise<Deno.Conn> };

/**
 * The first request of `config`'s session for the user message `content`,
 * offering `names` (the tools `system/init` announced), as the SDK would
 * send it. Call only when {@linkcode earlyRequestBlocker} is null.
 */
export function firstRequestWire(
  config: Config,
  names: readonly string[],
  content: string | Block[],
): Wire {
  const id = parseModelId(config.model!) as {
    provider: "anthropic" | "openai";
    name: string;
  };
  const mode = config.permissionMode
    ? permissionSettings(config.permissionMode).mode
    : config.mode;
  const dir = shownDir(config.workspace, config.outputDir);
  const offered = new Set(names);
  const tools = (SCHEMAS as unknown as Record<string, SchemaEntry[]>)[
    config.toolset
  ].filter((t) => offered.has(t.name));
  const request = modelRequest({
    config,
    mode,
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description.replaceAll("{{output_dir}}", dir),
      input_schema: t.input_schema,
    })),
    taskTrackers: tools.filter((t) => t.emits.includes("task_list_changed"))
      .map((t) => t.name),
  }, [{ role: "user", content }]);
  const key = config.apiKey!.reveal();
  const version = SDK_VERSIONS[id.provider];
  const url = firstRequestUrl(config);
  if (id.provider === "anthropic") {
    return {
      url,
      headers: {
        "accept": "application/json",
        "user-agent": `Anthropic/JS ${version}`,
        "x-stainless-retry-count": "0",
        "x-stainless-timeout": "600",
        ...platformHeaders(version),
        "anthropic-version": ANTHROPIC_VERSION,
        "authorization": `Bearer ${key}`,
        "content-type": "application/json",
        "x-stainless-helper-method": "stream",
      },
      body: JSON.stringify({
        ...messagesParams(id.name, request),
        stream: true,
      }),
    };
  }
  return {
    url,
    headers: {
      "accept": "application/json",
      "user-agent": `OpenAI/JS ${version}`,
      "x-stainless-retry-count": "0",
      ...platformHeaders(version),
      "x-stainless-helper-method": "stream",
      "authorization": `Bearer ${key}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(chatParams(id.name, request)),
  };
}

/** What differs between two header sets, named, or null when they are the same. */
function headersDiffer(
  a: HeadersInit | undefined,
  b: HeadersInit,
): string | null {
  const left = new Headers(a);
  const right = new Headers(b);
  for (const [name, value] of left) {
    if (right.get(name) !== value) return `header ${name}`;
  }
  for (const [name] of right) {
    if (!left.has(name)) return `header ${name}`;
  }
  return null;
}

/**
 * A model request sent before the session loaded, waiting for the SDK to
 * take its response over. Guarantees: the response goes to the SDK only
 * for a request equal to the one sent (URL, method, body, headers), and
 * at most once; a request that is never taken over is aborted
 * ({@linkcode EarlyRequest.discard}), and so is one taken over whose
 * SDK request aborts (an interrupt, the SDK's timeout).
 */
export class EarlyRequest {
  /** The request sent. */
  readonly wire: Wire;
  #controller = new AbortController();
  #response: () => Promise<Response>;
  #responded: Promise<void>;
  #settled = false;

  /**
   * Sends `wire` now, by `transport`: over a connection of its own to the
   * URL's host (opened now unless given), or with a `fetch`.
   */
  constructor(wire: Wire, transport?: Transport) {
    this.wire = wire;
    const signal = this.#controller.signal;
    if (typeof transport === "function") {
      const response = transport(wire.url, {
        method: "POST",
        headers: wire.headers,
        body: wire.body,
        signal,
      });
      // Whoever takes it over sees a failure; left alone, it is no error.
      response.catch(() => {});
      this.#response = () => response;
      this.#responded = response.then(() => {}, () => {});
    } else {
      const url = new URL(wire.url);
      const post = new Http1Post(
        transport?.connection ?? connectTo(url),
        url,
        wire.headers,
        wire.body,
        signal,
      );
      this.#response = () => post.response();
      this.#responded = post.head.then(() => {}, () => {});
    }
  }

  /**
   * The response, when `input` and `init` are the request sent and it was
   * not taken over before; else null, and a request sent but differing is
   * aborted, with a line on stderr saying what differed.
   */
  claim(
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> | null {
    if (this.#settled) return null;
    this.#settled = true;
    const url = typeof input === "string"
      ? input
      : input instanceof URL
      ? input.href
      : input.url;
    const differs = url !== this.wire.url
      ? "URL"
      : (init?.method ?? "GET") !== "POST"
      ? "method"
      : init?.body !== this.wire.body
      ? "body"
      : headersDiffer(init?.headers, this.wire.headers);
    if (differs) {
      this.#controller.abort();
      console.error(
        `wave: the early first request differed from the SDK's (${differs}); the SDK's was sent`,
      );
      return null;
    }
    const signal = init?.signal;
    if (signal?.aborted) this.#controller.abort(signal.reason);
    signal?.addEventListener(
      "abort",
      () => this.#controller.abort(signal.reason),
      { once: true },
    );
    return this.#response();
  }

  /** Settles once the response's headers came, or the request failed. */
  get responded(): Promise<void> {
    return this.#responded;
  }

  /** Whether the SDK took the response over. */
  get claimed(): boolean {
    return this.#settled && !this.#controller.signal.aborted;
  }

  /** Aborts the request unless the SDK took it over; later claims get null. */
  discard(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#controller.abort();
  }

  /**
   * A `fetch` whose first call may take this response over; every other
   * call is `real`'s. An early request that failed before its response
   * began (its own connection refused or reset, its TLS, a malformed head)
   * is wave's failure, not the API's: that call then goes out through
   * `real` at once, not after the SDK's retry backoff; an abort by the
   * caller stays an abort.
   */
  fetchFor(real: typeof fetch = fetch): typeof fetch {
    return (input, init) => {
      const early = this.claim(input, init);
      if (!early) return real(input, init);
      return early.catch((error) => {
        if (init?.signal?.aborted) throw error;
        console.error(
          `wave: the early first request failed (${
            error instanceof Error ? error.message : String(error)
          }); the SDK's was sent`,
        );
        return real(input, init);
      });
    };
  }
}

/**
 * How long the connection {@linkcode sendEarly} opens before the first
 * line is used for its request: servers close idle connections, some
 * within seconds; a line that comes later goes over a new one.
 */
export const PRECONNECTION_FRESH_MS = 1000;

/** What {@linkcode sendEarly} gives the session. */
export interface EarlySend {
  /** Settles once the first line was read (or stdin ended, or the line was too long). */
  lineRead: Promise<void>;
  /** The early request, once sent; undefined when the first line was not a user message. */
  request: Promise<EarlyRequest | undefined>;
}

/**
 * When the first line `peeked` reads is a user message, sends its model
 * request at once. Call only when {@linkcode earlyRequestBlocker} is null;
 * `names` are the tools `system/init` announced. Without `send`, the
 * connection to the model's host opens now, while the line is on its way
 * (an http or https URL; closed when the line is not a user message, and
 * replaced by a new one when the line comes after `freshForMs`).
 */
export function sendEarly(
  config: Config,
  names: readonly string[],
  peeked: Promise<PeekedStream>,
  send?: typeof fetch,
  freshForMs: number = PRECONNECTION_FRESH_MS,
): EarlySend {
  let transport: Transport = send ?? fetch;
  let url: URL | undefined;
  const opened = performance.now();
  if (!send) {
    url = new URL(firstRequestUrl(config));
    if (url.protocol === "http:" || url.protocol === "https:") {
      transport = { connection: connectTo(url) };
    }
  }
  const request = peeked.then((p) => {
    const content = p.line === null ? null : userContent(p.line);
    if (typeof transport !== "function") {
      // Not used: closed. And a connection left idle for long may be
      // closed by the server as the request goes out: a later line goes
      // over a new one.
      const stale = performance.now() - opened > freshForMs;
      if (content === null || stale) {
        transport.connection.then((c) => c.close()).catch(() => {});
      }
      if (content !== null && stale) {
        transport = { connection: connectTo(url!) };
      }
    }
    if (content === null) return undefined;
    return new EarlyRequest(
      firstRequestWire(config, names, content),
      transport,
    );
  }).catch(() => undefined);
  return { lineRead: peeked.then(() => {}, () => {}), request };
}

/** Every byte of the stream `peeked` reads, the first line's included, once it has. */
export function streamOf(
  peeked: Promise<PeekedStream>,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= (await peeked).stream.getReader();
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await (reader ?? (await peeked).stream).cancel(reason);
    },
  });
}

/**
 * Loads what a first `fetch` loads (Deno's request and header classes,
 * some milliseconds), while the first line is on its way: its request
 * then goes out that much sooner.
 */
export function warmFetch(): void {
  new Request("http://127.0.0.1/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
    signal: new AbortController().signal,
  });
}
