/**
 * The shell runner, for every dialect's command tool (docs/design.md "The
 * sandbox", layer 3): bash or PowerShell in its own process group, stdin
 * from /dev/null, an allow-listed environment, confined by bubblewrap
 * when the session says so (`tools/kernel/bwrap.ts`: then its own pid
 * namespace, which dies with it); killed as a group on timeout, interrupt
 * or shutdown, and never leaving a process behind.
 *
 * @module
 */

import { plural } from "./text.ts";
import { COMMAND_MARKER, newCommandMarker } from "../kernel/processes.ts";
import { bwrapArgs, bwrapDyingWithWave } from "../kernel/bwrap.ts";
import {
  type InputOf,
  type InputSchema,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  toolErrorResult,
  type ToolResult,
} from "../kernel/tool.ts";
import { MAX_VIEW_CHARS, OutputCapture } from "./capture.ts";

/** The default timeout of a command. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** The longest timeout a command may ask for. */
export const MAX_TIMEOUT_MS = 600_000;
/** After SIGTERM on timeout, how long the group has before SIGKILL. */
const TIMEOUT_GRACE_MS = 2000;
/** After SIGTERM on interrupt, how long the group has before SIGKILL (an interrupt must end within 1 s). */
const INTERRUPT_GRACE_MS = 300;
/**
 * Once the shell has exited, how long the pipes may stay quiet before wave
 * stops waiting for children still holding them. Output still arriving
 * extends it (a slow machine may take a while to drain what the shell
 * wrote), up to PIPE_GRACE_MAX_MS.
 */
const PIPE_GRACE_MS = 2000;
/** The longest wait for the pipes after the shell has exited. */
const PIPE_GRACE_MAX_MS = 10_000;
/**
 * After an interrupt, the longest wait for the pipes once the shell has
 * exited (an interrupt must end within 1 s; the shell has the
 * INTERRUPT_GRACE_MS before it).
 */
const INTERRUPT_PIPE_GRACE_MS = 200;

/** The programs a shell tool's `run` scope names (sh puts an unconfined command in its cgroup). */
export const SHELL_PROGRAMS = [
  "bash",
  "pwsh",
  "bwrap",
  "setsid",
  "setpriv",
  "sh",
] as const;

/**
 * The start of an sh script that moves itself into the cgroup whose
 * `cgroup.procs` is `$0`: a command that cannot join fails with 126 rather
 * than run where its orphans could escape.
 */
const JOIN_CGROUP =
  'echo $$ 2>/dev/null >"$0" || { echo "wave: the command could not join its cgroup ($0), so it was not run" >&2; exit 126; };';

/**
 * What of a call's context a command needs: a tool's (in its worker), or
 * the one the session makes for a command tool's call it runs on its own
 * thread ({@linkcode shellCommandOf}).
 */
export type ShellContext = Pick<
  ToolContext,
  | "workspace"
  | "toolUseId"
  | "signal"
  | "spillDir"
  | "shellSandbox"
  | "env"
  | "programs"
  | "progress"
  | "processes"
>;

/** One command. */
export interface ShellRequest {
  program: "bash" | "powershell";
  script: string;
  /** Real path of the working directory. */
  cwd: string;
  timeoutMs: number;
}

/** How a command went. */
export interface ShellResult {
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  /** stdout and stderr as they arrived, cut to the model's view. */
  output: string;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  /** Some output was left out of `output`. */
  truncated: boolean;
  /** The spill file with every byte of output, when it was cut. */
  fullPath: string | null;
  /** Why the spill file could not be written, if it could not. */
  spillError: string | null;
  /** The command ran under bubblewrap. */
  sandboxed: boolean;
}

/** How to start, ahead, the process the next command of this worker will run in. */
interface PrepareSpec {
  /** The program started (bubblewrap, or sh for an unconfined command). */
  command: string;
  args: string[];
  /** Whether it needs a session of its own (an unconfined shell does). */
  ownSession: boolean;
  /** The cgroup it joins, under `none` where wave makes them. */
  cgroup?: string;
  /**
   * What it is made for (the core whose records it is in, program,
   * arguments, directory and environment): a command with another key
   * starts a process of its own.
   */
  key: string;
  /** What it is sent on its stdin for `script` (then the pipe is closed). */
  input(script: string): string;
}

function argv(
  ctx: ShellContext,
  request: ShellRequest,
): {
  command: string;
  args: string[];
  sandboxed: boolean;
  /** How to start the next command's process ahead; absent where none is. */
  prepare?: PrepareSpec;
} {
  if (request.script.includes("\0")) {
    throw new ToolError(
      "The command contains a NUL character, which no program argument can hold; remove it (printf '\\0' writes one).",
      { type: "invalid_command" },
    );
  }
  let inner: string[];
  if (request.program === "bash") {
    const bash = ctx.programs.bash;
    if (!bash) {
      throw new ToolError("bash is not available on this machine.", {
        type: "shell_missing",
      });
    }
    inner = [bash, "--noprofile", "--norc", "-c", request.script];
  } else {
    const pwsh = ctx.programs.pwsh;
    if (!pwsh) {
      throw new ToolError(
        "powershell is not available: pwsh is not installed on this machine. Use bash instead.",
        { type: "shell_missing" },
      );
    }
    inner = [
      pwsh,
      "-NoLogo",
      "-NoProfile",
      "-NonInteractive",
      "-Command",
      request.script,
    ];
  }
  // The shell and its arguments but the script, which a prepared process reads later.
  const shell = inner.slice(0, -1);
  const sh = ctx.programs.sh;
  const sandbox = ctx.shellSandbox;
  // What a prepared process runs: bash itself, started ahead, which reads
  // the script and runs it (no program to start once the script is
  // known); another shell is started by sh once the script has come.
  const waiting = request.program === "bash"
    ? { argv: [...shell, BASH_AWAIT_SCRIPT, inner[0]], input: bashInput }
    : sh
    ? { argv: [sh, "-c", AWAIT_SCRIPT, "sh", ...shell], input: shInput }
    : undefined;
  if (sandbox.kind !== "bwrap") {
    const key = JSON.stringify([
      ctx.processes.markerPrefix,
      "none",
      shell,
      request.cwd,
      ctx.env,
    ]);
    const prepare: PrepareSpec | undefined = waiting && sandbox.prepare
      ? sandbox.spareCgroup
        ? sh === undefined ? undefined : {
          command: sh,
          ownSession: true,
          key,
          input: waiting.input,
          // sh joins the cgroup, then becomes the waiting process.
          args: [
            "-c",
            `${JOIN_CGROUP} unset PWD; exec "$@"`,
            `${sandbox.spareCgroup}/cgroup.procs`,
            ...waiting.argv,
          ],
          cgroup: sandbox.spareCgroup,
        }
        : {
          command: waiting.argv[0],
          ownSession: true,
          key,
          input: waiting.input,
          args: waiting.argv.slice(1),
        }
      : undefined;
    if (sandbox.cgroup === undefined) {
      return {
        command: inner[0],
        args: inner.slice(1),
        sandboxed: false,
        prepare,
      };
    }
    if (!sh) {
      throw new ToolError(
        "sh is not available on this machine, and wave needs it to put the command in its cgroup.",
        { type: "shell_missing" },
      );
    }
    // sh joins the cgroup, then becomes the shell (same pid, same group):
    // whatever the command starts is born in the cgroup. PWD, which sh
    // exports, is taken away again: the environment stays the session's.
    return {
      command: sh,
      args: [
        "-c",
        `${JOIN_CGROUP} unset PWD; exec "$@"`,
        `${sandbox.cgroup}/cgroup.procs`,
        ...inner,
      ],
      sandboxed: false,
      prepare,
    };
  }
  const bwrap = ctx.programs.bwrap;
  if (!bwrap) {
    throw new ToolError(
      "bubblewrap (bwrap) is not available, and wave runs with --shell-sandbox bwrap.",
      { type: "sandbox_missing" },
    );
  }
  const isolation = bwrapArgs(sandbox, ctx.workspace, request.cwd);
  const [command, before] = bwrapDyingWithWave(bwrap, ctx.programs.setpriv);
  return {
    command,
    args: [...before, ...isolation, ...inner],
    sandboxed: true,
    prepare: waiting && sandbox.prepare
      ? {
        command,
        args: [...before, ...isolation, ...waiting.argv],
        ownSession: false,
        key: JSON.stringify([
          ctx.processes.markerPrefix,
          bwrap,
          isolation,
          shell,
          request.cwd,
          ctx.env,
        ]),
        input: waiting.input,
      }
      : undefined,
  };
}

/**
 * What a prepared process runs for a shell other than bash (PowerShell):
 * sh reads the script from its stdin (each
 * line, the last one wave ends with a newline it adds), then, with stdin
 * from /dev/null and PWD (which sh exports) taken away again, execs the
 * shell with the script as its last argument: the same program, arguments
 * and environment as a command started at once.
 */
const AWAIT_SCRIPT =
  's=; while IFS= read -r l; do s="$s$l\n"; done; unset PWD l; exec "$@" "${s%?}" </dev/null';

/** sh's input: the script, with the newline its loop reads the last line by. */
const shInput = (script: string) => `${script}\n`;

/**
 * What a prepared bash runs: it reads the script from its stdin whole
 * (into `BASH_EXECUTION_STRING`, where `bash -c` keeps it), takes stdin
 * from /dev/null, leaves `$_` and `$?` as `bash -c` starts with them
 * (`$0`, the program's path, is its first argument) and runs the script
 * with `eval`. The command sees what it would under `bash -c`: the same
 * program, arguments, environment, variables, `$0`, `$#` and `$-`. Two
 * differences: a syntax error is reported as `eval:` rather than `-c:`,
 * and the script's last command is started by a fork of bash rather than
 * in its place. Started ahead, bash's own start (most of what a `bash -c
 * true` costs) is off the command's path. A pipe closed with no script
 * (wave gone) is an empty one: bash exits.
 */
const BASH_AWAIT_SCRIPT =
  'IFS= read -r -d "" BASH_EXECUTION_STRING; exec </dev/null; : "$0"; eval "$BASH_EXECUTION_STRING"';

/** bash's input: the script as it is (read to the end of the pipe). */
const bashInput = (script: string) => script;

/**
 * The longest script sent to a prepared sandbox: sh and bash read a pipe a
 * byte at a time, so a longer one starts sooner in a sandbox of its own.
 */
const MAX_PREPARED_SCRIPT = 16 * 1024;

/** A sandbox started ahead, after a command, for the worker's next one. */
interface Prepared {
  /** What it was made for (`PrepareSpec.key`). */
  key: string;
  /**
   * The session it was made for (its spill directory): one kept for
   * another session is left to it, one of the same session made for
   * other settings is killed. A session closed and opened again in the
   * same process (ACP's `session/resume`) is the same owner.
   */
  owner: string;
  /** The records it is in: those of the core whose call made it. */
  processes: ShellContext["processes"];
  /** What it is sent on its stdin for a script. */
  input(script: string): string;
  child: Deno.ChildProcess;
  marker: string;
  exited: boolean;
}

/**
 * How many processes are kept prepared (a sandbox, or a shell in its
 * cgroup, which a call gives one of: one then): two, so that a command
 * sent as soon as the last one answered finds one whose namespaces and
 * mounts are made, which takes longer than a short command.
 */
const SPARES = 2;

/**
 * How many sessions' prepared processes are kept at once: sessions that
 * share a thread (`wave acp`, `wave mcp --listen`) each find theirs, and
 * one more session's kills those of the one that ran a command least
 * recently.
 */
const SPARE_OWNERS = 3;

/**
 * This thread's prepared processes, oldest first. Making bubblewrap's
 * namespaces and mounts costs several times what `bash -c true` does;
 * made while the session waits for its next call, a command then costs
 * little more than its shell's work. Each is the same sandbox a command
 * started at once gets (one per command, with its own pid namespace),
 * made earlier, for one session (a sandbox shows its own spill directory).
 */
const spares: Prepared[] = [];
/** Set while the next process is being started (after its call has answered). */
let preparing = false;

/**
 * Kills a prepared sandbox no command will use, through the records it is
 * in (another core's, when another session made it).
 */
function discard(spare: Prepared): void {
  const pgid = spare.child.pid;
  spare.processes.adopted(pgid);
  spare.processes.signal(pgid, "SIGKILL");
  spare.processes.ended(pgid);
  spare.child.stdin.close().catch(() => {});
  spare.child.stdout.cancel().catch(() => {});
  spare.child.stderr.cancel().catch(() => {});
}

/**
 * The oldest prepared sandbox made for `key`, now running `script`;
 * undefined when there is none (another call took it, it was made for
 * other settings, or it has died), and a command must be started at once.
 * Those this session (`ctx.spillDir`) made for other settings are killed;
 * other sessions' are left to them.
 */
async function takePrepared(
  ctx: ShellContext,
  key: string,
  script: string,
): Promise<Prepared | undefined> {
  let spare: Prepared | undefined;
  for (const candidate of [...spares]) {
    if (candidate.key === key && !candidate.exited) {
      spare = candidate;
      break;
    }
    if (candidate.owner === ctx.spillDir) {
      spares.splice(spares.indexOf(candidate), 1);
      discard(candidate);
    }
  }
  if (!spare) return undefined;
  spares.splice(spares.indexOf(spare), 1);
  ctx.processes.adopted(spare.child.pid);
  const writer = spare.child.stdin.getWriter();
  try {
    // Queued together: the close follows the write without a turn of its own.
    await Promise.all([
      writer.write(new TextEncoder().encode(spare.input(script))),
      writer.close(),
    ]);
  } catch {
    discard(spare);
    return undefined;
  }
  return spare;
}

/**
 * Kills the processes prepared for the session whose spill directory is
 * `owner` (it has ended: none of its commands will come).
 */
export function discardPrepared(owner: string): void {
  for (const spare of spares.filter((s) => s.owner === owner)) {
    spares.splice(spares.indexOf(spare), 1);
    discard(spare);
  }
}

/** How many processes are kept prepared for `key`. */
function sparesOf(key: string): number {
  return spares.filter((spare) => spare.key === key).length;
}

/**
 * Makes room for one more session's prepared processes: when
 * {@linkcode SPARE_OWNERS} sessions other than `owner` have some, those of
 * the one whose newest was made longest ago (it has run no command since)
 * are killed.
 */
function makeRoomFor(owner: string): void {
  // Newest first: the last other owner met is the one to go.
  const others = new Set<string>();
  for (const spare of spares.toReversed()) {
    if (spare.owner !== owner) others.add(spare.owner);
  }
  if (others.size < SPARE_OWNERS) return;
  discardPrepared([...others].at(-1)!);
}

/** How many processes made for `spec` are kept: one when it joins a call's cgroup. */
function sparesFor(spec: PrepareSpec): number {
  return spec.cgroup ? 1 : SPARES;
}

/**
 * The first commands' processes other sessions asked for
 * ({@linkcode prepareShell}) while one was being started: each is made
 * once the starts before it are done, one at a time.
 */
const waitingFirsts: (() => void)[] = [];

/**
 * Starts a process for the next commands, unless enough are ready, and
 * the next one after it at the next turn (one at a time: a command that
 * comes meanwhile shares the cores with one start, not several). Once
 * none is left to start, a session's first that waited is taken up.
 */
function prepareNext(
  ctx: ShellContext,
  spec: PrepareSpec,
  options: (marker: string) => Deno.CommandOptions & { args: string[] },
): void {
  try {
    startNext(ctx, spec, options);
  } finally {
    takeUpWaiting();
  }
}

/** Takes up, at the next turn, the first waiting in {@linkcode waitingFirsts}, once no start is under way. */
function takeUpWaiting(): void {
  if (!preparing && waitingFirsts.length > 0) {
    setTimeout(waitingFirsts.shift()!, 0);
  }
}

/** {@linkcode prepareNext}'s start itself: one process, and the next one scheduled when more are kept. */
function startNext(
  ctx: ShellContext,
  spec: PrepareSpec,
  options: (marker: string) => Deno.CommandOptions & { args: string[] },
): void {
  preparing = false;
  // The call, or the session, it was made for has ended
  // (ToolCalls.discardPrepared). One whose cgroup the caller holds for it
  // already is made still, and killed at once (below): that gives the
  // cgroup back.
  if (
    (ctx.signal.aborted && !spec.cgroup) ||
    sparesOf(spec.key) >= sparesFor(spec)
  ) return;
  makeRoomFor(ctx.spillDir);
  const marker = newCommandMarker(ctx.processes.markerPrefix);
  let child: Deno.ChildProcess;
  try {
    const piped = { ...options(marker), stdin: "piped" as const };
    child = spec.ownSession
      ? spawnInOwnSession(ctx.programs.setsid, spec.command, piped)
      : new Deno.Command(spec.command, piped).spawn();
  } catch {
    return; // the next command starts its own
  }
  const spare: Prepared = {
    key: spec.key,
    owner: ctx.spillDir,
    processes: ctx.processes,
    input: spec.input,
    child,
    marker,
    exited: false,
  };
  ctx.processes.prepared(child.pid, marker, spec.cgroup);
  child.status.then(() => {
    spare.exited = true;
    const at = spares.indexOf(spare);
    if (at >= 0) {
      spares.splice(at, 1);
      spare.processes.ended(child.pid);
    }
  });
  spares.push(spare);
  if (ctx.signal.aborted) {
    // Made only because its cgroup was held for it (above): killed, it
    // gives the cgroup back, and nothing is left for an ended session.
    spares.splice(spares.indexOf(spare), 1);
    discard(spare);
    return;
  }
  if (sparesOf(spec.key) < sparesFor(spec)) {
    preparing = true;
    setTimeout(() => prepareNext(ctx, spec, options), 0);
  }
}

/**
 * Starts `command` as the leader of a new session and process group, so
 * the group can be killed whole. Deno's `detached` makes the group in a
 * pre-exec hook, which forces a fork of the whole worker (milliseconds,
 * growing with its memory); util-linux `setsid` does it after a cheap
 * posix_spawn, and execs the command in place, so the pid is the same.
 * Without `setsid`, `detached` it is.
 */
function spawnInOwnSession(
  setsid: string | undefined,
  command: string,
  options: Deno.CommandOptions & { args: string[] },
): Deno.ChildProcess {
  return setsid
    ? new Deno.Command(setsid, {
      ...options,
      args: [command, ...options.args],
    }).spawn()
    : new Deno.Command(command, { ...options, detached: true }).spawn();
}

/** How a command's process is started: its arguments, directory and environment. */
function spawnOptions(
  ctx: ShellContext,
  cwd: string,
  sandboxed: boolean,
  args: string[],
  marker: string,
) {
  return {
    args,
    cwd,
    clearEnv: true,
    env: {
      ...ctx.env,
      ...(sandboxed ? { TMPDIR: "/tmp" } : {}),
      // Everything the command starts inherits the marker, even what leaves its group.
      [COMMAND_MARKER]: marker,
    },
    stdin: "null" as const,
    stdout: "piped" as const,
    stderr: "piped" as const,
  };
}

/**
 * Starts ahead, if none is ready for its settings, the process the first
 * command in `cwd` will run in (see {@linkcode runShell}, which makes one
 * after each command for the next): idle time before a session's first
 * command is spent on its sandbox. While this thread is starting one
 * already (another session's, at the same moment), it is made after
 * that (one in a cgroup is not: its caller gives the cgroup back at
 * once); nothing is made once `ctx.signal` has aborted. Without a shell
 * nothing is made.
 */
export function prepareShell(
  ctx: ShellContext,
  program: ShellRequest["program"],
  cwd: string,
): void {
  let spec;
  try {
    spec = argv(ctx, { program, script: "", cwd, timeoutMs: 1 });
  } catch {
    return takeUpWaiting(); // the first command says why
  }
  const { prepare, sandboxed } = spec;
  if (!prepare || ctx.signal.aborted || sparesOf(prepare.key) > 0) {
    return takeUpWaiting();
  }
  if (preparing) {
    // Not one in a cgroup: its caller gives the cgroup back as soon as
    // this returns, so it could not be joined later.
    if (!prepare.cgroup) {
      waitingFirsts.push(() => {
        try {
          prepareShell(ctx, program, cwd);
        } catch { /* the first command starts its own */ }
      });
    }
    return;
  }
  if (prepare.cgroup) ctx.processes.hold(prepare.cgroup);
  prepareNext(
    ctx,
    prepare,
    (marker) => spawnOptions(ctx, cwd, sandboxed, prepare.args, marker),
  );
}

/**
 * Runs a command. Never leaves a process behind: when it returns, the
 * command's whole process group has been killed, background jobs included.
 * An interrupt or a timeout is a result (`cancelled`, `timedOut`), not an
 * error.
 */
export async function runShell(
  ctx: ShellContext,
  request: ShellRequest,
): Promise<ShellResult> {
  const { command, args, sandboxed, prepare } = argv(ctx, request);
  const started = performance.now();
  const options = (args: string[], marker: string) =>
    spawnOptions(ctx, request.cwd, sandboxed, args, marker);
  const spare = prepare && request.script.length <= MAX_PREPARED_SCRIPT
    ? await takePrepared(ctx, prepare.key, request.script)
    : undefined;
  let child: Deno.ChildProcess;
  if (spare) {
    child = spare.child;
  } else {
    const marker = newCommandMarker(ctx.processes.markerPrefix);
    // bubblewrap needs no group of its own: it puts the command in a new
    // session itself, and killing bubblewrap kills its pid namespace whole
    // (a signal to the "group" then reaches bubblewrap alone). Without the
    // setsid in front, a command starts a program sooner.
    child = sandboxed
      ? new Deno.Command(command, options(args, marker)).spawn()
      : spawnInOwnSession(ctx.programs.setsid, command, options(args, marker));
    ctx.processes.started(
      child.pid,
      // A sandbox's too: killed while bubblewrap was making it, its pid 1
      // (with the marker) can outlive it, and become wave's child.
      marker,
      ctx.shellSandbox.kind === "none" ? ctx.shellSandbox.cgroup : undefined,
    );
  }
  const pgid = child.pid;

  const capture = new OutputCapture({
    progress: (stream, text) => ctx.progress(stream, text),
    spillDir: ctx.spillDir,
    spillName: `${ctx.toolUseId.replace(/[^\w.-]/g, "_")}.log`,
  });

  let timedOut = false;
  let cancelled = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (graceMs: number) => {
    if (killTimer) return;
    ctx.processes.signal(pgid, "SIGTERM");
    killTimer = setTimeout(
      () => ctx.processes.signal(pgid, "SIGKILL"),
      graceMs,
    );
  };
  const timeout = setTimeout(() => {
    timedOut = true;
    stop(TIMEOUT_GRACE_MS);
  }, request.timeoutMs);
  let interruptedAt = 0;
  /** Looks at the pipes again (set while the call waits for them). */
  let recheck = () => {};
  const onAbort = () => {
    cancelled = true;
    interruptedAt = performance.now();
    stop(INTERRUPT_GRACE_MS);
    recheck();
  };
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });

  const readers = [child.stdout.getReader(), child.stderr.getReader()];
  let lastOutput = performance.now();
  const pump = async (
    reader: ReadableStreamDefaultReader<Uint8Array>,
    stream: "stdout" | "stderr",
  ) => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        lastOutput = performance.now();
        await capture.push(stream, value);
      }
    } catch {
      // Cancelled below, after the pipe grace.
    }
  };
  const pipes = Promise.all([
    pump(readers[0], "stdout"),
    pump(readers[1], "stderr"),
  ]);

  // bubblewrap's own exit, not its `--json-status-fd` exit-code line: that
  // line comes only 0.1–0.2 ms sooner (the outer bubblewrap writes it just
  // before it exits), and the answer must wait for the pipes' end anyway,
  // which comes once bubblewrap's pid 1, which holds them, dies of its
  // parent's exit (a pidfd of pid 1 is readable later still: its namespace
  // is torn down first).
  const status = await child.status;

  clearTimeout(timeout);
  // Children may still hold the pipes (a background job): give them a moment, then stop reading.
  // Cancelling a reader drops what it has not delivered yet, so the wait
  // ends only once the pipes have been quiet for the grace.
  let grace: ReturnType<typeof setTimeout> | undefined;
  const exitedAt = performance.now();
  const pipesClosed = await Promise.race([
    pipes.then(() => true),
    new Promise<boolean>((resolve) => {
      const check = () => {
        clearTimeout(grace);
        const now = performance.now();
        const quietFor = now - Math.max(lastOutput, exitedAt);
        // An interrupted call answers soon (within a second, with what
        // the command wrote): a process it detached may hold the pipes.
        const left = cancelled
          ? Math.max(exitedAt, interruptedAt) + INTERRUPT_PIPE_GRACE_MS - now
          : Infinity;
        if (
          quietFor >= PIPE_GRACE_MS || now - exitedAt >= PIPE_GRACE_MAX_MS ||
          left <= 0
        ) return resolve(false);
        grace = setTimeout(check, Math.min(PIPE_GRACE_MS - quietFor, left));
      };
      recheck = check;
      check();
    }),
  ]);
  recheck = () => {};
  clearTimeout(grace);
  // Nothing of the command may outlive the call.
  ctx.processes.signal(pgid, "SIGKILL");
  if (!pipesClosed) {
    await Promise.all(readers.map((r) => r.cancel().catch(() => {})));
    await pipes;
  }
  clearTimeout(killTimer);
  ctx.signal.removeEventListener("abort", onAbort);
  ctx.processes.ended(pgid);
  // The next command's process, made once this call has answered, while
  // the session waits for its next one; the cgroup it will join is the
  // worker's from now on.
  if (
    prepare && !ctx.signal.aborted && !preparing &&
    sparesOf(prepare.key) < sparesFor(prepare)
  ) {
    preparing = true;
    if (prepare.cgroup) ctx.processes.hold(prepare.cgroup);
    const next = () =>
      prepareNext(ctx, prepare, (marker) => options(prepare.args, marker));
    if (ctx.processes.offPath) ctx.processes.offPath(next);
    else setTimeout(next, 0);
  }

  const spill = await capture.finish();

  const note = (omitted: number) =>
    `[… ${plural(omitted, "byte")} of output left out${
      spill.fullPath ? `; the full output is in ${spill.fullPath}` : ""
    } …]`;
  return {
    exitCode: status.signal ? null : status.code,
    signal: status.signal,
    durationMs: Math.round(performance.now() - started),
    timedOut,
    cancelled,
    output: modelView(capture, note),

    stdout: capture.stdout.text(note),
    stderr: capture.stderr.text(note),
    stdoutBytes: capture.stdout.total,
    stderrBytes: capture.stderr.total,
    truncated: capture.combined.cut,
    fullPath: spill.fullPath,
    spillError: spill.spillError,
    sandboxed,
  };
}

/** The text a model reads: the output, then the exit code when not 0, then what was cut and where it is. */
export function describeShellResult(
  result: ShellResult,
  timeoutMs: number,
): string {
  const parts: string[] = [result.output.trimEnd() || "(no output)"];
  if (result.timedOut) {
    parts.push(
      `Timed out after ${
        Math.round(timeoutMs / 1000)
      } s; the command and its children were killed.`,
    );
  } else if (result.cancelled) {
    parts.push("Interrupted; the command and its children were killed.");
  } else if (result.signal) {
    parts.push(`Killed by ${result.signal}.`);
  } else if (result.exitCode !== 0) {
    parts.push(`Exit code ${result.exitCode}`);
  }
  if (result.truncated) {
    parts.push(
      result.fullPath
        ? `Output was ${
          result.stdoutBytes + result.stderrBytes
        } bytes; only its start and end are shown. The full output is in ${result.fullPath} (read it in parts, or search it with Grep).`
        : `Output was ${
          result.stdoutBytes + result.stderrBytes
        } bytes; only its start and end are shown${
          result.spillError
            ? ` (the full output could not be saved: ${result.spillError})`
            : ""
        }.`,
    );
  }
  return parts.join("\n");
}

/**
 * What a model sees of the output. Whole, it is stdout and stderr as they
 * arrived. Cut, each stream keeps its own head and tail (stderr in a section
 * of its own): read from two pipes, stderr could otherwise land in the
 * middle and be cut away, and it is often the part that matters.
 */
function modelView(
  capture: OutputCapture,
  note: (omitted: number) => string,
): string {
  if (!capture.combined.cut) return capture.combined.text(note);
  if (capture.stderr.total === 0) return capture.stdout.text(note);
  if (capture.stdout.total === 0) return capture.stderr.text(note);
  const stderrBudget = Math.min(
    capture.stderr.total,
    Math.floor(MAX_VIEW_CHARS / 3),
  );
  const stdout = capture.stdout.text(note, MAX_VIEW_CHARS - stderrBudget);
  return `${stdout.trimEnd()}\n[stderr]\n${
    capture.stderr.text(note, stderrBudget)
  }`;
}

/**
 * What a command tool does, as data: the command its input asks for and
 * the result it makes of how the command went. A tool that has one
 * ({@linkcode withShellCommand}) is a command and nothing else, so the
 * session runs its calls on its own thread with {@linkcode runShellCommand}
 * (the same command, confinement and environment a worker would give it,
 * without two hops between threads); its `run` does the same in a worker,
 * where a tool runs outside a session.
 */
export interface ShellCommand<I = unknown> {
  /** The command a call asks for; it runs in the workspace. */
  request(input: I): Omit<ShellRequest, "cwd">;
  /** The tool's result for how it went. */
  result(input: I, outcome: ShellResult): ToolResult;
}

const SHELL_COMMAND = Symbol("wave.shellCommand");

/** `def`, declared to run `command` (see {@linkcode ShellCommand}). */
export function withShellCommand<S extends InputSchema>(
  def: ToolDefinition<S>,
  command: ShellCommand<InputOf<S>>,
): ToolDefinition<S> {
  return Object.assign(def, { [SHELL_COMMAND]: command });
}

/** The command a tool declared with {@linkcode withShellCommand}, if it did. */
export function shellCommandOf(
  def: ToolDefinition,
): ShellCommand | undefined {
  return (def as { [SHELL_COMMAND]?: ShellCommand })[SHELL_COMMAND];
}

/**
 * Runs a command tool's call: its command in the workspace, then its
 * result. Never throws for an expected failure (a missing shell, a NUL in
 * the script): that is an error result, as from the tool's `run`.
 */
export async function runShellCommand<I>(
  command: ShellCommand<I>,
  input: I,
  ctx: ShellContext,
): Promise<ToolResult> {
  try {
    const outcome = await runShell(ctx, {
      ...command.request(input),
      cwd: ctx.workspace,
    });
    return command.result(input, outcome);
  } catch (error) {
    if (error instanceof ToolError) return toolErrorResult(error);
    throw error;
  }
}
