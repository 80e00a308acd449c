/**
 * The per-session write queue: calls whose tool writes run one at a time, in
 * the order they entered (spec 001: 同一会话里改文件的调用排队).
 *
 * @module
 */

/** A place in the queue: wait for `ready`, then call `release` exactly once. */
export interface QueueTicket {
  /** Resolves when every earlier ticket has been released. */
  ready: Promise<void>;
  /** Lets the next ticket go; further calls do nothing. */
  release(): void;
}

/** A FIFO mutex. Tickets are granted in the order {@linkcode WriteQueue.enter} was called. */
export class WriteQueue {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;

  /** Takes the next place in the queue. */
  enter(): QueueTicket {
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ready = this.#tail;
    this.#tail = ready.then(() => done);
    this.#waiting++;
    let released = false;
    return {
      ready,
      release: () => {
        if (released) return;
        released = true;
        this.#waiting--;
        release();
      },
    };
  }

  /** How many tickets are held or waiting. */
  get size(): number {
    return this.#waiting;
  }
}
