/**
 * The protocol writer: every line wave writes to stdout goes through one
 * {@linkcode ProtocolWriter}, so lines are whole, in order, JSON, carry
 * `session_id`, and are messages `outbound.ts` declares.
 *
 * @module
 */

import type { Outbound } from "./outbound.ts";

/** Where protocol lines go (stdout in the binary, a buffer in tests). */
export interface LineSink {
  /** Writes some of `bytes` (as `Deno.stdout.write`): resolves with how many. */
  write(bytes: Uint8Array): Promise<number>;
}

/**
 * Serializes messages to JSON lines and writes them in order.
 *
 * Lines queued in the same tick are written together, which keeps pipelined
 * throughput high without reordering. If the sink fails (the parent closed
 * the pipe), later lines are dropped and `onClosed` runs once.
 */
export class ProtocolWriter {
  #sink: LineSink;
  #sessionId: string;
  #pending: string[] = [];
  #flushing: Promise<void> | null = null;
  #closed = false;
  #encoder = new TextEncoder();
  onClosed: (error: unknown) => void = () => {};

  constructor(sink: LineSink, sessionId: string) {
    this.#sink = sink;
    this.#sessionId = sessionId;
  }

  /** Queues one message; `session_id` is added after `type` (and `subtype`). */
  send(message: Outbound): void {
    if (this.#closed) return;
    const { type, subtype, ...rest } = message as Outbound & {
      subtype?: string;
    };
    const line = JSON.stringify(
      subtype === undefined
        ? { type, ...rest, session_id: this.#sessionId }
        : { type, subtype, ...rest, session_id: this.#sessionId },
    );
    this.#pending.push(line + "\n");
    this.#flushing ??= this.#flush();
  }

  /** Resolves when every queued line has been written (or dropped). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    try {
      while (this.#pending.length > 0 && !this.#closed) {
        // Let the rest of this tick queue its lines first.
        await Promise.resolve();
        const bytes = this.#encoder.encode(this.#pending.join(""));
        this.#pending = [];
        let offset = 0;
        while (offset < bytes.length) {
          offset += await this.#sink.write(bytes.subarray(offset));
        }
      }
    } catch (error) {
      this.#closed = true;
      this.#pending = [];
      this.onClosed(error);
    } finally {
      this.#flushing = null;
    }
  }
}
