/**
 * Capturing a command's output with flat memory: the model sees the head
 * and the tail, the parent sees it stream by (throttled), and every byte
 * goes to a spill file once the output is longer than the model's view.
 *
 * @module
 */

import { SpillFile } from "./spill.ts";

/** The most characters of output a model sees (head and tail together). */
export const MAX_VIEW_CHARS = 30_000;
/** The most output streamed to the parent as progress; after that, one notice. */
export const MAX_PROGRESS_BYTES = 1024 * 1024;
/** How often progress is flushed, at most. */
const PROGRESS_INTERVAL_MS = 100;
/** The largest progress event. */
const PROGRESS_EVENT_CHARS = 64 * 1024;

/** The first and last bytes of a stream, and how many there were. */
export class HeadTail {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: Uint8Array[] = [];
  #headSize = 0;
  #tail: Uint8Array[] = [];
  #tailSize = 0;
  total = 0;

  constructor(limit: number) {
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.#headSize < this.#headLimit) {
      const take = Math.min(rest.length, this.#headLimit - this.#headSize);
      this.#head.push(rest.slice(0, take));
      this.#headSize += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest.slice(Math.max(0, rest.length - this.#tailLimit)));
    this.#tailSize += Math.min(rest.length, this.#tailLimit);
    while (this.#tailSize - this.#tail[0].length >= this.#tailLimit) {
      this.#tailSize -= this.#tail.shift()!.length;
    }
  }

  /** Whether bytes were left out between head and tail. */
  get cut(): boolean {
    return this.total >
      this.#headSize + Math.min(this.#tailSize, this.#tailLimit);
  }

  /** The text: head, a line saying what was left out, tail. */
  /**
   * The text: all of it when it fits `budget` bytes, else head, a line
   * saying what was left out, and tail, each half the budget.
   */
  text(
    note: (omitted: number) => string,
    budget = this.#headLimit + this.#tailLimit,
  ): string {
    let head = joinBytes(this.#head);
    let tail = joinBytes(this.#tail);
    if (tail.length > this.#tailLimit) {
      tail = tail.subarray(tail.length - this.#tailLimit);
    }
    if (!this.cut && this.total <= budget) {
      return decode(joinBytes([head, tail]));
    }
    if (!this.cut) {
      // Everything is here but more than the budget: cut it the same way.
      const all = joinBytes([head, tail]);
      head = all.subarray(0, Math.floor(budget / 2));
      tail = all.subarray(all.length - (budget - head.length));
    } else if (budget < this.#headLimit + this.#tailLimit) {
      head = head.subarray(0, Math.floor(budget / 2));
      tail = tail.subarray(Math.max(0, tail.length - (budget - head.length)));
    }

    // Start the tail on a character boundary (skip UTF-8 continuation bytes).
    let start = 0;
    while (start < tail.length && start < 4 && (tail[start] & 0xc0) === 0x80) {
      start++;
    }
    const omitted = this.total - head.length - (tail.length - start);
    return `${decode(head, true)}\n${note(omitted)}\n${
      decode(tail.subarray(start))
    }`;
  }
}

function joinBytes(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Decodes UTF-8; `cutEnd` drops a character split at the end. */
function decode(bytes: Uint8Array, cutEnd = false): string {
  return new TextDecoder().decode(bytes, { stream: cutEnd });
}

/** Where a capture reports to. */
export interface CaptureSinks {
  /** Streams output to the parent. */
  progress(stream: "stdout" | "stderr", text: string): void;
  /** The spill directory and a file name, used once the output is long. */
  spillDir: string;
  spillName: string;
}

/** Output of one command: both streams, combined and apart. */
export class OutputCapture {
  readonly combined = new HeadTail(MAX_VIEW_CHARS);
  readonly stdout = new HeadTail(MAX_VIEW_CHARS);
  readonly stderr = new HeadTail(MAX_VIEW_CHARS);
  #sinks: CaptureSinks;
  /** Everything so far, until it outgrows the view; then the spill file takes over. */
  #early: Uint8Array[] = [];
  #earlySize = 0;
  #spill: SpillFile | null = null;
  #spillError: string | null = null;
  #writes: Promise<void> = Promise.resolve();
  #progressed = 0;
  #pending: Record<"stdout" | "stderr", string> = { stdout: "", stderr: "" };
  #decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(sinks: CaptureSinks) {
    this.#sinks = sinks;
  }

  /** Takes a chunk from one stream; resolves when it is safely stored (backpressure). */
  async push(stream: "stdout" | "stderr", chunk: Uint8Array): Promise<void> {
    this.combined.push(chunk);
    this[stream].push(chunk);
    this.#progress(stream, chunk);
    if (this.#spill === null && this.#spillError === null) {
      this.#early.push(chunk.slice());
      this.#earlySize += chunk.length;
      if (this.#earlySize <= MAX_VIEW_CHARS) return;
      const early = this.#early;
      this.#early = [];
      this.#writes = this.#writes.then(async () => {
        try {
          this.#spill = await SpillFile.create(
            this.#sinks.spillDir,
            this.#sinks.spillName,
          );
          for (const part of early) await this.#spill.write(part);
        } catch (error) {
          this.#spillError = (error as Error).message;
        }
      });
      return await this.#writes;
    }
    if (this.#spill) {
      const spill = this.#spill;
      const copy = chunk.slice();
      this.#writes = this.#writes.then(async () => {
        if (this.#spillError) return;
        try {
          await spill.write(copy);
        } catch (error) {
          this.#spillError = (error as Error).message;
        }
      });
      await this.#writes;
    }
  }

  #progress(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    if (this.#progressed >= MAX_PROGRESS_BYTES) return;
    this.#progressed += chunk.length;
    this.#pending[stream] += this.#decoders[stream].decode(chunk, {
      stream: true,
    });
    if (this.#progressed >= MAX_PROGRESS_BYTES) {
      this.#pending[stream] +=
        `\n[wave: more than ${MAX_PROGRESS_BYTES} bytes of output; the rest is not streamed]\n`;
      this.flushProgress();
      return;
    }
    this.#timer ??= setTimeout(
      () => this.flushProgress(),
      PROGRESS_INTERVAL_MS,
    );
  }

  /** Sends progress that is waiting. */
  flushProgress(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const stream of ["stdout", "stderr"] as const) {
      const text = this.#pending[stream];
      for (let at = 0; at < text.length; at += PROGRESS_EVENT_CHARS) {
        this.#sinks.progress(stream, text.slice(at, at + PROGRESS_EVENT_CHARS));
      }
      this.#pending[stream] = "";
    }
  }

  /** Finishes: flushes progress and the spill file. Returns the spill path, if the output spilled. */
  async finish(): Promise<
    { fullPath: string | null; spillError: string | null }
  > {
    this.flushProgress();
    await this.#writes;
    let fullPath: string | null = null;
    if (this.#spill && this.#spillError) this.#spill.abandon();
    else if (this.#spill) {
      try {
        fullPath = this.#spill.close();
      } catch (error) {
        this.#spillError ??= (error as Error).message;
      }
    }
    return {
      fullPath: this.#spillError ? null : fullPath,
      spillError: this.#spillError,
    };
  }
}
