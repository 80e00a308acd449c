/**
 * The one path every tool call takes, whether a parent sent `call_tool` or a
 * model asked for it: lookup, mode gate, schema validation, path resolution,
 * approvals, the write queue, and the sandboxed run.
 *
 * @module
 */

import { dirname } from "../tools/kernel/posix_path.ts";
import { ApprovalGate } from "./approvals.ts";
import { CommandSandbox, keyFiles } from "./command_sandbox.ts";
import { deniedPaths, hideDenied } from "./denied_paths.ts";
import { pathGlobs } from "./tool_rules.ts";
import type { HiddenGlob } from "../tools/kernel/hidden.ts";
import { type Config, type Mode, spillDirOf, warmupDirOf } from "./config.ts";
import {
  FILE_PROGRAMS,
  type Grants,
  type SandboxExecutor,
} from "./executor.ts";
import { describeIssues } from "./inbound.ts";
import type { CallToolAnswer } from "./outbound.ts";
import { ReadState } from "../tools/kernel/read_state.ts";
import type { CommandConfinement } from "../tools/kernel/bwrap.ts";
import type { ProcessGroups } from "../tools/kernel/processes.ts";
import type { RegisteredTool, ToolRegistry } from "./registry.ts";
import { boundIn } from "../tools/kernel/modes.ts";
import { resolvePrograms } from "../tools/kernel/programs.ts";
import {
  discardPrepared,
  prepareShell,
  runShellCommand,
  shellCommandOf,
} from "../tools/_core/shell.ts";
import {
  type PathUse,
  type Scopes,
  ToolError,
  type ToolEvent,
  type ToolResult,
  WARMUP_FILES,
  zodSchemaOf,
} from "../tools/kernel/tool.ts";
import { type Transcriber, TranscriptionError } from "./transcriber.ts";
import { WriteQueue } from "./write_queue.ts";
import type { CallHooks } from "./call_hooks.ts";
import type { ToolPermissions } from "./permissions.ts";
import type { CurrentTask } from "./current_task.ts";
import type { ParentRequests } from "./parent_requests.ts";
import { openWithSystem } from "./system_opener.ts";
import { callBuffers, type EditorBuffers } from "./editor_buffers.ts";
import {
  type ResolvedPath,
  resolveInWorkspace,
} from "../tools/kernel/workspace.ts";

/** A call's result, in the protocol's words: `call_tool`'s answer (outbound.ts). */
export type CallResult = CallToolAnswer;

/** An approval a call needed, and how it was decided (for the transcript). */
export interface ApprovalOutcome {
  /** What was asked: "path outside the workspace: /etc/hosts". */
  reason: string;
  allowed: boolean;
  /** `parent`: the parent was asked; `policy`: `--approvals` decided. */
  by: "parent" | "policy";
  /** Why it was refused. */
  message?: string;
}

/** A call that passed lookup, mode and schema checks. */
export interface PreparedCall {
  tool: RegisteredTool;
  input: unknown;
  toolUseId: string;
}

/** What {@linkcode ToolCalls} needs from its session. */
export interface ToolCallsDeps {
  config: Config;
  registry: ToolRegistry;
  executor: SandboxExecutor;
  /** The session's process groups, and its commands' cgroups. */
  processes: ProcessGroups;
  approvals: ApprovalGate;
  readState: ReadState;
  writeQueue: WriteQueue;
  /** The current mode (it changes with `set_permission_mode`). */
  mode(): Mode;
  /** The allow-listed environment for commands. */
  env: Record<string, string>;
  /**
   * The WAVE_HOME the programs tools run are found in (a compiled wave
   * copies ripgrep into its `bin`): the config's unless set. The warm-up
   * calls' scratch session sets the session's, so that its calls run the
   * very programs, in the very workers, the session's calls do.
   */
  programsHome?: string;
  home?: string;
  /** The session's speech-to-text model (`--stt-model`), if it has one. */
  transcriber?: Transcriber;
  /** The task calls belong to now (user turn, `set_task`, or the session's own). */
  task: CurrentTask;
  /**
   * The session the calls are recorded under (file history): the
   * config's unless set (one ACP session of a core's, see
   * {@linkcode ToolCalls.forSession}).
   */
  sessionId?: string;
  /** The task list the task tools work on: the config's unless set. */
  taskListId?: string;
  /**
   * Where its tools put output too long to return, which its calls read
   * back without approval: the config's ({@linkcode spillDirOf}) unless
   * set (a session of its own has one inside the core's, which the
   * workers may read).
   */
  spillDir?: string;
  /** Requests to the parent (open_file under `--open-with parent`). */
  parent: ParentRequests;
  /** The tool-level permissions (Claude Code's rules and permission mode), when the session has them. */
  permissions?: ToolPermissions;
  /**
   * The front's editor, when it serves its buffers: calls of a tool that
   * declares `buffers` read and write the files they named through it.
   */
  buffers?: EditorBuffers;
  /**
   * Each event a call's tool emits, in order. A promise it returns is
   * awaited before the call's result is returned, so whatever it writes
   * goes out ahead of the result.
   */
  onEvent(
    toolUseId: string,
    event: ToolEvent,
    sessionId: string,
  ): Promise<void> | void;
}

/** The number of the next internal call id (a worker's, a command's records). */
let nextCall = 1;
/** The number of the next tool_use id wave makes for a call that came without one. */
let nextToolUseId = 1;

/** One warm-up call {@linkcode ToolCalls.prewarm} made. */
export interface WarmupCall {
  /** The tool's name. */
  tool: string;
  /** Its input, one of the tool's `warmup`. */
  input: unknown;
  /** What it answered in the scratch workspace (the session discards it). */
  result: CallResult;
}

/** Options of {@linkcode ToolCalls.prewarm}. */
export interface PrewarmOptions {
  /** Ends the warm-up at its next step (the session is closing). */
  signal?: AbortSignal;
  /** Told the tool's name as each warm-up call starts. */
  onCall?(tool: string): void;
  /**
   * Whether the process of the first command is made too (default true):
   * not where no command runs as the core's own session, whose sessions
   * each make theirs ({@linkcode ToolCalls.prepareCommand}).
   */
  firstCommand?: boolean;
}

/**
 * Real work in flight (calls, and what {@linkcode ToolCalls.hold} marks),
 * shared by a core's {@linkcode ToolCalls} and those
 * {@linkcode ToolCalls.forSession} derives: the warm-up waits until
 * there is none.
 */
class CallActivity {
  running = 0;
  #quiet: PromiseWithResolvers<void> | undefined;

  /** Work starts; the returned function says it ended (once; later calls do nothing). */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.running === 0) {
        this.#quiet?.resolve();
        this.#quiet = undefined;
      }
    };
  }

  /**
   * Resolves once no work is in flight and the event loop went round
   * once: a line that arrived meanwhile is dispatched (and its work
   * counted) before idle work goes on.
   */
  async idle(): Promise<void> {
    do {
      while (this.running > 0) {
        await (this.#quiet ??= Promise.withResolvers<void>()).promise;
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    } while (this.running > 0);
  }
}

/**
 * How old a warm-up's scratch directory of another session must be to be
 * left over: a warm-up takes seconds and removes its directory when it
 * ends. One that has waited longer (real work in flight all that time)
 * and is swept loses only its remaining warm-up calls, which then fail
 * and are discarded as any warm-up result is.
 */
export const STALE_WARMUP_MS = 60 * 60 * 1000;

/**
 * Removes the warm-up directories (`warmups`: where
 * {@linkcode warmupDirOf} puts each session's) that other sessions left
 * when their process was killed before their warm-up ended (SIGKILL, a
 * crash): each one last changed more than {@linkcode STALE_WARMUP_MS} ago.
 * Anything else there (a link, a file) is left alone. Never fails: what
 * cannot be removed stays.
 */
export function sweepStaleWarmups(warmups: string, sessionId: string): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(warmups)];
  } catch {
    return; // none made yet
  }
  const before = Date.now() - STALE_WARMUP_MS;
  for (const { name, isDirectory } of entries) {
    if (!isDirectory || name === sessionId) continue;
    try {
      const changed = Deno.lstatSync(`${warmups}/${name}`).mtime?.getTime();
      if ((changed ?? 0) > before) continue;
      Deno.removeSync(`${warmups}/${name}`, { recursive: true });
    } catch { /* gone meanwhile, or in use: left as it is */ }
  }
}

/** A tool that changes nothing and runs no program but the file programs (Read, Grep, Glob, read_files …). */
function isFileReader(scopes: Scopes): boolean {
  return !scopes.write &&
    (scopes.run ?? []).every((name) => FILE_PROGRAMS.includes(name));
}

/**
 * The scopes a tool's worker is made with: its own, except that the
 * read-only file tools share one worker, which may run the file programs
 * (ripgrep). One warm
 * worker instead of two (each holds some 20 MB), and the one the session
 * warms at start serves a first Grep or Glob as well as a first Read.
 */
function workerScopes(scopes: Scopes): Scopes {
  return isFileReader(scopes)
    ? { read: scopes.read, run: [...FILE_PROGRAMS] }
    : scopes;
}

/**
 * What one session of its own on a shared core keeps apart from the
 * core's other sessions ({@linkcode ToolCalls.forSession}).
 */
export type SessionScope =
  & Pick<
    ToolCallsDeps,
    "registry" | "mode" | "readState" | "task" | "permissions"
  >
  & Required<Pick<ToolCallsDeps, "sessionId" | "taskListId" | "spillDir">>;

/** The id a session's calls are recorded and told under: its own, else the config's. */
function sessionIdOf(deps: ToolCallsDeps): string {
  return deps.sessionId ?? deps.config.sessionId;
}

/** A session's spill directory: its own, else the config's. */
function spillDirIn(deps: ToolCallsDeps): string {
  return deps.spillDir ?? spillDirOf(deps.config);
}

/** Runs tool calls for one session. */
export class ToolCalls {
  #deps: ToolCallsDeps;
  /** The parent's hooks around each call (a front sets them when its parent registers them). */
  hooks: CallHooks | undefined;

  constructor(deps: ToolCallsDeps) {
    this.#deps = deps;
    this.#activity = new CallActivity();
    this.#keyFiles = new Set(
      keyFiles(deps.config).flatMap((file) => {
        try {
          return [Deno.realPathSync(file)];
        } catch {
          return []; // gone
        }
      }),
    );
  }

  /** The real paths of the files the model keys came from, found once: a call that names one is asked about. */
  #keyFiles: Set<string>;

  /**
   * The same calls for one session of its own on this core (an ACP
   * session, an MCP session over HTTP), with what `scope` gives it: a
   * registry (which may hold tools this one does not, its MCP servers'),
   * a mode, a read state, a task, a task list, tool permissions, the id
   * its calls are recorded under; what it leaves out is the core's. The
   * workers, the write queue, the approvals and the parent are shared:
   * they are the core's, and a file is one file whichever session writes
   * it. The parent's hooks are not carried over: a front that has them
   * sets them on each (only stream-json has them, one session a process).
   */
  forSession(scope: Partial<SessionScope>): ToolCalls {
    const calls = new ToolCalls({ ...this.#deps, ...scope });
    calls.#activity = this.#activity;
    return calls;
  }

  /** The real work in flight: calls and holds (the warm-up's calls do not count). */
  #activity: CallActivity;

  /** Aborted by {@linkcode discardPrepared}: nothing is made ahead for the session's commands from then on. */
  #ended = new AbortController();

  /**
   * Marks real work that is not a call (a user turn until its model
   * request is sent): {@linkcode prewarm} waits until the returned
   * function is called, as it waits for a call in flight. Calling it again
   * does nothing.
   */
  hold(): () => void {
    return this.#activity.begin();
  }

  /**
   * Spends idle time on what the first calls would pay for, one step at a
   * time, each only while no real work is in flight (a call, or a
   * {@linkcode hold}: real work that arrives waits for one step at most):
   * the worker the read-only file tools share (a first call is most often
   * a read or a search) starts and loads their modules; meanwhile the
   * JSON Schemas of the bound tools (the first model request sends them)
   * and each tool's input parser (zod builds it on first use) are made;
   * then every read-only tool's `warmup` calls (kernel/tool.ts) run while
   * the file writers' worker starts, and then the writers' warm-up calls
   * run. Between the two, the process the first command will run in (its
   * sandbox: see {@linkcode runShellCommand}) is made, as every command
   * makes one for the next. A warm-up call takes the path of a real one
   * (validation, resolution, the executor, the worker, the tool) in a
   * scratch workspace ({@linkcode warmupDirOf}, removed when the warm-up
   * ends) with its own WAVE_HOME and read-state, never asks the parent nor
   * runs its hooks, and its result is discarded: it only leaves the code
   * of a first call compiled. The command tools make no warm-up calls:
   * their commands would be the person's. A warmed worker
   * nobody calls is retired after the idle time like any other (each
   * holds some 20 MB).
   *
   * Stops between steps once `options.signal` aborts. Never fails:
   * resolves with the warm-up calls made; a tool whose module cannot load
   * says so when called.
   */
  async prewarm(options: PrewarmOptions = {}): Promise<WarmupCall[]> {
    const { signal, onCall } = options;
    const { registry, executor } = this.#deps;
    const activity = this.#activity;
    const bound = registry.bound(this.#deps.mode()).filter((t) => !t.external);
    const groups = [
      bound.filter(({ def }) => isFileReader(def.scopes)),
      bound.filter(({ def }) => def.scopes.write === true && !def.scopes.run),
    ].filter((tools) => tools.length > 0);
    const made: WarmupCall[] = [];
    const stopped = new Promise<void>((resolve) => {
      if (signal?.aborted) resolve();
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    /** Waits until no real call is in flight; false once the session stops. */
    const idle = async () => {
      await Promise.race([activity.idle(), stopped]);
      return signal?.aborted !== true;
    };
    /** Starts a group's worker and loads its modules. */
    const start = async (tools: RegisteredTool[]) => {
      const scopes = workerScopes(tools[0].def.scopes);
      try {
        await executor.prewarm(
          scopes,
          Object.values(await this.#programs(scopes)),
          tools.map(({ module }) => module),
        );
      } catch { /* its first call says why */ }
    };
    if (!await idle()) return made;
    // The workers start one after the other, each on its own thread while
    // this one works: the first while the schemas are made, the next
    // while the one before runs its warm-up calls.
    let loading = groups[0] ? start(groups[0]) : Promise.resolve();
    for (const { def } of bound) {
      if (!await idle()) return made;
      registry.inputSchema(def.name);
      zodSchemaOf(def).safeParse({});
    }
    const command = options.firstCommand === false
      ? undefined
      : bound.find(({ def }) => shellCommandOf(def));
    const scratch =
      groups.some((tools) => tools.some(({ def }) => def.warmup?.length))
        ? this.#scratch()
        : undefined;
    try {
      for (const [i, tools] of groups.entries()) {
        await loading;
        if (!await idle()) return made;
        loading = groups[i + 1] ? start(groups[i + 1]) : Promise.resolve();
        for (const { def } of scratch ? tools : []) {
          for (const input of def.warmup ?? []) {
            if (!await idle()) return made;
            onCall?.(def.name);
            made.push({
              tool: def.name,
              input,
              result: await scratch!.call(def.name, input),
            });
          }
        }
        // The first command's process once the readers are warm.
        if (command && i === 0) {
          if (!await idle()) return made;
          await this.#prepareFirstCommand(command).catch(() => {});
        }
      }
      if (command && groups.length === 0 && await idle()) {
        await this.#prepareFirstCommand(command).catch(() => {});
      }
    } finally {
      scratch?.remove();
    }
    return made;
  }

  /**
   * Makes ahead, once no real work is in flight, the process this
   * session's first command will run in, as {@linkcode prewarm} does for
   * the core's own session: a session of its own ({@linkcode forSession})
   * has its own spill directory, so its commands' sandbox is not the
   * core's. Never fails; does nothing when no command tool is bound.
   */
  async prepareCommand(): Promise<void> {
    const command = this.#deps.registry.bound(this.#deps.mode()).find((
      { def, external },
    ) => !external && shellCommandOf(def));
    if (!command) return;
    await this.#activity.idle();
    await this.#prepareFirstCommand(command).catch(() => {});
  }

  /**
   * The session has ended: the processes made ahead for its commands
   * ({@linkcode prepareCommand}, and after each command) are killed, and
   * none is made from now on (one being prepared is not started). Its
   * commands themselves are ended by interrupting them.
   */
  discardPrepared(): void {
    this.#ended.abort();
    discardPrepared(spillDirIn(this.#deps));
  }

  /**
   * A session of its own has ended (`session/close`, an MCP session's
   * close): what {@linkcode discardPrepared} does, and its spill directory
   * is removed when nothing was spilled into it (sessions come and go; one
   * with spilled output is kept, as every session's is).
   */
  endSession(): void {
    this.discardPrepared();
    try {
      Deno.removeSync(spillDirIn(this.#deps));
    } catch { /* not empty, or gone */ }
  }

  /**
   * The scratch session of the warm-up calls: a workspace holding
   * {@linkcode WARMUP_FILES} and a WAVE_HOME of its own (file history,
   * task lists) under {@linkcode warmupDirOf}, with the session's registry
   * and workers and nothing else of it: a read-state and a write queue of
   * its own, no hooks, no tool permissions, no editor, approvals refused
   * without asking, events dropped. Undefined when its files cannot be
   * written (a read-only WAVE_HOME).
   */
  #scratch(): {
    call(name: string, input: unknown): Promise<CallResult>;
    remove(): void;
  } | undefined {
    const { config } = this.#deps;
    const dir = warmupDirOf(config);
    const workspace = `${dir}/workspace`;
    const remove = () => {
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch { /* already gone */ }
    };
    sweepStaleWarmups(dirname(dir), config.sessionId);
    try {
      // Emptied, not replaced: the workers started before hold Landlock
      // rules on this very directory.
      Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const entry of Deno.readDirSync(dir)) {
        Deno.removeSync(`${dir}/${entry.name}`, { recursive: true });
      }
      for (const [path, text] of Object.entries(WARMUP_FILES)) {
        Deno.mkdirSync(dirname(`${workspace}/${path}`), { recursive: true });
        Deno.writeTextFileSync(`${workspace}/${path}`, text);
      }
    } catch {
      // No scratch directory (a read-only WAVE_HOME): no warm-up calls,
      // and what is in its place is left as it is.
      try {
        Deno.removeSync(workspace, { recursive: true });
      } catch { /* never made */ }
      return undefined;
    }
    const calls = new ToolCalls({
      ...this.#deps,
      config: {
        ...config,
        workspace,
        waveHome: `${dir}/home`,
        outputDir: `${workspace}/output`,
        openWith: "none",
      },
      programsHome: this.#deps.programsHome ?? config.waveHome,
      readState: new ReadState(),
      writeQueue: new WriteQueue(),
      approvals: new ApprovalGate("deny", 0, {
        ask: () => Promise.reject(new Error("a warm-up call asks no one")),
      }),
      permissions: undefined,
      buffers: undefined,
      transcriber: undefined,
      onEvent: () => {},
    });
    return {
      async call(name, input) {
        // As a parent's or a model's input is: parsed from JSON.
        // With an id of its own: a warm-up takes no number from the
        // session's calls (a parent's first call_tool is toolu_wave_1).
        const toolUseId = "toolu_wave_warmup";
        const prepared = calls.prepare(
          name,
          JSON.parse(JSON.stringify(input)),
          toolUseId,
        );
        if ("error" in prepared) return errorResult(toolUseId, prepared.error);
        return await calls.run(prepared, new AbortController().signal);
      },
      remove,
    };
  }

  /**
   * How a command tool's commands are confined now (decided afresh: what
   * they must not see may have appeared or gone since the last call), set
   * to prepare the next command's process ahead. Under `none` where wave
   * makes cgroups, it makes the cgroup the shell started ahead for the
   * next command joins, and, `forCall`, the one the call's command joins;
   * they are the caller's to release (`releaseCgroups`) once no process
   * joined them. When one cannot be made, none is kept and the error
   * says why.
   */
  async #commandSandbox(
    spillDir: string,
    programs: Record<string, string>,
    forCall: boolean,
    /** The `Read` deny rules' specifiers: what they cover is hidden from the command under bubblewrap. */
    denials: readonly string[] = [],
  ): Promise<
    | { sandbox: CommandConfinement; cgroups: string[] }
    | { error: string }
  > {
    const deps = this.#deps;
    const { config } = deps;
    const sandbox = CommandSandbox.for(config);
    const confinement = await sandbox.confinement({
      workspace: config.workspace,
      waveHome: config.waveHome,
      spillDir,
      home: deps.home,
      programs,
      roots: deps.permissions?.roots,
    });
    if (confinement.kind === "bwrap") {
      if (denials.length === 0) {
        return { sandbox: { ...confinement, prepare: true }, cgroups: [] };
      }
      // A mount needs the paths themselves: found now, on disk.
      const denied = deniedPaths(denials, {
        workspace: config.workspace,
        roots: deps.permissions?.roots,
        home: deps.home,
      }, config.maxDenyWalk);
      if ("refused" in denied) return { error: denied.refused };
      const hidden = hideDenied(confinement, denied, config.workspace);
      return { sandbox: { ...hidden, prepare: true }, cgroups: [] };
    }
    const { cgroupParent } = await sandbox.decided();
    if (!cgroupParent) {
      return { sandbox: { kind: "none", prepare: true }, cgroups: [] };
    }
    const made: string[] = [];
    try {
      // The call's command joins one before it runs; the shell started
      // ahead for the next command, the other.
      if (forCall) made.push(deps.processes.makeCgroup(cgroupParent));
      made.push(deps.processes.makeCgroup(cgroupParent));
      const [cgroup, spareCgroup] = forCall ? made : [undefined, made[0]];
      return {
        sandbox: { kind: "none", cgroup, spareCgroup, prepare: true },
        cgroups: made,
      };
    } catch (error) {
      deps.processes.releaseCgroups(made);
      return {
        error:
          `wave could not make a cgroup for its command in ${cgroupParent} (${
            error instanceof Error ? error.message : String(error)
          }), and without one what the command starts could outlive it`,
      };
    }
  }

  /** The globs of `denials`, as a search or a listing leaves out what they cover (`ctx.hidden`). */
  #hiddenGlobs(denials: readonly string[]): HiddenGlob[] {
    return denials.flatMap((specifier) =>
      pathGlobs(specifier, this.#deps.home).map(({ text, absolute }) => ({
        text,
        absolute,
      }))
    );
  }

  /**
   * Makes ahead the process the session's first command will run in (a
   * sandbox, or a shell in its cgroup), as every command makes one for
   * the next: the first `Bash` then costs what a later one does. For the
   * command tools the session runs itself ({@linkcode shellCommandOf}).
   */
  async #prepareFirstCommand(
    tool: RegisteredTool,
  ): Promise<void> {
    const deps = this.#deps;
    const { config } = deps;
    const run = tool.def.scopes.run ?? [];
    if (!shellCommandOf(tool.def) || run.length === 0) return;
    const programs = await this.#programs(tool.def.scopes);
    const spillDir = spillDirIn(deps);
    // Hiding what the deny rules cover, as the first call will: else its
    // sandbox would not be this one.
    const denials = deps.permissions?.readDenials() ?? [];
    const decided = await this.#commandSandbox(
      spillDir,
      programs,
      false,
      denials,
    );
    if ("error" in decided) return; // the first command says why
    // The session may have ended while its sandbox was decided.
    if (this.#ended.signal.aborted) {
      deps.processes.releaseCgroups(decided.cgroups);
      return;
    }
    try {
      prepareShell(
        {
          workspace: config.workspace,
          toolUseId: "prewarm",
          // Aborted when the session ends: a process not made by then never is.
          signal: this.#ended.signal,
          spillDir,
          shellSandbox: decided.sandbox,
          env: deps.env,
          programs,
          progress: () => {},
          processes: deps.processes.viewFor("prewarm"),
        },
        "bash",
        config.workspace,
      );
    } finally {
      // Unless the prepared shell joined it.
      deps.processes.releaseCgroups(decided.cgroups);
    }
  }

  /** The programs of a worker with `scopes`, by name. */
  #programs(
    scopes: Scopes,
  ): Promise<Record<string, string>> | Record<string, string> {
    return scopes.run?.length
      ? resolvePrograms(
        scopes.run,
        this.#deps.programsHome ?? this.#deps.config.waveHome,
      )
      : {};
  }

  /**
   * Checks a call before it runs. Returns the prepared call, or the message
   * for a request wave cannot serve: an unknown tool, a tool not bound in
   * this mode, or input that fails the tool's schema (naming each field).
   */
  prepare(
    name: string,
    input: unknown,
    toolUseId?: string,
  ): PreparedCall | { error: string } {
    const { registry } = this.#deps;
    const tool = registry.get(name);
    if (!tool) {
      const known = registry.names();
      return {
        error:
          `unknown tool "${name}"; this toolset (${this.#deps.config.toolset}) has: ${
            known.join(", ") || "no tools"
          }`,
      };
    }
    const mode = this.#deps.mode();
    if (!boundIn(tool.def.mode, mode)) {
      return {
        error:
          `${name} is not available in ${mode} mode; it needs ${tool.def.mode} mode or wider (set_permission_mode)`,
      };
    }
    const parsed = zodSchemaOf(tool.def).safeParse(input);
    if (!parsed.success) {
      return {
        error: `invalid input for ${name}: ${describeIssues(parsed.error)}`,
      };
    }
    return {
      tool,
      input: parsed.data,
      toolUseId: toolUseId ?? `toolu_wave_${nextToolUseId++}`,
    };
  }

  /**
   * Runs a prepared call. Never rejects: every failure, including a denied
   * approval, an interrupt or a crashed sandbox, is an error result.
   */
  async run(
    call: PreparedCall,
    signal: AbortSignal,
    onApproval?: (outcome: ApprovalOutcome) => void,
  ): Promise<CallResult> {
    const ended = this.#activity.begin();
    try {
      return await this.#run(call, signal, onApproval);
    } finally {
      ended();
    }
  }

  async #run(
    call: PreparedCall,
    signal: AbortSignal,
    onApproval?: (outcome: ApprovalOutcome) => void,
  ): Promise<CallResult> {
    const started = performance.now();
    const { tool, toolUseId } = call;
    let { input } = call;
    const def = tool.def;
    const deps = this.#deps;
    const { config } = deps;
    const fail = (message: string, structured?: unknown) =>
      errorResult(toolUseId, message, structured);
    const refuse = (reason: string, message: string): CallResult => {
      onApproval?.({ reason, allowed: false, by: "policy", message });
      return fail(message, { type: "permission_denied", reason });
    };
    /** The input a hook or the parent gave instead, checked by the tool's schema. */
    const revalidate = (given: unknown, by: string): string | null => {
      const parsed = zodSchemaOf(def).safeParse(given);
      if (!parsed.success) {
        return `${def.name} was not run: the input ${by} gave instead is invalid: ${
          describeIssues(parsed.error)
        }`;
      }
      input = parsed.data;
      return null;
    };

    // The parent's hooks first (PreToolUse): they may refuse the call,
    // change its input, or say whether to ask.
    const hooks = this.hooks;
    let hookDecision: "allow" | "ask" | undefined;
    const context: string[] = [];
    if (hooks?.beforeCall) {
      const pre = await hooks.beforeCall(
        { toolName: def.name, input, toolUseId },
        signal,
      );
      if (pre.deny !== undefined) {
        return refuse(
          "a PreToolUse hook",
          `${def.name} was blocked by a hook: ${pre.deny}`,
        );
      }
      if (pre.updatedInput) {
        const problem = revalidate(pre.updatedInput, "a hook");
        if (problem) return fail(problem);
      }
      hookDecision = pre.decision;
      if (pre.context) context.push(pre.context);
    }

    // The session's spill files are the model's own output: readable without
    // approval, never written; the rest of WAVE_HOME needs one.
    const spillDir = spillDirIn(deps);
    const grants: Grants = { read: [], write: [] };
    /** The real paths an approval already covered (a parent's new input is checked against them). */
    const approved = new Set<string>();
    let uses: { use: PathUse; resolved: ResolvedPath }[] = [];
    let toolAsked = false;
    // The model's own API key files: asked about wherever they lie (in
    // the workspace, in another root), and never allowed by a mode alone.
    const keyFiles = this.#keyFiles;
    const holdsKey = (dir: string) =>
      [...keyFiles].some((file) =>
        file.startsWith(dir === "/" ? "/" : `${dir}/`)
      );
    const underRoot = (real: string) =>
      (deps.permissions?.roots ?? []).some((root) =>
        real === root || real.startsWith(`${root}/`)
      );
    for (let round = 0;; round++) {
      // Layer 1: every declared path through the resolver.
      try {
        uses = (def.paths?.(input) ?? []).map((use) => {
          const resolved = resolveInWorkspace(
            config.workspace,
            use.path,
            deps.home,
            use.access === "read" ? [spillDir] : [],
            config.waveHome,
          );
          // A directory holding one is asked about too: a search there reads it.
          const key = keyFiles.has(resolved.real)
            ? MODEL_KEY_FILE
            : holdsKey(resolved.real)
            ? MODEL_KEY_DIR
            : undefined;
          return {
            use,
            resolved: key && !resolved.sensitive
              ? { ...resolved, sensitive: key }
              : resolved,
          };
        });
      } catch (error) {
        if (error instanceof ToolError) return fail(error.message);
        throw error;
      }
      // Paths in another root (--add-dir) are the workspace's equals.
      const needing = uses.filter(({ resolved }) =>
        (resolved.outside && !underRoot(resolved.real)) || resolved.sensitive
      );
      const asking = needing.filter(({ resolved }) =>
        !approved.has(resolved.real)
      );
      // Layer 0: the tool-level permissions (rules, the permission mode).
      // A hook's allow spares the question, not a deny or an ask rule.
      let verdict = !deps.permissions || toolAsked
        ? { behavior: "allow" as const }
        : deps.permissions.check({
          def,
          input,
          paths: uses.map((u) => u.resolved),
        }, hookDecision === "allow");
      if (verdict.behavior === "deny") {
        return refuse("a permission rule", verdict.message);
      }
      if (
        hookDecision === "ask" && !toolAsked && verdict.behavior === "allow"
      ) {
        verdict = {
          behavior: "ask",
          reason: `a hook asks before ${def.name} runs`,
          suggestions: [],
        };
      }
      if (verdict.behavior === "allow" && asking.length === 0) break;
      if (round >= 3) {
        return fail(
          `${def.name} was not run: the parent changed its input three times, each needing a new approval`,
        );
      }
      // Approvals: one question for the whole call.
      const reasons = asking.map(({ resolved }) =>
        resolved.outside && !underRoot(resolved.real)
          ? `path outside the workspace: ${resolved.real}`
          : `${resolved.sensitive}: ${resolved.abs}`
      );
      if (verdict.behavior === "ask") reasons.unshift(verdict.reason);
      const reason = reasons.join("; ");
      const alwaysAsk = (def.sensitive === "always_ask" &&
        asking.some(({ resolved }) => resolved.sensitive)) ||
        asking.some(({ resolved }) =>
          keyFiles.has(resolved.real) || holdsKey(resolved.real)
        );
      const decide = deps.permissions?.decide ?? "ask";
      const policy = decide === "allow"
        ? "allow"
        : decide === "refuse"
        ? "deny"
        : undefined;
      const decision = await deps.approvals.request(
        {
          toolName: def.name,
          input,
          toolUseId,
          sessionId: sessionIdOf(deps),
          reason,
          alwaysAsk,
          sensitive: asking.some(({ resolved }) => !!resolved.sensitive),
          policy,
          blockedPath: asking.find(({ resolved }) =>
            resolved.outside && !underRoot(resolved.real)
          )?.resolved.real,
          suggestions: verdict.behavior === "ask" ? verdict.suggestions : [],
        },
        signal,
      );
      const effective = policy ?? deps.approvals.policy;
      onApproval?.({
        reason,
        allowed: decision.allowed,
        by: effective === "parent" || (alwaysAsk && effective === "allow")
          ? "parent"
          : "policy",
        ...(decision.allowed ? {} : { message: decision.message }),
      });
      if (!decision.allowed) {
        return fail(decision.message, { type: "permission_denied", reason });
      }
      toolAsked = true;
      for (const { resolved } of asking) approved.add(resolved.real);
      if (decision.updatedPermissions && deps.permissions) {
        for (
          const problem of deps.permissions.apply(decision.updatedPermissions)
        ) {
          console.error(
            `wave: a permission update was not applied: ${problem}`,
          );
        }
      }
      if (!decision.updatedInput) break;
      const problem = revalidate(decision.updatedInput, "the parent");
      if (problem) return fail(problem);
      // The paths of the new input are checked again; new ones are asked about.
    }
    // Every outside path is approved now, or in another root: granted.
    for (const { use, resolved } of uses) {
      if (!resolved.outside) continue;
      grants.read.push(resolved.real);
      // The atomic writer makes its temp file in the directory, and
      // renames it over the target (Deno's rename asks to read it too).
      if (use.access === "write") {
        const dir = dirname(resolved.real);
        grants.read.push(dir);
        grants.write.push(resolved.real, dir);
      }
    }
    const result = await this.#runApproved(
      { tool, input, toolUseId },
      uses,
      uses.filter(({ resolved }) => resolved.outside || resolved.sensitive),
      grants,
      signal,
    );
    if (hooks?.afterCall && !signal.aborted) {
      const post = await hooks.afterCall({
        toolName: def.name,
        input,
        toolUseId,
        response: result.structured ?? result.content,
        durationMs: Math.round(performance.now() - started),
      }, signal);
      if (post.context) context.push(post.context);
    }
    return context.length === 0 ? result : withContext(result, context);
  }

  /** Runs a call whose paths and permissions were decided, in the write queue and the sandbox. */
  async #runApproved(
    call: PreparedCall,
    uses: { use: PathUse; resolved: ResolvedPath }[],
    needing: { use: PathUse; resolved: ResolvedPath }[],
    grants: Grants,
    signal: AbortSignal,
  ): Promise<CallResult> {
    const { tool, input, toolUseId } = call;
    const def = tool.def;
    const deps = this.#deps;
    const { config } = deps;
    const spillDir = spillDirIn(deps);
    // What the Read deny rules cover is kept from what a call reads beyond
    // the paths it names: a search, a listing, a "did you mean", a command.
    const denials = deps.permissions?.readDenials() ?? [];
    const fail = (message: string, structured?: unknown) =>
      errorResult(toolUseId, message, structured);
    if (signal.aborted) {
      return fail(`${def.name} was interrupted before it started`);
    }

    const ticket = deps.writeQueue.enter(def.scopes.write ? "write" : "read");
    /** The cgroups the call's command and the next one's shell run in, under `none` where wave can make them. */
    let cgroups: string[] = [];
    try {
      await ticket.ready;
      if (signal.aborted) {
        return fail(`${def.name} was interrupted before it started`);
      }
      // The mode may have changed while the call waited (for an approval,
      // for the queue): it runs only if it is still bound now.
      const mode = deps.mode();
      if (!boundIn(def.mode, mode)) {
        return fail(
          `${def.name} was not run: the session is in ${mode} mode now (set_permission_mode changed it while the call waited), and ${def.name} needs ${def.mode} mode or wider`,
        );
      }
      if (tool.external) {
        // Served from outside wave (an MCP server): no worker, no paths.
        const result = await tool.external.call(input, signal);
        return {
          tool_use_id: toolUseId,
          content: result.content,
          is_error: !!result.isError,
          structured: result.structured ?? null,
        };
      }
      const scopes = workerScopes(def.scopes);
      const programs = await this.#programs(scopes);
      const paths: Record<string, ResolvedPath> = {};
      for (const { use, resolved } of uses) paths[use.path] = resolved;
      let rendering: Promise<void>[] | undefined;
      const named = new Set(uses.map(({ resolved }) => resolved.real));
      const transcriber = deps.transcriber;
      const editor = def.buffers
        ? deps.buffers?.(toolUseId, sessionIdOf(deps))
        : undefined;
      let shellSandbox: CommandConfinement = { kind: "none" };
      if (def.scopes.run?.length) {
        const decided = await this.#commandSandbox(
          spillDir,
          programs,
          true,
          // The file tools' programs (ripgrep) leave out what they cover
          // by themselves (`ctx.hidden`); any other is kept from it by the
          // sandbox.
          def.scopes.run.every((program) => FILE_PROGRAMS.includes(program))
            ? []
            : denials,
        );
        if ("error" in decided) {
          return fail(`${def.name} was not run: ${decided.error}`);
        }
        shellSandbox = decided.sandbox;
        cgroups = decided.cgroups;
      }
      const command = shellCommandOf(def);
      if (
        command && grants.read.length === 0 && grants.write.length === 0
      ) {
        // A command and nothing else: run here, on the session's thread,
        // as its worker would run it (same confinement, environment,
        // programs and process records), without the two hops.
        const result = await runShellCommand(command, input, {
          workspace: config.workspace,
          toolUseId,
          signal,
          spillDir,
          shellSandbox,
          env: deps.env,
          programs,
          progress: (stream, text) => {
            const done = deps.onEvent(
              toolUseId,
              { type: "output", stream, text },
              sessionIdOf(deps),
            );
            if (done) (rendering ??= []).push(done);
          },
          processes: deps.processes.viewFor(`${toolUseId}#${nextCall++}`),
        }).catch((error): ToolResult => ({
          content: `The tool failed unexpectedly: ${
            error instanceof Error ? error.message : String(error)
          }`,
          isError: true,
          structured: { type: "internal_error" },
        }));
        if (rendering) await Promise.allSettled(rendering);
        return {
          tool_use_id: toolUseId,
          content: result.content,
          is_error: !!result.isError,
          structured: result.structured ?? null,
        };
      }
      const outcome = await deps.executor.run({
        callId: `${toolUseId}#${nextCall++}`,
        toolName: def.name,
        module: tool.module,
        scopes,
        // The deadline is the tool's, whichever worker runs it.
        timed: !def.scopes.run?.length,
        input,
        grants,
        signal,
        onEvent: (event) => {
          const done = deps.onEvent(toolUseId, event, sessionIdOf(deps));
          if (done) (rendering ??= []).push(done);
        },
        transcribe: transcriber &&
          (async (path, file) => {
            // The channel reads only what the call was granted: a path its
            // input named, and the very file the worker opened there (the
            // transcriber checks it is the one it opens).
            if (!named.has(path)) {
              throw new TranscriptionError(
                `${path} is not a file this call named, so it cannot be transcribed`,
                { type: "not_granted" },
              );
            }
            return await transcriber.transcribe(path, signal, file);
          }),
        buffer: editor && callBuffers(
          editor,
          named,
          new Set(
            uses.filter(({ use }) => use.access === "write").map((
              { resolved },
            ) => resolved.real),
          ),
          signal,
        ),
        openFile: async (path, timeoutMs) => {
          if (!named.has(path)) {
            throw new ToolError(
              `${path} is not a file this call named, so it is not opened`,
              { type: "not_granted" },
            );
          }
          if (config.openWith === "parent") {
            await deps.parent.request(
              { subtype: "open_file", path },
              timeoutMs,
              signal,
            );
            return "the parent opened it";
          }
          if (config.openWith === "system") {
            return await openWithSystem(path, timeoutMs, deps.env, signal);
          }
          throw new ToolError("--open-with none: files are not opened", {
            type: "open_disabled",
          });
        },
        ctx: {
          workspace: config.workspace,
          sessionId: sessionIdOf(deps),
          toolUseId,
          waveHome: config.waveHome,
          spillDir,
          home: deps.home,
          limits: { maxReadTokens: config.maxReadTokens },
          ...(denials.length > 0 ? { hidden: this.#hiddenGlobs(denials) } : {}),
          shellSandbox,
          markerPrefix: deps.processes.markerPrefix,
          taskListId: deps.taskListId ?? config.taskListId,
          env: deps.env,
          programs,
          paths,
          approved: needing.map(({ resolved }) => resolved.real),
          readState: deps.readState.snapshot(uses.map((u) => u.resolved.real)),
          stt: config.sttModel ?? null,
          task: deps.task.current,
          historyLimits: config.historyLimits,
          outputDir: config.outputDir,
          openWith: config.openWith,
          buffers: editor !== undefined,
        },
      });
      deps.readState.apply(outcome.readState);
      if (rendering) await Promise.allSettled(rendering);
      const { result } = outcome;
      return {
        tool_use_id: toolUseId,
        content: result.content,
        is_error: !!result.isError,
        structured: result.structured ?? null,
      };
    } finally {
      // Nothing the command started outlives the call (its group's end
      // already killed what was in its cgroup): the cgroups it was given
      // and no process holds are empty, and are ended off its path.
      const given = cgroups;
      if (given.length > 0) {
        deps.processes.offPath(() => deps.processes.releaseCgroups(given));
      }
      ticket.release();
    }
  }
}

/** Why a model API key file is asked about. */
const MODEL_KEY_FILE = "the model's API key file";
/** Why a directory holding one is asked about. */
const MODEL_KEY_DIR = "a directory holding the model's API key file";

/** An error result of call `toolUseId`. */
function errorResult(
  toolUseId: string,
  message: string,
  structured?: unknown,
): CallResult {
  return {
    tool_use_id: toolUseId,
    content: message,
    is_error: true,
    structured: structured ?? null,
  };
}

/** A result with the hooks' context added for the model, after what the tool returned. */
function withContext(result: CallResult, context: string[]): CallResult {
  const note = context.map((text) =>
    `<system-reminder>\n${text}\n</system-reminder>`
  ).join("\n");
  return {
    ...result,
    content: typeof result.content === "string"
      ? `${result.content}\n\n${note}`
      : [...result.content, { type: "text", text: note }],
  };
}
