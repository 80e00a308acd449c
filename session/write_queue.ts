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
  #readsSinceWrite: Promise<void>[] = [];
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
      this.#readsSinceWrite = [];
    } else {
      ready = this.#lastWrite;
      this.#readsSinceWrite.push(done);
    }
    this.#held++;
    let released = false;
    return {
      ready,
      release: () => {
        if (released) return;
        released = true;
        this.#held--;
        release();
      },
    };
  }

  /** How many tickets are held or waiting. */
  get size(): number {
    return this.#held;
  }
}
