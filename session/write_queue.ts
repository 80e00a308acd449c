/**
 * The per-session write queue (spec 001: 同一会话里改文件的调用排队):
 * calls whose tool writes run one at a time, in arrival order.
 *
 * It is a readers–writer queue in arrival order: a writing call waits for
 * every call that arrived before it; a read-only call waits only for the
 * writing calls before it, so reads run concurrently with each other but
 * never overtake a write, nor are overtaken by one (a pipelined Read then
 * Edit sees the Read first).
 *
 * @module
 */

/** A place in the queue: wait for `ready`, then call `release` exactly once. */
export interface QueueTicket {
  /** Resolves when the calls this one must follow have finished. */
  ready: Promise<void>;
  /** Marks this call finished; further calls do nothing. */
  release(): void;
}

/** An arrival-ordered readers–writer queue. */
export class WriteQueue {
  #lastWrite: Promise<void> = Promise.resolve();
  /** Reads since the last write that have not finished: a finished one is dropped, so a session of reads only holds none. */
  #readsSinceWrite = new Set<Promise<void>>();
  #held = 0;

  /** Takes the next place in the queue for a writing or a read-only call. */
  enter(kind: "read" | "write"): QueueTicket {
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    let ready: Promise<void>;
    if (kind === "write") {
      const before = [this.#lastWrite, ...this.#readsSinceWrite];
      ready = Promise.all(before).then(() => {});
      this.#lastWrite = ready.then(() => done);
      this.#readsSinceWrite = new Set();
    } else {
      ready = this.#lastWrite;
      this.#readsSinceWrite.add(done);
    }
    const reads = this.#readsSinceWrite;
    this.#held++;
    let released = false;
    return {
      ready,
      release: () => {
        if (released) return;
        released = true;
        this.#held--;
        reads.delete(done);
        release();
      },
    };
  }

  /** How many unfinished reads a write entering now would wait for. */
  get readsAhead(): number {
    return this.#readsSinceWrite.size;
  }

  /** How many tickets are held or waiting. */
  get size(): number {
    return this.#held;
  }
}
