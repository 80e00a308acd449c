/**
 * MCP's stdio transport over a session's streams: one JSON-RPC message a
 * line each way (the MCP spec's "stdio" transport), with wave's line reader
 * (UTF-8 checked, `--max-line-bytes`) on the way in.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { readLines } from "../../session/line_reader.ts";
import type { SessionIO } from "../../session/server.ts";

/** JSON-RPC's code for a message that is not JSON, or not JSON-RPC. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * A transport over `io`. A line that is not a JSON-RPC message is answered
 * with a JSON-RPC error (`id: null`) naming the line, and reading goes on.
 * {@linkcode ended} resolves when the input ends (or {@linkcode close}).
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #io: SessionIO;
  #maxLineBytes: number;
  #writing: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();
  #closed = false;
  #closing: Promise<void> | undefined;
  #ended: Promise<void> | undefined;
  #answered: string | number | undefined;
  /** The ids of the requests read and not yet answered. */
  #unanswered = new Set<string | number>();
  /** Who waits for the last unanswered request's answer. */
  #waiting: (() => void)[] = [];

  /**
   * Reads and writes `io`; input lines longer than `maxLineBytes` are
   * refused. `answered`: the id of an `initialize` already answered
   * (`early.ts`), whose second answer is not written.
   */
  constructor(
    io: SessionIO,
    maxLineBytes: number,
    answered?: string | number,
  ) {
    this.#io = io;
    this.#maxLineBytes = maxLineBytes;
    this.#answered = answered;
  }

  /**
   * Resolves once every request read so far has its answer (at once when
   * none waits), or the transport closed.
   */
  get answered(): Promise<void> {
    if (this.#unanswered.size === 0 || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Resolves once the input ended (EOF) or the transport was closed. */
  get ended(): Promise<void> {
    return this.#ended ?? Promise.resolve();
  }

  start(): Promise<void> {
    const ended = Promise.withResolvers<void>();
    this.#ended = ended.promise;
    this.#read(ended.resolve);
    return Promise.resolve();
  }

  /**
   * Reads every line; at the end of the input (`inputEnded` is called
   * then) the transport closes once each request read has its answer:
   * a client that writes its requests and closes its end gets every
   * answer.
   */
  async #read(inputEnded: () => void): Promise<void> {
    try {
      for await (const item of readLines(this.#io.stdin, this.#maxLineBytes)) {
        if (this.#closed) break;
        if ("error" in item) {
          this.#reject(PARSE_ERROR, item.message);
          continue;
        }
        let json: unknown;
        try {
          json = JSON.parse(item.text);
        } catch (error) {
          this.#reject(
            PARSE_ERROR,
            `line ${item.line} is not JSON: ${(error as Error).message}`,
          );
          continue;
        }
        const parsed = JSONRPCMessageSchema.safeParse(json);
        if (!parsed.success) {
          this.#reject(
            INVALID_REQUEST,
            `line ${item.line} is not a JSON-RPC 2.0 message`,
          );
          continue;
        }
        const message = parsed.data as Record<string, unknown>;
        if ("method" in message && "id" in message) {
          const id = message.id as string | number;
          if (this.#unanswered.has(id)) {
            // Its answer could not be told from the other's.
            this.#write({
              jsonrpc: "2.0",
              id,
              error: {
                code: INVALID_REQUEST,
                message: `request id ${
                  JSON.stringify(id)
                } is already in flight: ids must be unique among the requests awaiting an answer; this one was not run`,
              },
            } as never).catch(() => {});
            continue;
          }
          this.#unanswered.add(id);
        } else if (message.method === "notifications/cancelled") {
          // A cancelled request gets no answer.
          this.#answer(
            (message.params as { requestId?: string | number })?.requestId,
          );
        }
        this.onmessage?.(parsed.data);
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    inputEnded();
    await this.answered;
    await this.close();
  }

  /** Notes that request `id` was answered (or needs no answer now). */
  #answer(id: string | number | null | undefined): void {
    if (id === null || id === undefined) return;
    this.#unanswered.delete(id);
    if (this.#unanswered.size === 0) this.#wake();
  }

  #reject(code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id: null, error: { code, message } } as never)
      .catch(() => {});
  }

  #wake(): void {
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /** Writes `message` as one line, after every line sent before it. */
  send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && !("method" in message)) this.#answer(message.id);
    if (
      this.#answered !== undefined && "id" in message &&
      message.id === this.#answered && !("method" in message)
    ) {
      this.#answered = undefined;
      return this.#writing;
    }
    return this.#write(message);
  }

  /** Writes one line, after every line before it; nothing is marked answered. */
  #write(message: JSONRPCMessage): Promise<void> {
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    this.#writing = this.#writing.then(async () => {
      let offset = 0;
      while (offset < bytes.length) {
        offset += await this.#io.stdout.write(bytes.subarray(offset));
      }
    });
    return this.#writing;
  }

  /**
   * Stops reading; lines already sent are still written, and every call
   * (also a second one, while the first still writes) resolves only once
   * they are: whoever closes may exit the process next.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      this.#wake();
      await this.#writing.catch(() => {});
      this.onclose?.();
    })();
    return this.#closing;
  }
}
