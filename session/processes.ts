/**
 * Child process groups, tracked by the main thread: sandbox workers cannot
 * signal a group (`Deno.kill` needs full `run`), and shutdown must reach
 * every group even when the worker that started it is stuck or gone.
 *
 * @module
 */

/**
 * Sends a signal to a whole process group, or, when there is no such
 * group, to its would-be leader: a child started under `setsid` that has
 * not yet made its group, or one started in wave's own group. A process
 * that is gone is ignored.
 */
export function signalGroup(pgid: number, signal: Deno.Signal): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  for (const target of [-pgid, pgid]) {
    try {
      Deno.kill(target, signal);
      return;
    } catch (error) {
      // ESRCH surfaces as NotFound; anything else is worth a log line.
      if (!(error instanceof Deno.errors.NotFound)) {
        console.error(`wave: could not signal process group ${pgid}:`, error);
        return;
      }
    }
  }
}

/** The process groups this session has started and not yet seen exit. */
export class ProcessGroups {
  /** pgid → the call (and worker) that started it. */
  #groups = new Map<number, { callId: string; workerId: number }>();

  /** Records a group a call started. */
  started(pgid: number, callId: string, workerId: number): void {
    this.#groups.set(pgid, { callId, workerId });
  }

  /** Forgets a group whose leader has exited; its other members are still signalled on kill. */
  ended(pgid: number): void {
    this.#groups.delete(pgid);
  }

  /** Signals a group, but only one a call of this session started. */
  signal(pgid: number, callId: string, signal: Deno.Signal): void {
    const owner = this.#groups.get(pgid);
    if (owner?.callId === callId) signalGroup(pgid, signal);
  }

  /** The groups started by calls on one worker. */
  ofWorker(workerId: number): number[] {
    return [...this.#groups].filter(([, o]) => o.workerId === workerId).map((
      [pgid],
    ) => pgid);
  }

  /** Kills groups outright (SIGKILL) and forgets them. */
  kill(pgids: Iterable<number>): void {
    for (const pgid of pgids) {
      signalGroup(pgid, "SIGKILL");
      this.#groups.delete(pgid);
    }
  }

  /** Kills every tracked group. */
  killAll(): void {
    this.kill([...this.#groups.keys()]);
  }
}
