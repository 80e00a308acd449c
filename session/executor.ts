/**
 * The sandbox executor (docs/design.md "The sandbox"): runs tool calls
 * in Web Workers whose Deno permissions are the tool's scopes narrowed to
 * the workspace, `WAVE_HOME` and the spill directory, never `net`, nor
 * `env` but the one variable Node's spawn reads where ripgrep runs.
 *
 * Workers stay warm, one per distinct permission set, and are retired
 * after a while unused (a fresh one starts on the next call); a worker is
 * never retired with a call in flight. A call with approved paths outside
 * the workspace runs in a one-off worker that is granted just those paths
 * and ends with the call. A worker that crashes fails its calls with an
 * error result and is replaced on the next call; one that ignores an abort
 * is terminated. A call whose tool runs no commands has a deadline: when it
 * passes, the call answers with an error and its worker is replaced (a
 * command tool has its own timeout, and kills its command when it passes);
 * the time a call waits for a transcript it asked the main thread for
 * (`transcribe`, which has timeouts of its own) does not count. Every call,
 * a command tool's too, must start within its deadline and
 * {@linkcode START_ALLOWANCE_MS}, or is answered with an error and its
 * worker replaced: its module hung as it loaded.
 *
 * @module
 */

import { pathOfFileUrl } from "./_paths.ts";
import type {
  CallContextData,
  FileIdentity,
  FromWorker,
  ToWorker,
} from "./_worker_protocol.ts";
import type { ProcessGroups } from "../tools/kernel/processes.ts";
import { inNpmCache } from "../tools/kernel/programs.ts";
import type { ReadStateChanges } from "../tools/kernel/read_state.ts";
import type { Scopes, ToolEvent, ToolResult } from "../tools/kernel/tool.ts";
import {
  Access,
  EXECUTE,
  type FileBoundary,
  fileBoundary,
  type LandlockRule,
  READ,
  READ_WRITE,
} from "../tools/kernel/landlock.ts";

/** Extra paths granted to one call after the parent approved them. */
export interface Grants {
  read: string[];
  write: string[];
}

/** One call for the executor. */
export interface ExecRequest {
  callId: string;
  /** The tool's name, for the messages that speak of it. */
  toolName: string;
  /** The tool module's reference (see `loadTool`). */
  module: string;
  /** The permissions of the worker that runs it (the tool's, or wider: see the session's `workerScopes`). */
  scopes: Scopes;
  /**
   * Whether the call has the deadline: its tool runs no programs of its
   * own (default: `scopes` names none).
   */
  timed?: boolean;
  input: unknown;
  ctx: CallContextData;
  grants?: Grants;
  signal: AbortSignal;
  /** Each event the tool emits, in order, before the call's outcome resolves. */
  onEvent(event: ToolEvent): void;
  /**
   * Makes the transcript the tool asks for (`ctx.transcribe`); it checks
   * the path. Rejects with an error whose `message` the tool throws, with
   * its `structured`. Absent: the worker is told no model is configured.
   */
  transcribe?(path: string, file: FileIdentity): Promise<string>;
  /**
   * Opens a file for the person (`ctx.openFile`); it checks the path.
   * Resolves with what happened; rejects with an error whose `message` the
   * tool throws, with its `structured`. Absent: the worker is told files
   * cannot be opened.
   */
  openFile?(path: string, timeoutMs: number): Promise<string>;
  /**
   * Reads (no `text`: resolves with the text) or writes the editor's
   * buffer of `path` (`ctx.buffers`); it checks the path. Rejects with an
   * error whose `message` the tool throws, with its `structured`. Absent:
   * the worker is told this call has no editor.
   */
  buffer?(path: string, text?: string): Promise<string>;
}

/** What a call produced. */
export interface ExecOutcome {
  result: ToolResult;
  readState: ReadStateChanges;
}

/** Options of a {@linkcode SandboxExecutor}. */
export interface ExecutorOptions {
  workspace: string;
  waveHome: string;
  /**
   * This workspace's file history under `waveHome` (`historyDir`, or
   * `historyDirAsync` where `node:crypto` is not loaded yet).
   */
  historyDir: string;
  processes: ProcessGroups;
  /**
   * Directories of extra tool modules (`--tool-module`): a worker must be
   * able to read a module that is not in wave's own module graph.
   */
  moduleDirs?: readonly string[];
  /** How long an aborted call may take to stop before its worker is terminated. */
  abortGraceMs?: number;
  /**
   * How long a warm worker may sit unused before it is terminated (default
   * {@linkcode IDLE_RETIREMENT_MS}).
   */
  idleMs?: number;
  /**
   * The wall-clock deadline of a call whose tool runs no commands (no `run`
   * scope), from when the tool starts running in its worker (default
   * {@linkcode TOOL_DEADLINE_MS}).
   */
  deadlineMs?: number;
  /**
   * How the file tools' workers are held to their roots (default
   * {@linkcode fileBoundary}): `landlock` confines each worker of file
   * tools with the kernel's Landlock; `paths` leaves them to the
   * resolver's checks and Deno's permissions.
   */
  fileBoundary?: FileBoundary;
  /**
   * The session's spill directory (under `WAVE_HOME/spill`): the one part
   * of WAVE_HOME besides {@linkcode SandboxExecutor.sharedState} a
   * confined worker may read.
   */
  spillDir?: string;
  /**
   * The scratch workspace of the session's warm-up calls (the tools'
   * `warmup`, see `ToolCalls.prewarm`), under the spill directory: the
   * workers of file tools may read it, and those of tools that write may
   * write it, so a warm-up runs in the worker its tool's calls will.
   */
  warmupDir?: string;
}

/**
 * How long a warm worker may sit unused before it is retired: 30 s. A
 * model's calls come in bursts a few seconds apart (it reads the results,
 * then asks for more), so a worker outlives the pauses of a turn; a session
 * left idle (a person reading, a parent between tasks) gives back what each
 * worker holds, some 10–25 MB and a thread, for a restart of ~50–100 ms of
 * CPU on its next call.
 */
export const IDLE_RETIREMENT_MS = 30_000;

/**
 * The deadline of a call whose tool runs no commands: 60 s. A file tool
 * that has not answered by then is stuck (a read inside one enormous line,
 * a pathological pattern), not slow: the bench's largest cases take well
 * under a second.
 */
export const TOOL_DEADLINE_MS = 60_000;

/**
 * How much longer than its deadline a call may wait for its tool to start:
 * 10 s for its worker's start (its module graph takes ~50–100 ms, seconds
 * on a loaded machine) and its module's load. A call that has not started
 * by then is answered with an error ({@linkcode notStarted}).
 */
export const START_ALLOWANCE_MS = 10_000;

/** A worker's first code: it confines itself, then imports `_tool_worker.ts`. */
const WORKER_URL = new URL("./_tool_worker_entry.js", import.meta.url).href;

// This literal import(), never called, makes Deno prepare the worker's whole
// graph on the main thread as this module loads: a worker may not read
// wave's source, and takes its code from memory.
// deno-lint-ignore no-unused-vars
const workerGraph = () => import("./_tool_worker_entry.js");

/**
 * wave's own modules, which a worker imports as it needs them (in a
 * compiled binary they live in an embedded file system: the rule is then
 * skipped, the path not existing).
 */
const WAVE_SOURCE = pathOfFileUrl(new URL("..", import.meta.url));

/**
 * Deno's cache (`DENO_DIR`, as Deno finds it on Linux): a worker resolves
 * and loads npm packages from it on its own thread, as its tools import
 * them.
 */
function denoCacheDir(): string {
  const explicit = Deno.env.get("DENO_DIR");
  if (explicit) return explicit;
  // Where Deno did put the npm packages (zod, which every worker loads):
  // without HOME it takes the user's home from the password database,
  // which the variables below cannot tell (every file tool failed then).
  const npm = inNpmCache("zod");
  if (npm) return npm.cache;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  if (xdg) return `${xdg}/deno`;
  return `${Deno.env.get("HOME") ?? "/nonexistent"}/.cache/deno`;
}

/**
 * The parts of Deno's cache a worker loads code from: the npm packages,
 * and the transpiled modules of wave's own tree.
 */
function moduleCacheDirs(): string[] {
  const cache = denoCacheDir();
  return [`${cache}/npm`, `${cache}/gen/file${WAVE_SOURCE}`];
}

/**
 * The programs a file tool may run and stay confined (Landlock): ripgrep,
 * one static binary. A worker whose tools run others (a shell) is not
 * confined.
 */
export const FILE_PROGRAMS: readonly string[] = ["rg"];

/** The one environment variable a worker that runs ripgrep may read: Node's `child_process.spawn` reads it (a coverage directory to pass on). */
const NODE_SPAWN_READS = "NODE_V8_COVERAGE";

function runsRipgrep(scopes: Scopes): boolean {
  return scopes.run?.includes("rg") ?? false;
}

/** What the executor hears of a running call, besides its result. */
interface CallHooks {
  /** The tool starts running. */
  onStarted(): void;
  /** A transcript or an editor buffer was asked for (`true`) or answered (`false`): the deadline waits meanwhile. */
  onTranscribing(active: boolean): void;
}

interface PendingCall {
  request: ExecRequest;
  resolve(outcome: ExecOutcome): void;
  hooks: CallHooks;
  /** The call's answer once it has passed its deadline. */
  expired?: ToolResult;
}

let nextWorkerId = 1;

class SandboxWorker {
  readonly id = nextWorkerId++;
  readonly worker: Worker;
  readonly pending = new Map<string, PendingCall>();
  dead = false;
  /** Takes no more calls, and ends once the calls it has are answered. */
  retiring = false;
  onDead: (self: SandboxWorker) => void = () => {};
  #processes: ProcessGroups;

  constructor(
    permissions: Deno.PermissionOptionsObject,
    processes: ProcessGroups,
    confinement?: readonly LandlockRule[],
  ) {
    this.#processes = processes;
    this.worker = new Worker(WORKER_URL, {
      type: "module",
      name: `wave-tool-${this.id}`,
      // FFI only to restrict itself: the worker gives it up before any call.
      deno: { permissions: { ...permissions, ffi: !!confinement } },
    });
    this.worker.onmessage = (event: MessageEvent<FromWorker>) =>
      this.#receive(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.terminate(`the tool's sandbox worker crashed: ${event.message}`);
    };
    this.worker.onmessageerror = () =>
      this.terminate(
        "the tool's sandbox worker sent a message that could not be read",
      );
    // Messages are handled in order: the worker is confined before any call.
    if (confinement) {
      this.worker.postMessage(
        { type: "confine", rules: confinement } satisfies ToWorker,
      );
    }
  }

  /** Sends a call; `hooks` hear when the tool starts running, and its transcripts. */
  run(request: ExecRequest, hooks: CallHooks): Promise<ExecOutcome> {
    return new Promise((resolve) => {
      this.pending.set(request.callId, { request, resolve, hooks });
      const message: ToWorker = {
        type: "call",
        id: request.callId,
        module: request.module,
        input: request.input,
        ctx: request.ctx,
      };
      this.worker.postMessage(message);
    });
  }

  /** Resolvers of the preloads sent, in order (a worker answers them in order). */
  #preloaded: (() => void)[] = [];

  /** Has the worker load `modules`; settles when it has (or has ended). */
  preload(modules: readonly string[]): Promise<void> {
    if (this.dead) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#preloaded.push(resolve);
    this.worker.postMessage({ type: "preload", modules } satisfies ToWorker);
    return promise;
  }

  abort(callId: string): void {
    if (!this.dead) this.worker.postMessage({ type: "abort", id: callId });
  }

  /**
   * A call passed its deadline: it is asked to stop, and it will answer
   * `result` when the worker ends. The worker takes no more calls and ends
   * at once, or, while it has other calls, as soon as they are answered
   * (the executor bounds that wait).
   */
  expire(callId: string, result: ToolResult): void {
    const call = this.pending.get(callId);
    if (!call || this.dead) return;
    call.expired = result;
    this.abort(callId);
    this.retire();
  }

  /**
   * Takes no more calls; ends the worker once the calls it has are
   * answered (those past their deadline do not count), which is at once
   * when it has none.
   */
  retire(): void {
    this.retiring = true;
    this.#endIfRetired();
  }

  #endIfRetired(): void {
    if (!this.retiring || this.dead) return;
    for (const call of this.pending.values()) if (!call.expired) return;
    this.terminate("the tool's sandbox worker was retired");
  }

  /**
   * Ends the worker: calls still running get `message` as an error result
   * (or their deadline's), its process groups are killed.
   */
  terminate(message: string): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    for (const resolve of this.#preloaded.splice(0)) resolve();
    this.#processes.kill(this.#processes.ofWorker(this.id));
    this.#processes.releaseHeld(this.id);
    for (const { resolve, expired } of this.pending.values()) {
      resolve({
        result: expired ?? {
          content: message,
          isError: true,
          structured: { type: "sandbox_failure" },
        },
        readState: {},
      });
    }
    this.pending.clear();
    this.onDead(this);
  }

  /**
   * Answers one of a pending call's requests to the main thread (a
   * transcript, an opened file, an editor buffer) with what `work` makes;
   * with `outsideDeadline` the call's deadline waits meanwhile (the
   * speech-to-text model's time, or the editor's, is not the tool's).
   */
  async #answer(
    call: PendingCall,
    request: number,
    kind: "transcript" | "opened" | "buffered",
    failure: string,
    work: () => Promise<string>,
    outsideDeadline: boolean,
  ): Promise<void> {
    if (outsideDeadline) call.hooks.onTranscribing(true);
    let answer: ToWorker;
    try {
      answer = await answerOf(
        call.request.callId,
        kind,
        request,
        failure,
        work,
      );
    } finally {
      if (outsideDeadline) call.hooks.onTranscribing(false);
    }
    this.#postWhilePending(call, answer);
  }

  /** Posts `answer` to the worker, unless the call ended meanwhile. */
  #postWhilePending(call: PendingCall, answer: ToWorker): void {
    if (!this.dead && this.pending.get(call.request.callId) === call) {
      this.worker.postMessage(answer);
    }
  }

  #receive(message: FromWorker): void {
    if (message.type === "preloaded") {
      this.#preloaded.shift()?.();
      return;
    }
    if (message.type === "unconfined") {
      // system/init promised Landlock: no call runs without it.
      this.terminate(
        `the tool's sandbox worker could not confine itself to its roots (${message.why}), so the call was not run`,
      );
      return;
    }
    if (message.type === "ending") {
      this.terminate(
        `the tool ended its sandbox worker (${message.how}), so the call was not answered`,
      );
      return;
    }
    const call = this.pending.get(message.id);
    switch (message.type) {
      case "result":
        if (!call) return;
        this.pending.delete(message.id);
        // Past its deadline the answer is the deadline's; what it read or
        // wrote before it stopped is still true.
        call.resolve({
          result: call.expired ?? message.result,
          readState: message.readState,
        });
        this.#endIfRetired();
        return;
      case "started":
        call?.hooks.onStarted();
        return;
      case "transcribe": {
        const { transcribe } = call?.request ?? {};
        if (call) {
          this.#answer(
            call,
            message.request,
            "transcript",
            "transcription_failed",
            () => {
              if (!transcribe) {
                throw Object.assign(
                  new Error("no speech-to-text model is configured"),
                  { structured: { type: "no_stt_model" } },
                );
              }
              return transcribe(message.path, message.file);
            },
            true,
          );
        }
        return;
      }
      case "buffer": {
        const { buffer } = call?.request ?? {};
        if (call) {
          this.#answer(
            call,
            message.request,
            "buffered",
            "buffer_failed",
            () => {
              if (!buffer) {
                throw new Error(
                  "this call has no editor to ask for its buffers",
                );
              }
              return buffer(message.path, message.text);
            },
            true,
          );
        }
        return;
      }
      case "open_file": {
        const { openFile } = call?.request ?? {};
        if (call) {
          this.#answer(call, message.request, "opened", "open_failed", () => {
            if (!openFile) throw new Error("this session cannot open files");
            return openFile(message.path, message.timeoutMs);
          }, false);
        }
        return;
      }
      case "event":
        call?.request.onEvent(message.event);
        return;
      case "process":
        if (message.op === "started") {
          const taken = this.#processes.started(
            message.pgid,
            message.id,
            this.id,
            message.marker,
            message.cgroup,
          );
          // A group started after its call was given up on dies at once.
          if (!call && taken) this.#processes.kill([message.pgid]);
        } else if (message.op === "prepared") {
          // Not the call's: it may have ended; the worker's end kills it.
          this.#processes.started(
            message.pgid,
            message.id,
            this.id,
            message.marker,
            message.cgroup,
            true,
          );
        } else if (message.op === "held") {
          if (message.cgroup) this.#processes.hold(message.cgroup, this.id);
        } else if (message.op === "adopted") {
          const own = this.#processes.adopt(message.pgid, message.id, this.id);
          if (!call && own) this.#processes.kill([message.pgid]);
        } else this.#processes.ended(message.pgid, this.id);
        return;
      case "signal":
        this.#processes.signal(message.pgid, message.id, message.signal);
        return;
    }
  }
}

/** Runs tool calls in permission-narrowed workers. */
export class SandboxExecutor {
  #options: ExecutorOptions;
  #warm = new Map<string, SandboxWorker>();
  /** Warm workers with no call in flight → their retirement timers. */
  #idle = new Map<SandboxWorker, ReturnType<typeof setTimeout>>();
  /** Every worker not yet ended: warm, one-off, and those ending. */
  #running = new Set<SandboxWorker>();
  #closed = false;

  constructor(options: ExecutorOptions) {
    this.#options = options;
    // Landlock grants directories that exist: these are made now.
    for (
      const dir of [
        ...this.sharedState,
        ...(options.spillDir ? [options.spillDir] : []),
        ...(options.warmupDir ? [options.warmupDir] : []),
      ]
    ) {
      try {
        Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
      } catch { /* read-only WAVE_HOME: the tools that write there will say */ }
    }
  }

  /** The Deno permissions of a worker for `scopes` and `grants`. */
  #permissionsFor(
    scopes: Scopes,
    programs: string[],
    grants?: Grants,
  ): Deno.PermissionOptionsObject {
    const { workspace, waveHome } = this.#options;
    const write = scopes.write === true
      ? [workspace, waveHome, ...(grants?.write ?? [])]
      : scopes.write === "state"
      ? [waveHome]
      : false;
    return {
      read: [
        workspace,
        waveHome,
        ...(this.#options.moduleDirs ?? []),
        ...(grants?.read ?? []),
      ],
      write,
      run: scopes.run?.length ? programs : false,
      net: false,
      // Node's spawn, which hands ripgrep a file wave opened as its stdin
      // (tools/_core/ripgrep.ts), reads this one variable; nothing else.
      env: runsRipgrep(scopes) ? [NODE_SPAWN_READS] : false,
      sys: false,
      ffi: false,
    };
  }

  /**
   * The Landlock rules of a worker of file tools (no commands: a shell's
   * programs need the whole system, and bubblewrap, which confines them,
   * cannot run under Landlock), or undefined where the kernel has none
   * (`fileBoundary`). The same roots as its Deno permissions, held by the
   * kernel on the file a path reaches when it is opened: a directory
   * swapped for a symlink between the resolver's check and the open does
   * not lead out.
   */
  #confinementFor(
    scopes: Scopes,
    programs: string[],
    grants?: Grants,
  ): LandlockRule[] | undefined {
    if ((this.#options.fileBoundary ?? fileBoundary()) !== "landlock") {
      return undefined;
    }
    if (scopes.run?.some((name) => !FILE_PROGRAMS.includes(name))) {
      return undefined;
    }
    const { workspace } = this.#options;
    const writes = scopes.write === true;
    const rules: LandlockRule[] = [
      { path: workspace, access: writes ? READ_WRITE : READ },
      // Of WAVE_HOME only what file tools use: the file history and the
      // task lists (written by the tools that change them), and this
      // session's spill files (read); never other sessions' transcripts.
      ...this.sharedState.map((path) => ({
        path,
        access: scopes.write ? READ_WRITE : READ,
      })),
      ...(this.#options.spillDir
        ? [{ path: this.#options.spillDir, access: READ }]
        : []),
      ...(this.#options.warmupDir
        ? [{
          path: this.#options.warmupDir,
          access: scopes.write ? READ_WRITE : READ,
        }]
        : []),
      // What a worker loads its code from, read-only: wave's tree, and of
      // Deno's cache the npm packages and wave's own transpiled modules,
      // not the rest (what other programs Deno ran left there: their
      // transpiled sources, their code caches), which a race that swaps a
      // directory of the workspace for a link there would otherwise reach.
      ...[
        WAVE_SOURCE,
        ...moduleCacheDirs(),
        ...(this.#options.moduleDirs ?? []),
      ].map((path) => ({
        path,
        access: READ,
      })),
      ...programs.map((path) => ({ path, access: EXECUTE })),
      { path: "/dev/null", access: READ | Access.writeFile },
    ].map((rule) => ({ ...rule, path: realPathOrSelf(rule.path) }));
    // The roots above by real path: the worker opens each without
    // following a symlink (one swapped in since would otherwise widen its
    // rules), so a root reached through one (a symlinked cache, home or
    // workspace) is named as what it leads to. The grants are the paths
    // the resolver checked, already real: resolved again now, a name
    // swapped for a link since would be granted as the link's target.
    return [
      ...rules,
      ...(grants?.read ?? []).map((path) => ({ path, access: READ })),
      ...(writes ? grants?.write ?? [] : []).map((path) => ({
        path,
        access: READ_WRITE,
      })),
    ];
  }

  /**
   * Starts the warm worker for `scopes` and `programs` now, if there is
   * none, and has it load `modules`: the first call of those tools then
   * finds its worker running and its module loaded, instead of paying for
   * both (a worker's start and a module graph take tens of milliseconds).
   * The worker is retired after the idle time like any other. Settles
   * when the modules are loaded, so that workers can be warmed one after
   * another rather than all at once.
   */
  prewarm(
    scopes: Scopes,
    programs: readonly string[],
    modules: readonly string[],
  ): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const worker = this.#warmWorker(scopes, [...programs].sort());
    if (worker.pending.size === 0) this.#retireWhenIdle(worker);
    return worker.preload(modules);
  }

  /**
   * The directories of `WAVE_HOME` a confined worker of file tools may
   * use: this workspace's file history (not another workspace's) and the
   * task lists (shared by sessions that name one).
   */
  get sharedState(): string[] {
    const { historyDir, waveHome } = this.#options;
    return [historyDir, `${waveHome}/tasks`];
  }

  /** How many workers are running now: warm, one-off, and those ending. */
  get workers(): number {
    return this.#running.size;
  }

  /**
   * Runs one call. Never rejects: a crash, a termination, a deadline or a
   * refusal by the sandbox is an error result.
   */
  async run(request: ExecRequest): Promise<ExecOutcome> {
    if (this.#closed) {
      return {
        result: { content: "wave is shutting down", isError: true },
        readState: {},
      };
    }
    const programs = Object.values(request.ctx.programs).sort();
    const oneOff = !!request.grants &&
      (request.grants.read.length > 0 || request.grants.write.length > 0);
    const worker = oneOff
      ? this.#spawnOneOff(request.scopes, programs, request.grants)
      : this.#warmWorker(request.scopes, programs);
    const graceMs = this.#options.abortGraceMs ?? 1500;

    const { signal } = request;
    let stuck: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      worker.abort(request.callId);
      stuck = setTimeout(
        () =>
          worker.terminate(
            "the tool did not stop after the interrupt; its sandbox worker was terminated",
          ),
        graceMs,
      );
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const deadlineMs = this.#options.deadlineMs ?? TOOL_DEADLINE_MS;
    // What is left of the deadline, and since when it runs; it stops while
    // the call waits for a transcript.
    let left = deadlineMs;
    let since = 0;
    let started = false;
    let transcribing = 0;
    const timed = request.timed ?? !request.scopes.run?.length;
    /** Answers the call with `result`, and replaces its worker. */
    const giveUp = (result: ToolResult, why: string) => {
      // The next call gets a fresh worker; this one ends when its other
      // calls are answered, or after the grace.
      this.#forget(worker);
      worker.expire(request.callId, result);
      if (!worker.dead) {
        Deno.unrefTimer(setTimeout(
          () =>
            worker.terminate(
              `the tool's sandbox worker was replaced: another call on it (${request.toolName}) ${why}`,
            ),
          graceMs,
        ));
      }
    };
    const arm = () => {
      since = Date.now();
      deadline = setTimeout(
        () =>
          giveUp(
            overran(request.toolName, deadlineMs),
            "passed its deadline",
          ),
        left,
      );
    };
    // Every call, a command tool's too, must start within the deadline and
    // the allowance for a worker's start: one that has not is stuck before
    // its tool runs (its module hangs as it loads, or holds its worker's
    // thread), and would otherwise wait for ever.
    const toStart = setTimeout(
      () =>
        giveUp(
          notStarted(request.toolName, deadlineMs + START_ALLOWANCE_MS),
          "did not start",
        ),
      deadlineMs + START_ALLOWANCE_MS,
    );
    const hooks: CallHooks = {
      // Counted from when the tool starts running: a worker's start-up (its
      // module graph, ~50–100 ms, more on a loaded machine) is not the call's.
      onStarted: () => {
        started = true;
        clearTimeout(toStart);
        if (timed && transcribing === 0) arm();
      },
      onTranscribing: (active) => {
        if (!timed) return;
        if (active && transcribing++ === 0 && deadline !== undefined) {
          clearTimeout(deadline);
          deadline = undefined;
          left -= Date.now() - since;
        } else if (!active && --transcribing === 0 && started) arm();
      },
    };
    try {
      return await worker.run(request, hooks);
    } finally {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(stuck);
      clearTimeout(deadline);
      clearTimeout(toStart);
      if (oneOff) {
        worker.terminate("the call's one-off worker was closed");
      } else if (
        worker.pending.size === 0 && !worker.dead && !worker.retiring
      ) {
        this.#retireWhenIdle(worker);
      }
    }
  }

  /** Retires a warm worker after it has been unused for the idle time. */
  #retireWhenIdle(worker: SandboxWorker): void {
    clearTimeout(this.#idle.get(worker));
    const timer = setTimeout(() => {
      this.#idle.delete(worker);
      // A call that took the worker meanwhile cleared this timer; the
      // check is for certainty: a worker with a call in flight stays.
      if (worker.pending.size > 0) return;
      this.#forget(worker);
      worker.retire();
    }, this.#options.idleMs ?? IDLE_RETIREMENT_MS);
    // An idle worker never keeps wave running.
    Deno.unrefTimer(timer);
    this.#idle.set(worker, timer);
  }

  /** Takes a warm worker out of service: the next call of its kind starts a fresh one. */
  #forget(worker: SandboxWorker): void {
    clearTimeout(this.#idle.get(worker));
    this.#idle.delete(worker);
    for (const [key, warm] of this.#warm) {
      if (warm === worker) this.#warm.delete(key);
    }
  }

  #warmWorker(scopes: Scopes, programs: string[]): SandboxWorker {
    const key = JSON.stringify([
      !!scopes.read,
      scopes.write ?? false,
      programs,
      runsRipgrep(scopes), // its env (see #permissionsFor)
    ]);
    let worker = this.#warm.get(key);
    if (!worker || worker.dead || worker.retiring) {
      worker = this.#spawn(scopes, programs);
      this.#warm.set(key, worker);
    }
    clearTimeout(this.#idle.get(worker));
    this.#idle.delete(worker);
    return worker;
  }

  #spawnOneOff(
    scopes: Scopes,
    programs: string[],
    grants?: Grants,
  ): SandboxWorker {
    return this.#spawn(scopes, programs, grants);
  }

  #spawn(scopes: Scopes, programs: string[], grants?: Grants): SandboxWorker {
    const worker = new SandboxWorker(
      this.#permissionsFor(scopes, programs, grants),
      this.#options.processes,
      this.#confinementFor(scopes, programs, grants),
    );
    this.#running.add(worker);
    worker.onDead = (dead) => {
      this.#running.delete(dead);
      this.#forget(dead);
    };
    return worker;
  }

  /** Terminates every worker; their pending calls get error results. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#idle.values()) clearTimeout(timer);
    this.#idle.clear();
    for (const worker of [...this.#running]) {
      worker.terminate("wave is shutting down");
    }
  }
}

/**
 * The answer to what a call's tool asked the main thread for (`work`):
 * its text, or the failure the tool throws.
 */
async function answerOf(
  id: string,
  type: "transcript" | "opened" | "buffered",
  request: number,
  fallback: string,
  work: () => Promise<string>,
): Promise<ToWorker> {
  try {
    return { type, id, request, text: await work() };
  } catch (error) {
    return { type, id, request, error: failureOf(error, fallback) };
  }
}

/**
 * A failure of the main thread's side of a call (a transcript, an open)
 * as its worker hears it: the message the tool throws, and the error's
 * `structured`, else `{type: fallback}`.
 */
function failureOf(
  error: unknown,
  fallback: string,
): { message: string; structured: unknown } {
  return {
    message: error instanceof Error ? error.message : String(error),
    structured: (error as { structured?: unknown }).structured ??
      { type: fallback },
  };
}

/** `path` with its symlinks resolved, or as it is when it cannot be (nothing there: its rule is left out). */
function realPathOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/** The answer of a call whose tool did not start within `limitMs`: what, and what to look at. */
function notStarted(toolName: string, limitMs: number): ToolResult {
  return {
    content: `${toolName} did not start within ${limitMs / 1000} s: its ` +
      "sandbox worker did not finish loading the tool's code (a module that " +
      "hangs as it loads, or holds its worker's thread), so the call was " +
      "stopped and the worker replaced.",
    isError: true,
    structured: { type: "deadline_exceeded", deadline_ms: limitMs },
  };
}

/** The answer of a call that passed its deadline: what, how long, and what to try. */
function overran(toolName: string, deadlineMs: number): ToolResult {
  const limit = deadlineMs % 1000 === 0
    ? `${deadlineMs / 1000} s`
    : `${deadlineMs} ms`;
  return {
    content: `${toolName} did not finish within its deadline of ${limit}, ` +
      "so it was stopped and its sandbox worker replaced. Try a smaller " +
      "request: a narrower range (offset and limit), a more specific path " +
      "or pattern.",
    isError: true,
    structured: { type: "deadline_exceeded", deadline_ms: deadlineMs },
  };
}
