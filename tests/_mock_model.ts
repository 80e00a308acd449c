/**
 * A mock model server on 127.0.0.1 that speaks the real wire formats: SSE
 * streams of the Anthropic Messages API (`POST /v1/messages`) and OpenAI
 * Chat Completions (`POST /v1/chat/completions`). Tests script its replies,
 * failures included, and read back every request it received.
 *
 * @module
 */

/** One block of a scripted reply. */
export type MockBlock =
  | { type: "text"; text: string }
  /** Extended thinking (Anthropic only): streamed as thinking and signature deltas. */
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id?: string; name: string; input: unknown };

/** What the server does for one request. */
export type MockStep =
  | {
    reply: MockBlock[];
    stop?: string;
    usage?: { input: number; output: number };
  }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Streams the first `events` events of `reply`, then drops the connection. */
  | { cut: MockBlock[]; events: number }
  /** Streams the first `events` events of `reply`, then waits (for interrupts). */
  | { hang: MockBlock[]; events: number };

/** A scripted reply that calls one tool. */
export function callStep(id: string, name: string, input: unknown): MockStep {
  return { reply: [{ type: "tool_use", id, name, input }] };
}

/** A scripted reply of text alone (the turn ends). */
export function textStep(text: string): MockStep {
  return { reply: [{ type: "text", text }] };
}

/** A running mock server. */
export class MockModel {
  readonly requests: {
    path: string;
    body: Record<string, unknown>;
    /** The body's bytes as they came, as text. */
    text: string;
    headers: Headers;
    /** The client's port: which connection the request came on. */
    remotePort: number;
  }[] = [];
  readonly #steps: MockStep[] = [];
  readonly #server: Deno.HttpServer;
  #nextId = 1;
  #hung: (() => void)[] = [];
  #hanging = Promise.withResolvers<void>();

  constructor() {
    this.#server = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        onListen: () => {},
      },
      (req, info) => this.#handle(req, (info.remoteAddr as Deno.NetAddr).port),
    );
  }

  /** The server's base URL (Anthropic style: the SDK appends /v1/messages). */
  get url(): string {
    const addr = this.#server.addr as Deno.NetAddr;
    return `http://127.0.0.1:${addr.port}`;
  }

  /** Queues steps; each request takes the next one. */
  script(...steps: MockStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  /** How many scripted steps are left. */
  get remaining(): number {
    return this.#steps.length;
  }

  /**
   * Resolves once a `hang` step has streamed its events and holds the
   * stream open: the turn is then mid-stream, waiting on the model.
   */
  get hanging(): Promise<void> {
    return this.#hanging.promise;
  }

  /** Releases every held stream and stops the server. */
  async close(): Promise<void> {
    for (const release of this.#hung) release();
    await this.#server.shutdown();
  }

  async #handle(req: Request, remotePort: number): Promise<Response> {
    const path = new URL(req.url).pathname;
    const text = await req.text();
    const body = JSON.parse(text);
    this.requests.push({ path, body, text, headers: req.headers, remotePort });
    const step = this.#steps.shift();
    if (!step) {
      return Response.json({
        error: { type: "mock", message: "no scripted reply left" },
      }, { status: 500 });
    }
    if ("status" in step) {
      return Response.json(
        step.body ??
          {
            type: "error",
            error: { type: "rate_limit_error", message: "slow down" },
          },
        {
          status: step.status,
          headers: step.headers,
        },
      );
    }
    const openai = path.endsWith("/chat/completions");
    const blocks = "reply" in step
      ? step.reply
      : "cut" in step
      ? step.cut
      : step.hang;
    const model = String(body.model);
    const events = openai
      ? openaiEvents(
        blocks,
        model,
        "reply" in step ? step : undefined,
        this.#nextId++,
      )
      : anthropicEvents(
        blocks,
        model,
        "reply" in step ? step : undefined,
        this.#nextId++,
      );
    const limit = "reply" in step ? events.length : step.events;
    const hang = "hang" in step;
    const encoder = new TextEncoder();
    let release!: () => void;
    const released = new Promise<void>((r) => release = r);
    if (hang) this.#hung.push(release);
    const stream = new ReadableStream<Uint8Array>({
      start: async (controller) => {
        try {
          for (const event of events.slice(0, limit)) {
            // Split each event across two network writes, as proxies do.
            const bytes = encoder.encode(event);
            const mid = Math.floor(bytes.length / 2);
            controller.enqueue(bytes.subarray(0, mid));
            await new Promise((r) => setTimeout(r, 1));
            controller.enqueue(bytes.subarray(mid));
          }
          if (hang) {
            this.#hanging.resolve();
            await released;
            controller.close();
          } else if (limit < events.length) {
            controller.error(new Error("connection dropped"));
          } else controller.close();
        } catch {
          // The client went away.
        }
      },
    });
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
      },
    });
  }
}

function sse(event: string | null, data: unknown): string {
  const json = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${json}\n\n`;
}

/** Splits a string into pieces of about `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

function anthropicEvents(
  blocks: MockBlock[],
  model: string,
  step:
    | { stop?: string; usage?: { input: number; output: number } }
    | undefined,
  n: number,
): string[] {
  const hasTools = blocks.some((b) => b.type === "tool_use");
  const usage = step?.usage ?? { input: 100, output: 20 };
  const events = [
    sse("message_start", {
      type: "message_start",
      message: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    }),
    sse("ping", { type: "ping" }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push(
        sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "" },
        }),
      );
      for (const piece of pieces(block.text, 7)) {
        events.push(
          sse("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: piece },
          }),
        );
      }
    } else if (block.type === "thinking") {
      events.push(
        sse("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
      );
      for (const piece of pieces(block.thinking, 7)) {
        events.push(sse("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "thinking_delta", thinking: piece },
        }));
      }
      events.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: block.signature },
      }));
    } else {
      const id = block.id ?? `toolu_mock_${n}_${index}`;
      events.push(sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name: block.name, input: {} },
      }));
      // The input's JSON arrives in fragments that split keys and strings.
      for (const piece of pieces(JSON.stringify(block.input), 5)) {
        events.push(sse("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }));
      }
    }
    events.push(
      sse("content_block_stop", { type: "content_block_stop", index }),
    );
  });
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: {
        stop_reason: step?.stop ?? (hasTools ? "tool_use" : "end_turn"),
        stop_sequence: null,
      },
      usage: { output_tokens: usage.output },
    }),
    sse("message_stop", { type: "message_stop" }),
  );
  return events;
}

function openaiEvents(
  blocks: MockBlock[],
  model: string,
  step:
    | { stop?: string; usage?: { input: number; output: number } }
    | undefined,
  n: number,
): string[] {
  const id = `chatcmpl-${n}`;
  const base = {
    id,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse(null, {
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const events = [chunk({ role: "assistant", content: "" })];
  for (const block of blocks.filter((b) => b.type === "text")) {
    for (const piece of pieces((block as { text: string }).text, 7)) {
      events.push(chunk({ content: piece }));
    }
  }
  blocks.filter((b) => b.type === "tool_use").forEach((b, index) => {
    const block = b as { id?: string; name: string; input: unknown };
    events.push(chunk({
      tool_calls: [{
        index,
        id: block.id ?? `call_mock_${n}_${index}`,
        type: "function",
        function: { name: block.name, arguments: "" },
      }],
    }));
    for (const piece of pieces(JSON.stringify(block.input), 5)) {
      events.push(
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] }),
      );
    }
  });
  const hasTools = blocks.some((b) => b.type === "tool_use");
  const usage = step?.usage ?? { input: 100, output: 20 };
  events.push(chunk({}, step?.stop ?? (hasTools ? "tool_calls" : "stop")));
  events.push(sse(null, {
    ...base,
    choices: [],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  }));
  events.push("data: [DONE]\n\n");
  return events;
}

/** The model key the end-to-end tests give wave (a test may look for it in output). */
export const MOCK_KEY = "sk-test-secret-key-0123456789";

/**
 * What a wave whose model is `mock`, reached through `provider`'s API,
 * is started with: `--model` and `--base-url` (then `extra` flags), and
 * both providers' keys ({@linkcode MOCK_KEY}) and PATH in its environment.
 */
export function mockModelSession(
  provider: "anthropic" | "openai",
  mock: MockModel,
  extra: readonly string[] = [],
): { args: string[]; env: Record<string, string> } {
  return {
    args: [
      "--model",
      `${provider}:test-model`,
      "--base-url",
      provider === "openai" ? `${mock.url}/v1` : mock.url,
      ...extra,
    ],
    env: {
      ANTHROPIC_API_KEY: MOCK_KEY,
      OPENAI_API_KEY: MOCK_KEY,
      PATH: Deno.env.get("PATH")!,
    },
  };
}
