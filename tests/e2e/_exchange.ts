/**
 * An outside process exchanging two paths in a loop (`_racer.ts`), for the
 * races of a tool's check against its open.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

const RACER = fileURLToPath(new URL("./_racer.ts", import.meta.url));

/** A running exchange of two paths; `stop` kills it and waits for its end. */
export interface Exchange {
  stop(): Promise<void>;
}

/** Starts exchanging `a` and `b` with `renameat2(RENAME_EXCHANGE)`, as fast as it can, until stopped. */
export function exchangeInLoop(a: string, b: string): Exchange {
  const racer = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-ffi", RACER, a, b],
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    async stop() {
      racer.kill("SIGKILL");
      await racer.status;
    },
  };
}
