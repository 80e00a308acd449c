/**
 * The ripgrep driver: runs `rg` (from npm:@vscode/ripgrep, resolved by the
 * session at call time) with a clean environment, streams its output record
 * by record, and stops it as soon as the caller has enough.
 *
 * @module
 */

import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { hiddenTest, ripgrepExclusions } from "../kernel/hidden.ts";
import { isAbsolute, join, relative } from "../kernel/posix_path.ts";
import { displayPath, isInside, SensitiveLinks } from "../kernel/workspace.ts";
import { openRegularFile, type RegularFile } from "../kernel/regular_file.ts";

/** How much of ripgrep's stderr is kept (a tree of unreadable files makes a line each). */
const STDERR_KEPT = 64 * 1024;

/** The first `max` bytes of a stream's text, cut after its last whole line when cut; the rest is read and dropped. */
async function headOf(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<string> {
  const kept: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for await (const chunk of stream) {
    if (size >= max) {
      cut = true;
      continue;
    }
    const part = chunk.subarray(0, max - size);
    if (part.length < chunk.length) cut = true;
    kept.push(part);
    size += part.length;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of kept) {
    bytes.set(part, at);
    at += part.length;
  }
  const text = new TextDecoder().decode(bytes);
  return cut ? text.slice(0, text.lastIndexOf("\n") + 1) : text;
}

/** How a ripgrep run ended. */
export interface RipgrepRun {
  /** 0: matches, 1: none, 2: an error (see `stderr`); `null` when wave stopped it. */
  code: number | null;
  stderr: string;
  /** wave stopped it early because the caller had enough. */
  stopped: boolean;
  /**
   * A fed file (`input`) is binary and matches: rg says only that, in place
   * of its lines, when it prints lines (content mode).
   */
  binaryMatch?: boolean;
}

/** What rg prints for a binary file searched on its own, in place of the matching lines. */
const BINARY_MATCH = /^<stdin>: binary file matches \(/;

/**
 * ripgrep's target that reads its standard input: a file searched on its
 * own is given to rg this way (see {@linkcode RipgrepInput}).
 */
export const STDIN_TARGET = "-";

/**
 * A file ripgrep searches from its standard input rather than by its path.
 * rg opens the paths it is given without a check, and waits forever on a
 * named pipe swapped in for one; wave opens the file instead (on the
 * calling thread, without waiting, refusing what is not a regular file:
 * see {@linkcode openRegularFile}) and feeds rg what it opened: a small
 * file copied into rg's stdin, a larger one handed over as its stdin
 * descriptor, which rg reads as fast as the path. The paths rg prints for
 * it (`<stdin>`) are replaced by `label`.
 */
export interface RipgrepInput {
  /** The real path to open. */
  path: string;
  /** The path rg's output names it by (relative to the workspace). */
  label: string;
}

/** Where ripgrep runs, what it is given to search, and what its paths need in front. */
export interface RipgrepScope {
  cwd: string;
  /**
   * When the search is of one file: rg's target ({@linkcode STDIN_TARGET}),
   * and the file it reads there.
   */
  target?: string;
  input?: RipgrepInput;
  /** Put before each path rg prints to make it relative to the workspace. */
  prefix: string;
}

/**
 * Where ripgrep runs to search `root` (a real path). A directory is
 * searched from inside, so globs match paths below it ("src/*.ts" under
 * path "pkg" means pkg/src/*.ts); `prefix` turns the paths rg prints into
 * paths relative to the workspace. A single file is searched from the
 * workspace, read from rg's standard input and named as the workspace
 * names it.
 */
export async function ripgrepScope(
  ctx: ToolContext,
  root: string,
): Promise<RipgrepScope> {
  const shown = displayPath(ctx.workspace, root);
  if (!(await Deno.stat(root)).isDirectory) {
    return {
      cwd: ctx.workspace,
      target: STDIN_TARGET,
      input: { path: root, label: shown },
      prefix: "",
    };
  }
  return { cwd: root, prefix: shown === "." ? "" : `${shown}/` };
}

/**
 * ripgrep globs that leave out of a search run in `cwd` what no search may
 * show there: wave's state directory (`WAVE_HOME`: other sessions'
 * transcripts, task lists) when it lies below `cwd` (a workspace that is
 * the home directory), and what the `Read` deny rules that bind the call
 * cover (`ctx.hidden`). Put them after the caller's globs: in ripgrep the
 * last glob that matches decides.
 */
export function leftOutGlobs(ctx: ToolContext, cwd: string): string[] {
  const home = ctx.waveHome !== cwd && isInside(cwd, ctx.waveHome)
    // Anchored at cwd by its leading slash; glob characters in the path escaped.
    ? [`!/${relative(cwd, ctx.waveHome).replace(/[\\*?[\]{}]/g, "\\$&")}`]
    : [];
  return [...home, ...ripgrepExclusions(ctx.hidden ?? [], ctx.workspace, cwd)];
}

/** The error when the platform's ripgrep package is not installed. */
export function ripgrepMissing(): ToolError {
  return new ToolError(
    "ripgrep is not available: the @vscode/ripgrep package for this platform is not installed, so searching cannot run. Use Bash with grep or find instead.",
    { type: "ripgrep_missing" },
  );
}

/**
 * How ripgrep's `--null` output splits into records. Paths are ended by a
 * NUL, never by a newline, since a file name may hold one.
 * - `"paths"`: each record is a path (`--files`, `--files-with-matches`).
 * - `"path-lines"`: each record is a path, its NUL, and the rest of a line
 *   (`--count`; matches and context lines, with `--no-context-separator`).
 */
export type RipgrepRecords = "paths" | "path-lines";

/** The end of the record that starts at `start`, and where the next starts; `undefined` until it has all arrived. */
function recordAt(
  text: string,
  start: number,
  records: RipgrepRecords,
): { end: number; next: number } | undefined {
  const nul = text.indexOf("\0", start);
  if (nul === -1) return undefined;
  if (records === "paths") return { end: nul, next: nul + 1 };
  const nl = text.indexOf("\n", nul + 1);
  return nl === -1 ? undefined : { end: nl, next: nl + 1 };
}

/** The name ripgrep gives its standard input in what it prints. */
const STDIN_NAME = "<stdin>";

/**
 * Runs ripgrep with `args` (which must include `--null`) in `where.cwd`,
 * with `where.input`, if any, as its standard input (`args` then name
 * {@linkcode STDIN_TARGET} as the target). `onRecord` gets each record of
 * stdout (see {@linkcode RipgrepRecords}), without its terminator, and
 * returns false to stop the run.
 *
 * Guarantees: rg is killed when `onLine` returns false, when the call is
 * aborted, or after `timeoutMs`; its process group is reported to the
 * session so shutdown can reach it; an abort is a {@linkcode ToolError}.
 * An input that is not a regular file is refused before rg starts (the
 * errors of {@linkcode openRegularFile}); rg never opens a path of it. An
 * input that leads to a sensitive file is left out (no match), as every
 * search leaves out links to secrets.
 */
export async function runRipgrep(
  ctx: ToolContext,
  args: string[],
  where: { cwd: string; input?: RipgrepInput },
  records: RipgrepRecords,
  onRecord: (record: string) => boolean | void,
  timeoutMs = 60_000,
): Promise<RipgrepRun> {
  const rg = ctx.programs.rg;
  if (!rg) throw ripgrepMissing();
  const { cwd, input } = where;
  const env = { PATH: ctx.env.PATH ?? "/usr/bin:/bin" };
  let child: RipgrepChild;
  let feeding: Promise<void> | undefined;
  if (input) {
    const file = openRegularFile(input.path, input.label);
    try {
      // Left out as a search leaves out every link to a secret: no match.
      if (leadsToSecret(ctx, file, input)) {
        return { code: 1, stderr: "", stopped: false };
      }
      if (file.size <= FEED_LIMIT) {
        child = spawnRipgrep(rg, args, cwd, env, true);
        feeding = feed(file, child.stdin!);
      } else child = await spawnOnFile(rg, args, cwd, env, file.fd);
    } finally {
      // rg has its own copy of the descriptor; a fed file is closed by feed.
      if (!feeding) file.close();
    }
  } else child = spawnRipgrep(rg, args, cwd, env, false);
  const named = input
    ? (record: string) =>
      record.startsWith(STDIN_NAME)
        ? input.label + record.slice(STDIN_NAME.length)
        : record
    : (record: string) => record;
  ctx.processes.started(child.pid);
  let stopped = false;
  let timedOut = false;
  let binaryMatch = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    child.kill();
  };
  const onAbort = () => stop();
  ctx.signal.addEventListener("abort", onAbort);
  if (ctx.signal.aborted) stop(); // while rg was being started
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);

  const stderrText = headOf(child.stderr, STDERR_KEPT);
  // The exclusions are ripgrep's reading of the rules; each path it prints
  // is also tested as the permission check tests it, so no difference in
  // how the two read a glob (ripgrep trims a glob's trailing space, its `?`
  // is one byte) shows a covered file.
  const hidden = ctx.hidden?.length
    ? hiddenTest(ctx.hidden, ctx.workspace)
    : undefined;
  const shows = (record: string) => {
    if (!hidden) return true;
    const nul = record.indexOf("\0");
    const path = nul === -1 ? record : record.slice(0, nul);
    return !hidden(isAbsolute(path) ? path : join(cwd, path));
  };
  const decoder = new TextDecoder();
  let carry = "";
  try {
    for await (const chunk of child.stdout) {
      if (stopped) continue; // drain what is left so the pipe closes
      const text = carry + decoder.decode(chunk, { stream: true });
      let start = 0;
      for (
        let record = recordAt(text, start, records);
        record;
        record = recordAt(text, start, records)
      ) {
        const line = named(text.slice(start, record.end));
        const keepGoing = shows(line) ? onRecord(line) : true;
        start = record.next;
        if (keepGoing === false) {
          stop();
          break;
        }
      }
      carry = stopped ? "" : text.slice(start);
    }
    if (!stopped) {
      // A last record without its terminator (rg was cut off): take it as
      // it is; or rg's word that a fed file is binary and matches.
      carry = (carry + decoder.decode()).replace(/\n$/, "");
      if (input && BINARY_MATCH.test(carry)) binaryMatch = true;
      else if (carry !== "") {
        const record = named(carry);
        if (shows(record)) onRecord(record);
      }
    }
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
  const status = await child.status;
  await feeding;
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
  return {
    code: stopped ? null : status.code,
    stderr,
    stopped,
    ...binaryMatch ? { binaryMatch } : {},
  };
}

/**
 * Whether a fed file is a link (symbolic or hard) to a sensitive file of
 * the workspace that the call was not approved for (see
 * {@linkcode SensitiveLinks.openedOtherSecret}), judged on what was opened: a
 * path swapped for one after the call's check included. A path the parent
 * approved (a hard link to a secret, say) is searched as approved.
 */
function leadsToSecret(
  ctx: ToolContext,
  file: { dev: number; ino: number },
  input: RipgrepInput,
): boolean {
  return !ctx.approvedFor(input.path) &&
    new SensitiveLinks(ctx.workspace).openedOtherSecret(file, input.path);
}

/**
 * The largest fed file wave copies into rg's stdin itself, through a pipe:
 * a few milliseconds per megabyte, and no Node spawn, whose first use in a
 * worker costs some 10 ms. A larger one is handed over as a descriptor
 * ({@linkcode spawnOnFile}), which rg reads as fast as a path.
 */
const FEED_LIMIT = 1 << 20;

/**
 * Copies `file` into rg's stdin, then closes both; ends quietly when rg
 * stops reading (it had enough, or was killed).
 */
async function feed(
  file: RegularFile,
  stdin: WritableStream<Uint8Array>,
): Promise<void> {
  const writer = stdin.getWriter();
  try {
    const chunk = new Uint8Array(64 * 1024);
    for (let n = file.readSync(chunk); n !== null; n = file.readSync(chunk)) {
      // A copy: the write may still be pending when the chunk is refilled.
      await writer.write(chunk.slice(0, n));
    }
    await writer.close();
  } catch {
    /* rg closed its end */
  } finally {
    file.close();
    writer.releaseLock();
  }
}

/** A running rg, however it was started. */
interface RipgrepChild {
  pid: number;
  /** Where a fed file is copied to; absent when rg has no stdin pipe. */
  stdin?: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  /** Its exit code; `null` when a signal ended it. */
  status: Promise<{ code: number | null }>;
  /** Kills it (SIGKILL); harmless once it has exited. */
  kill(): void;
}

/** Starts rg with a clean environment, its stdin a pipe when it is to be fed a file, else nothing. */
function spawnRipgrep(
  rg: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  fed: boolean,
): RipgrepChild {
  const child = new Deno.Command(rg, {
    args,
    cwd,
    stdin: fed ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
    // No RIPGREP_CONFIG_PATH or other user settings: the same search everywhere.
    clearEnv: true,
    env,
    // Not detached: rg starts no children, so its pid is all there is to
    // kill, and a spawn without a setsid hook is a posix_spawn instead of
    // a fork of the worker (milliseconds less per search).
  }).spawn();
  return {
    pid: child.pid,
    stdin: fed ? child.stdin : undefined,
    stdout: child.stdout,
    stderr: child.stderr,
    status: child.status.then((s) => ({ code: s.signal ? null : s.code })),
    kill: () => {
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
    },
  };
}

/**
 * Starts rg as {@linkcode spawnRipgrep} does, with descriptor `fd` as its
 * stdin. Deno's own spawn cannot hand a child a descriptor; Node's can
 * (loaded on first use: most searches are of a directory).
 */
async function spawnOnFile(
  rg: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  fd: number,
): Promise<RipgrepChild> {
  const [{ spawn }, { Readable }] = await Promise.all([
    import("node:child_process"),
    import("node:stream"),
  ]);
  // env replaces the whole environment, as clearEnv does above.
  const child = spawn(rg, args, { cwd, env, stdio: [fd, "pipe", "pipe"] });
  const status = new Promise<{ code: number | null }>((resolve) =>
    child.once("exit", (code) => resolve({ code }))
  );
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  const web = (stream: NonNullable<typeof child.stdout>) =>
    Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
  return {
    pid: child.pid!,
    stdout: web(child.stdout!),
    stderr: web(child.stderr!),
    status,
    kill: () => void child.kill("SIGKILL"),
  };
}
