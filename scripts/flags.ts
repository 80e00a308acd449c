/**
 * The Deno flags wave runs with: the compiled binary bakes them in, and the
 * end-to-end tests run `cli.ts` with exactly these. deno.json's `start` task
 * spells them out too (a test checks it agrees).
 *
 * The main thread is trusted with everything it needs (the model API, the
 * environment for keys, processes); tools never are: their workers get
 * narrowed permissions (session/executor.ts).
 *
 * @module
 */

/**
 * Permission flags of the main thread: all of them. It runs processes and
 * calls libc through FFI (prctl, tools/kernel/processes.ts), which Deno counts
 * as all permissions anyway; and Deno opens /proc only with --allow-all,
 * where the main thread finds what a command left behind.
 */
export const PERMISSION_FLAGS: readonly string[] = ["--allow-all"];

/** Unstable features wave uses (deno.json's `unstable` says the same). */
export const UNSTABLE_FLAGS: readonly string[] = ["--unstable-worker-options"];

/**
 * V8 flags: every isolate's young generation stays at 1 MB. V8 grows a
 * busy isolate's young generation up to 16 MB per semi-space, and wave runs
 * several isolates (the main thread and each sandbox worker): under a
 * sustained stream of calls RSS climbed with it, 207 → 262 MB over 20,000
 * calls (`deno task bench soak`); at 1 MB it stays level (174 → 185 MB),
 * with the same call throughput and a lower peak while a command prints
 * 1 GB (174 → 127 MB).
 */
export const V8_FLAGS: readonly string[] = [
  "--v8-flags=--max-semi-space-size=1",
];

const ROOT = new URL("..", import.meta.url);

/** `deno` arguments that run the CLI from source exactly as the binary runs: `deno <these> [wave flags]`. */
export function waveArgs(args: readonly string[]): string[] {
  return [
    "run",
    "--quiet",
    "--config",
    new URL("deno.json", ROOT).pathname,
    ...PERMISSION_FLAGS,
    ...UNSTABLE_FLAGS,
    ...V8_FLAGS,
    new URL("cli.ts", ROOT).pathname,
    ...args,
  ];
}
