/**
 * The ripgrep driver: runs `rg` (from npm:@vscode/ripgrep, resolved by the
 * session at call time) in its own process group with a clean environment,
 * streams its output line by line, and stops it as soon as the caller has
 * enough.
 *
 * @module
 */

import { type ToolContext, ToolError } from "../../session/tool.ts";

/** How a ripgrep run ended. */
export interface RipgrepRun {
  /** 0: matches, 1: none, 2: an error (see `stderr`); `null` when wave stopped it. */
  code: number | null;
  stderr: string;
  /** wave stopped it early because the caller had enough. */
  stopped: boolean;
}

/** The error when the platform's ripgrep package is not installed. */
export function ripgrepMissing(): ToolError {
  return new ToolError(
    "ripgrep is not available: the @vscode/ripgrep package for this platform is not installed, so searching cannot run. Use Bash with grep or find instead.",
    { type: "ripgrep_missing" },
  );
}

/**
 * Runs ripgrep with `args` in `cwd`. `onLine` gets each stdout line (without
 * its newline) and returns false to stop the run.
 *
 * Guarantees: rg is killed when `onLine` returns false, when the call is
 * aborted, or after `timeoutMs`; its process group is reported to the
 * session so shutdown can reach it; an abort is a {@linkcode ToolError}.
 */
export async function runRipgrep(
  ctx: ToolContext,
  args: string[],
  cwd: string,
  onLine: (line: string) => boolean | void,
  timeoutMs = 60_000,
): Promise<RipgrepRun> {
  const rg = ctx.programs.rg;
  if (!rg) throw ripgrepMissing();
  const child = new Deno.Command(rg, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // No RIPGREP_CONFIG_PATH or other user settings: the same search everywhere.
    clearEnv: true,
    env: { PATH: ctx.env.PATH ?? "/usr/bin:/bin" },
    // Not detached: rg starts no children, so its pid is all there is to
    // kill, and a spawn without a setsid hook is a posix_spawn instead of
    // a fork of the worker (milliseconds less per search).
  }).spawn();
  ctx.processes.started(child.pid);
  let stopped = false;
  let timedOut = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
  };
  const onAbort = () => stop();
  ctx.signal.addEventListener("abort", onAbort);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);

  const stderrText = new Response(child.stderr).text();
  const decoder = new TextDecoder();
  let carry = "";
  try {
    for await (const chunk of child.stdout) {
      if (stopped) continue; // drain what is left so the pipe closes
      const text = carry + decoder.decode(chunk, { stream: true });
      let start = 0;
      for (
        let nl = text.indexOf("\n");
        nl !== -1;
        nl = text.indexOf("\n", start)
      ) {
        const keepGoing = onLine(text.slice(start, nl));
        start = nl + 1;
        if (keepGoing === false) {
          stop();
          break;
        }
      }
      carry = stopped ? "" : text.slice(start);
    }
    if (!stopped) {
      carry += decoder.decode();
      if (carry !== "") onLine(carry);
    }
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  const status = await child.status;
  ctx.processes.ended(child.pid);
  const stderr = await stderrText;
  if (ctx.signal.aborted) {
    throw new ToolError("The search was interrupted.", { type: "interrupted" });
  }
  if (timedOut) {
    throw new ToolError(
      `The search took longer than ${
        timeoutMs / 1000
      } s and was stopped; narrow it with path, glob or type.`,
      { type: "timeout" },
    );
  }
  return { code: stopped ? null : status.code, stderr, stopped };
}
