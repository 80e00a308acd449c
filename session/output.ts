/**
 * The protocol writer: every line wave writes to stdout goes through one
 * {@linkcode ProtocolWriter}, so lines are whole, in order, JSON, carry
 * `session_id`, and are messages `outbound.ts` declares.
 *
 * @module
 */

import type { Outbound } from "./outbound.ts";

/**
 * Where a session's messages go as typed values: the stream-json writer
 * ({@linkcode ProtocolWriter}) writes them as lines; another front (`wave
 * acp`) renders them in its own protocol. The agent loop and the user
 * turns write only through this.
 */
export interface MessageSink {
  /** Takes one message; never throws. */
  send(message: Outbound): void;
  /**
   * Takes the text of the model's reply as it streams, piece by piece
   * (optional: a front that shows replies as they come). The `assistant`
   * message with the whole reply follows; never throws.
   */
  textDelta?(text: string): void;
  /**
   * Takes each raw event of the model's reply stream (optional: the
   * stream-json writer under `--include-partial-messages`, which writes
   * them as `stream_event`); never throws.
   */
  streamEvent?(event: { type: string }): void;
}

/** Where protocol lines go (stdout in the binary, a buffer in tests). */
export interface LineSink {
  /** Writes some of `bytes` (as `Deno.stdout.write`): resolves with how many. */
  write(bytes: Uint8Array): Promise<number>;
}

/**
 * Above this many bytes waiting for the parent to read them, stdout is
 * congested: wave stops reading input and drops tool progress (docs/protocol.md
 * "Transport"). 16 MiB is far more than a parent that reads as it goes ever
 * leaves waiting (pipelined calls keep a few KiB queued), larger than any
 * single line wave normally writes (a result's text is at most about 30 k
 * characters a stream, progress events 64 Ki characters), and small next to
 * the memory a session needs anyway; it only has to keep a parent that does
 * not read from making wave buffer without limit.
 */
export const HIGH_WATER_BYTES = 16 * 1024 * 1024;
/** Below this many bytes waiting, stdout is no longer congested. */
export const LOW_WATER_BYTES = 8 * 1024 * 1024;
/** The most bytes of queued lines joined into one write (a longer line goes alone). */
export const WRITE_CHUNK_BYTES = 1024 * 1024;
/** The longest wait between two attempts at a write that failed (not a broken pipe). */
const MAX_RETRY_MS = 1000;
/** How long a task after the next write waits for a line to be queued (see `ProtocolWriter.afterNextWrite`). */
export const AFTER_WRITE_WAIT_MS = 20;

/** Runs each task; one that throws is logged and does not stop the others. */
function runAll(tasks: (() => void)[]): void {
  for (const task of tasks) {
    try {
      task();
    } catch (error) {
      console.error("wave: a task after a write failed:", error);
    }
  }
}

/** Options of {@linkcode ProtocolWriter}: the congestion marks, in bytes. */
export interface WriterLimits {
  /** Congested above this (default {@linkcode HIGH_WATER_BYTES}). */
  highWaterBytes?: number;
  /** Congested until below this (default {@linkcode LOW_WATER_BYTES}). */
  lowWaterBytes?: number;
  /** How long a task after the next write waits for a line to be queued (default {@linkcode AFTER_WRITE_WAIT_MS}). */
  afterWriteWaitMs?: number;
}

/** What a {@linkcode ProtocolWriter} holds, for watching it (tests, metrics). */
export interface OutputQueueView {
  /** Bytes sent and not yet written to stdout. */
  readonly queuedBytes: number;
  /** The most bytes that were ever waiting at once. */
  readonly peakQueuedBytes: number;
  /** Whether more than the high-water mark is waiting (see {@linkcode ProtocolWriter.congested}). */
  readonly congested: boolean;
}

/**
 * Whether `error`, from the sink's write, means the parent closed its end:
 * a broken pipe (EPIPE), a reset connection, or a stream that was closed.
 */
export function isBrokenPipe(error: unknown): boolean {
  return error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.BadResource ||
    (error as { code?: unknown } | null)?.code === "EPIPE";
}

/**
 * Serializes messages to JSON lines and writes them in order.
 *
 * Lines queued in the same tick are written together (at most
 * {@linkcode WRITE_CHUNK_BYTES} a write), which keeps pipelined throughput
 * high without reordering. Every line sent is kept until it is written:
 * the writer never drops one because of its own failure. When the sink
 * fails with a broken pipe (the parent closed it), later lines are dropped
 * and `onClosed` runs once; any other failure is reported to
 * `onWriteError` and the write is tried again, with a growing pause.
 *
 * The writer does not limit what it keeps; it says when it holds more than
 * the high-water mark ({@linkcode congested}) so that its users stop
 * producing what they can (input is not read, progress is dropped).
 */
export class ProtocolWriter implements OutputQueueView, MessageSink {
  #sink: LineSink;
  #sessionId: string;
  #highWater: number;
  #lowWater: number;
  /** Encoded lines not yet handed to the sink; `#head` is the first one. */
  #queue: Uint8Array[] = [];
  #head = 0;
  #queuedBytes = 0;
  #peakQueuedBytes = 0;
  #congested = false;
  #relieved: (() => void)[] = [];
  #flushing: Promise<void> | null = null;
  #closed = false;
  #encoder = new TextEncoder();
  /** Tasks waiting for the next flush to start ({@linkcode afterNextWrite}). */
  #afterWrite: (() => void)[] = [];
  /** Runs them if no flush has started meanwhile. */
  #afterWriteTimer: ReturnType<typeof setTimeout> | undefined;
  #afterWriteWaitMs: number;
  /** Set under `--include-partial-messages`: writes each stream event as `stream_event`. */
  streamEvent?: (event: { type: string }) => void;
  /** Runs once when the sink reports a broken pipe. */
  onClosed: (error: unknown) => void = () => {};
  /** Runs when a write fails for another reason (it is tried again). */
  onWriteError: (error: unknown) => void = (error) =>
    console.error("wave: writing to stdout failed; trying again:", error);

  constructor(sink: LineSink, sessionId: string, limits: WriterLimits = {}) {
    this.#sink = sink;
    this.#sessionId = sessionId;
    this.#highWater = limits.highWaterBytes ?? HIGH_WATER_BYTES;
    this.#lowWater = Math.min(
      limits.lowWaterBytes ?? LOW_WATER_BYTES,
      this.#highWater,
    );
    this.#afterWriteWaitMs = limits.afterWriteWaitMs ?? AFTER_WRITE_WAIT_MS;
  }

  /** Bytes sent and not yet written to the sink. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** The most bytes that were ever waiting at once. */
  get peakQueuedBytes(): number {
    return this.#peakQueuedBytes;
  }

  /**
   * True from when more than the high-water mark is waiting until less than
   * the low-water mark is (or the pipe broke).
   */
  get congested(): boolean {
    return this.#congested;
  }

  /** Resolves when the writer is not {@linkcode congested}. */
  uncongested(): Promise<void> {
    if (!this.#congested) return Promise.resolve();
    return new Promise((resolve) => this.#relieved.push(resolve));
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
    const bytes = this.#encoder.encode(line + "\n");
    this.#queue.push(bytes);
    this.#queuedBytes += bytes.length;
    if (this.#queuedBytes > this.#peakQueuedBytes) {
      this.#peakQueuedBytes = this.#queuedBytes;
    }
    if (this.#queuedBytes > this.#highWater) this.#congested = true;
    this.#flushing ??= this.#flush();
  }

  /**
   * Runs `task` once the lines queued next (from now: not those being
   * written) have been written and nothing else waits (or the pipe broke):
   * for work that must not delay what wave is about to write, such as a
   * call's answer (the next command's process, a sweep). If nothing is
   * queued within {@linkcode AFTER_WRITE_WAIT_MS}, it runs then. Each task
   * runs once; one that throws is logged and does not stop the others.
   */
  afterNextWrite(task: () => void): void {
    this.#afterWrite.push(task);
    this.#afterWriteTimer ??= setTimeout(() => {
      this.#afterWriteTimer = undefined;
      runAll(this.#takeAfterWrite());
    }, this.#afterWriteWaitMs);
  }

  /** The tasks waiting for the next flush, which is this one. */
  #takeAfterWrite(): (() => void)[] {
    const tasks = this.#afterWrite;
    this.#afterWrite = [];
    clearTimeout(this.#afterWriteTimer);
    this.#afterWriteTimer = undefined;
    return tasks;
  }

  /** Resolves when every queued line has been written (or the pipe broke). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    // The tasks waiting for the lines this flush writes.
    const after = this.#takeAfterWrite();
    try {
      while (this.#head < this.#queue.length && !this.#closed) {
        // Let the rest of this tick queue its lines first.
        await Promise.resolve();
        const chunk = this.#nextChunk();
        let offset = 0;
        let failures = 0;
        while (offset < chunk.length && !this.#closed) {
          let written: number;
          try {
            written = await this.#sink.write(chunk.subarray(offset));
          } catch (error) {
            if (isBrokenPipe(error)) return this.#close(error);
            if (failures++ === 0) this.onWriteError(error);
            await new Promise((resolve) =>
              setTimeout(resolve, Math.min(MAX_RETRY_MS, 10 * 2 ** failures))
            );
            continue;
          }
          failures = 0;
          offset += written;
          this.#wrote(written);
        }
      }
    } finally {
      this.#flushing = null;
      runAll(after);
    }
  }

  /** Takes the next lines off the queue, joined up to the chunk size. */
  #nextChunk(): Uint8Array {
    const first = this.#queue[this.#head++];
    let size = first.length;
    let end = this.#head;
    while (
      end < this.#queue.length &&
      size + this.#queue[end].length <= WRITE_CHUNK_BYTES
    ) {
      size += this.#queue[end++].length;
    }
    let chunk = first;
    if (end > this.#head) {
      chunk = new Uint8Array(size);
      chunk.set(first);
      let at = first.length;
      for (let i = this.#head; i < end; i++) {
        chunk.set(this.#queue[i], at);
        at += this.#queue[i].length;
      }
      this.#head = end;
    }
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return chunk;
  }

  #wrote(bytes: number): void {
    this.#queuedBytes -= bytes;
    if (this.#congested && this.#queuedBytes < this.#lowWater) {
      this.#relieve();
    }
  }

  #relieve(): void {
    this.#congested = false;
    const waiting = this.#relieved;
    this.#relieved = [];
    for (const resolve of waiting) resolve();
  }

  #close(error: unknown): void {
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
    this.#relieve();
    this.onClosed(error);
  }
}
