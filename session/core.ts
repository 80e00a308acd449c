/**
 * The session core every front drives: one tool-call path (lookup, modes,
 * validation, resolution, approvals, the write queue, the sandbox), the
 * session's mode, its task list and its work in flight. A front (the
 * stream-json server, `wave mcp`, `wave acp`) opens one with the way it asks
 * its parent for approvals and the way it shows tool events, and only
 * translates between its wire format and the core.
 *
 * @module
 */

import { ApprovalGate, type ApprovalParent } from "./approvals.ts";
import { CommandSandbox } from "./command_sandbox.ts";
import { type Config, spillDirOf } from "./config.ts";
import { startCore, type StartedCore, stopStarted } from "./core_start.ts";
import { shownDir } from "./_paths.ts";
import { CurrentTask } from "./current_task.ts";
import type { EditorBuffers } from "./editor_buffers.ts";
import {
  capabilityBound,
  commandEnvironment,
  keyAboveWarning,
  unconfinedRootWarning,
} from "./environment.ts";
import { InFlight } from "./in_flight.ts";
import { ParentRequests } from "./parent_requests.ts";
import { ToolPermissions } from "./permissions.ts";
import { ToolRegistry } from "./registry.ts";
import { SessionMode } from "./session_mode.ts";
import { type SessionScope, ToolCalls } from "./tool_calls.ts";
import type { ToolEventRenderer } from "./tool_events.ts";
import { Transcriber } from "./transcriber.ts";
import { WriteQueue } from "./write_queue.ts";
import { sweepLeftovers } from "../tools/kernel/atomic_write.ts";
import { ReadState } from "../tools/kernel/read_state.ts";
import { TaskStore } from "../tools/kernel/tasks.ts";
import type { McpServers } from "./mcp/servers.ts";

// A computed specifier: the MCP client (and its SDK) load only for a
// session that has MCP servers.
const MCP_SERVERS = new URL("./mcp/servers.ts", import.meta.url).href;

/** The `system/warning` when the file tools are held by path checks alone. */
export const WEAK_FILE_BOUNDARY =
  "The file tools are held to the workspace by path checks only: this " +
  "kernel offers no Landlock (Linux 5.13 or later), so a symlink or a " +
  "renamed directory swapped in by another process between a check and " +
  "an open can lead a tool outside the workspace. Run wave on a kernel " +
  "with Landlock enabled for a boundary the kernel enforces.";

/**
 * What one session on a shared core has of its own: its mode (it starts
 * in the config's), the files its model has read, its current task, its
 * task list (`--task-list`'s, shared, else one named by its id), its
 * tool permissions, and the calls that use them, recorded in file history
 * under its id. A mode set or a file read in one session changes nothing
 * in another.
 */
export interface CoreSession {
  mode: SessionMode;
  task: CurrentTask;
  /** Its task list's id, and the list. */
  taskListId: string;
  tasks: TaskStore;
  calls: ToolCalls;
}

/** What a front gives the core. */
export interface CoreOptions {
  /** Tool module references (see `tools/loaders.ts`), in toolset order. */
  modules: readonly string[];
  /** How approvals are asked of this front's parent. */
  parent: ApprovalParent;
  /**
   * The front's other requests to its parent (`open_file` under
   * `--open-with parent`); a front that has none gives a closed one.
   */
  requests: ParentRequests;
  /**
   * How this front shows each event a running tool emits (command output,
   * a changed task list). What it returns is awaited before the call's
   * result is returned.
   */
  onEvent: ToolEventRenderer;
  /**
   * Runs a task once what the front writes next to its parent is written
   * (a call's answer): work off the call's path, such as the process the
   * next command will run in, waits for it. Absent: at the next turn.
   */
  afterNextWrite?: (task: () => void) => void;
  /**
   * The front's editor, when its client serves the text of files (ACP's
   * `fs/*`): calls of a tool that declares `buffers` read and write the
   * files they named through it, after the resolver, the approvals and the
   * write queue. Absent: every call works on the disk.
   */
  buffers?: EditorBuffers;
  /**
   * What {@linkcode startCore} began for this very config (the CLI starts
   * it early, see core_start.ts); absent, or started for another config,
   * the core starts its own.
   */
  started?: StartedCore;
}

/** One session's core, opened by {@linkcode openCore}. */
export interface Core {
  /** The config, with WAVE_HOME's real location. */
  config: Config;
  registry: ToolRegistry;
  /** The one path of every tool call. */
  calls: ToolCalls;
  approvals: ApprovalGate;
  /** The mode the session is in now. */
  mode: SessionMode;
  writeQueue: WriteQueue;
  /** The tool-level permissions: Claude Code's rules and permission mode. */
  permissions: ToolPermissions;
  /** The session's task list (`--task-list`). */
  tasks: TaskStore;
  /** The task calls belong to now (a user turn, `set_task`, or the session's own). */
  task: CurrentTask;
  inFlight: InFlight;
  /**
   * What the parent must be told first: commands not confined as asked or
   * as hoped, file tools held by path checks alone ({@linkcode WEAK_FILE_BOUNDARY}).
   */
  warnings(): Promise<string[]>;
  /**
   * The MCP servers whose tools join `registry` (the core's when not
   * given; another for one ACP session's, see `ToolRegistry.derive`),
   * their stdio servers' process groups the core's. The core's own is
   * made on first use and then the same; the MCP client loads then.
   * Every one still open is closed with the core; one closed before it
   * (an ACP session's, `session/close`) is forgotten then.
   */
  mcpServers(registry?: ToolRegistry): Promise<McpServers>;
  /**
   * A session of its own on this core (an ACP session: one core serves
   * every session on its workspace), over `registry` (the core's when
   * not given): see {@linkcode CoreSession}.
   */
  session(id: string, registry?: ToolRegistry): CoreSession;
  /**
   * The spill directory of session `id` of the core's (`Core.session`'s,
   * an MCP session's): inside the core's, which the workers may read,
   * made now (a command's sandbox shows it only if it exists). Another
   * session's spill files are outside it, so reading one needs approval.
   */
  sessionSpillDir(id: string): string;
  /** The core's own MCP servers, if {@linkcode Core.mcpServers} made them. */
  openedMcpServers(): McpServers | undefined;
  /**
   * Ends the core's resources (workers, process groups), and resolves once
   * the sweep of leftover temp files finished too. Call it once, after the
   * work in flight settled or was interrupted.
   */
  close(): Promise<void>;
}

/**
 * Prepares the process (subreaper, non-dumpable, WAVE_HOME made 700: see
 * {@linkcode startCore}), loads the tool modules and assembles a core for
 * `config`. Rejects only when the
 * tool modules cannot be loaded.
 */
export async function openCore(
  config: Config,
  options: CoreOptions,
): Promise<Core> {
  let { started } = options;
  if (started && started.from !== config) {
    // Started for another config: its worker's rules would not be this one's.
    stopStarted(started);
    started = undefined;
  }
  started ??= await startCore(config);
  const { processes, executor } = started;
  config = started.config;
  if (options.afterNextWrite) processes.offPath = options.afterNextWrite;
  const env = commandEnvironment(Deno.env, config.envAllow);
  const loading = ToolRegistry.load(options.modules, {
    output_dir: shownDir(config.workspace, config.outputDir),
  });
  // Those not closed yet: one closed before the core (an ACP session's,
  // closed with it) is forgotten.
  const mcp = new Set<Promise<McpServers>>();
  let ownMcp: Promise<McpServers> | undefined;
  let openedMcp: McpServers | undefined;
  const makeMcp = (
    forRegistry: ToolRegistry | Promise<ToolRegistry>,
  ): Promise<McpServers> => {
    const made = (async () => {
      const { McpServers } = await import(
        MCP_SERVERS
      ) as typeof import("./mcp/servers.ts");
      return new McpServers({
        registry: forRegistry,
        processes,
        env,
        workspace: config.workspace,
        parent: options.requests,
        connectTimeoutMs: config.mcpTimeouts.connectMs,
        toolTimeoutMs: config.mcpTimeouts.toolMs,
        onClose: () => mcp.delete(made),
      });
    })();
    mcp.add(made);
    return made;
  };
  // stream-json's --mcp-config servers start now: their processes start,
  // and the MCP client loads, while the tools do (serve awaits them).
  if (
    config.front === "stream-json" && Object.keys(config.mcpServers).length > 0
  ) {
    ownMcp = makeMcp(loading).then((made) => {
      openedMcp = made;
      made.connect(config.mcpServers);
      return made;
    });
  }
  let registry: ToolRegistry;
  try {
    registry = await loading;
  } catch (error) {
    // No server or worker outlives a session that could not open.
    await Promise.all(
      [...mcp].map((made) => made.then((s) => s.close(), () => {})),
    );
    stopStarted(started);
    throw error;
  }
  void cacheWorkerCode();
  // A writer killed mid-write left its temp file: the workspace's top is swept now, in the background; deeper directories before a write there.
  const sweeping = sweepLeftovers(config.workspace).catch(() => []);

  const mode = new SessionMode(config.mode, config.permissionMode);
  const writeQueue = new WriteQueue();
  const sessionSpillDir = (id: string) => {
    const dir = `${spillDirOf(config)}/${id}`;
    try {
      Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch { /* a read-only WAVE_HOME: its first spill says why */ }
    return dir;
  };
  const approvals = new ApprovalGate(
    config.approvals,
    config.approvalTimeoutMs,
    options.parent,
  );
  const task = new CurrentTask(config.sessionId);
  const permissions = new ToolPermissions({
    mode,
    workspace: config.workspace,
    allow: config.toolRules.allow,
    deny: config.toolRules.deny,
    only: config.tools,
    roots: config.addDirs,
    home: Deno.env.get("HOME"),
    waveHome: config.waveHome,
  });
  registry.setFilter((name) => permissions.offers(name));
  const calls = new ToolCalls({
    processes,
    config,
    registry,
    executor,
    approvals,
    readState: new ReadState(),
    writeQueue,
    mode: () => mode.current,
    env,
    home: Deno.env.get("HOME"),
    transcriber: !config.sttModel ? undefined : new Transcriber({
      model: config.sttModel,
      baseUrl: config.sttBaseUrl,
      apiKey: config.sttApiKey,
    }),
    onEvent: options.onEvent,
    task,
    parent: options.requests,
    permissions,
    buffers: options.buffers,
  });
  return {
    config,
    registry,
    calls,
    approvals,
    mode,
    permissions,
    writeQueue,
    tasks: new TaskStore(config.waveHome, config.taskListId),
    task,
    inFlight: new InFlight(),
    async warnings() {
      const { warning, report } = await CommandSandbox.for(config).decided();
      const above = report.commands === "none" ? keyAboveWarning() : null;
      // Chosen with --shell-sandbox none, as root: said on stderr at start
      // too, and here to the parent, which may not read stderr.
      const root = unconfinedRootWarning(
        config.shellSandbox,
        Deno.uid(),
        capabilityBound(),
      );
      return [
        ...warning ? [warning] : [],
        ...root ? [root] : [],
        ...above ? [above] : [],
        ...config.fileBoundary === "paths" ? [WEAK_FILE_BOUNDARY] : [],
      ];
    },
    mcpServers(forRegistry) {
      if (forRegistry && forRegistry !== registry) return makeMcp(forRegistry);
      ownMcp ??= makeMcp(registry).then((made) => openedMcp = made);
      return ownMcp;
    },
    openedMcpServers: () => openedMcp,
    sessionSpillDir,
    session(id, sessionRegistry = registry) {
      const sessionMode = new SessionMode(config.mode, config.permissionMode);
      const task = new CurrentTask(id);
      const taskListId = config.taskListShared ? config.taskListId : id;
      // All of it: a part left out would be the core's, shared.
      const scope: SessionScope = {
        registry: sessionRegistry,
        mode: () => sessionMode.current,
        readState: new ReadState(),
        task,
        permissions: permissions.withMode(sessionMode),
        sessionId: id,
        taskListId,
        spillDir: sessionSpillDir(id),
      };
      return {
        mode: sessionMode,
        task,
        taskListId,
        tasks: new TaskStore(config.waveHome, taskListId),
        calls: calls.forSession(scope),
      };
    },
    async close() {
      // The servers first: their calls fail as closed, not as killed.
      await Promise.all(
        [...mcp].map((made) =>
          made.then((servers) => servers.close(), () => {})
        ),
      );
      stopStarted(started);
      await sweeping;
    },
  };
}

/**
 * The parent requests of a front whose client cannot be asked to open a
 * file (`--open-with parent`): every one fails, naming `front` and the
 * flags that work instead.
 */
export function noParentRequests(front: string): ParentRequests {
  const requests = new ParentRequests(() => {});
  requests.close(
    `${front} cannot ask its client to open a file; start it with --open-with system or none`,
  );
  return requests;
}

/**
 * Evaluates the worker's own code (`_tool_worker.ts`, whose top level only
 * defines) on this thread too, only so that Deno's transpile cache holds
 * it: a worker imports it once confined, when it may not write that
 * cache, and from source it otherwise transpiled it again at every start
 * (~160 ms). Called once the tools have loaded, when it costs this thread
 * little; before the first worker started, it held that start back. Never
 * rejects.
 */
async function cacheWorkerCode(): Promise<void> {
  try {
    await import("./_tool_worker.ts");
  } catch { /* a worker that imports it says why */ }
}
