/**
 * What a session has in flight: every piece of work it started and has not
 * finished, so shutdown can wait for it, and every abortable run (a tool
 * call, a user turn), so an interrupt reaches it.
 *
 * @module
 */

/** A session's work in flight. */
export class InFlight {
  #work = new Set<Promise<unknown>>();
  #abortable = new Set<AbortController>();
  #interrupts = 0;

  /** How many interrupts there have been: work queued before one can tell it came. */
  get interrupts(): number {
    return this.#interrupts;
  }

  /**
   * Tracks `promise` until it settles; {@linkcode settle} waits for it. The
   * session's work never rejects: a rejection here is a bug, left unhandled.
   */
  track(promise: Promise<unknown>): void {
    this.#work.add(promise);
    promise.finally(() => this.#work.delete(promise));
  }

  /**
   * A controller for one abortable run (a tool call, a user turn):
   * {@linkcode interrupt} aborts it until it is {@linkcode release}d.
   */
  controller(): AbortController {
    const controller = new AbortController();
    this.#abortable.add(controller);
    return controller;
  }

  /** The run is over: an interrupt no longer reaches its controller. */
  release(controller: AbortController): void {
    this.#abortable.delete(controller);
  }

  /** Aborts every abortable run in flight. */
  interrupt(): void {
    this.#interrupts++;
    for (const controller of this.#abortable) controller.abort();
  }

  /** Resolves when nothing is in flight, including work started meanwhile. */
  async settle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /** Waits for the work in flight, at most `ms`. */
  async settleWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.settle(),
      new Promise((resolve) => timer = setTimeout(resolve, ms)),
    ]);
    clearTimeout(timer);
  }
}
