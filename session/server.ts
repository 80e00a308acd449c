/**
 * The stdio server: {@linkcode serve} runs one session over a pair of
 * streams (docs/protocol.md). It assembles the session's parts, feeds them
 * the input lines, and shuts down as the protocol promises.
 *
 * The parts, one concern each: `inbound_dispatch.ts` (each line to its
 * handler, bad input answered), `control_requests.ts`, `user_turns.ts`
 * (the agent loop's lifecycle), `task_list_announcer.ts` and
 * `tool_events.ts` (what running tools show the parent), `in_flight.ts`
 * (interrupts and shutdown), on top of `tool_calls.ts`, the executor,
 * approvals and the write queue.
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalGate } from "./approvals.ts";
import { CommandSandbox } from "./command_sandbox.ts";
import { type Config, spillDirOf } from "./config.ts";
import { ControlRequests } from "./control_requests.ts";
import { CurrentTask } from "./current_task.ts";
import { ParentRequests } from "./parent_requests.ts";
import { commandEnvironment } from "./environment.ts";
import { SandboxExecutor } from "./executor.ts";
import { InboundDispatch } from "./inbound_dispatch.ts";
import { InFlight } from "./in_flight.ts";
import { initMessage } from "./init.ts";
import { sweepLeftovers } from "../tools/kernel/atomic_write.ts";
import { readLines } from "./line_reader.ts";
import type { SystemInit } from "./outbound.ts";
import {
  type LineSink,
  type OutputQueueView,
  ProtocolWriter,
} from "./output.ts";
import { ToolRegistry } from "./registry.ts";
import { SessionMode } from "./session_mode.ts";
import { TaskListAnnouncer } from "./task_list_announcer.ts";
import { TaskReminders } from "./task_reminders.ts";
import { ToolCalls } from "./tool_calls.ts";
import { toolEventRenderer } from "./tool_events.ts";
import { Transcriber } from "./transcriber.ts";
import { Transcript, transcriptPath } from "./transcript.ts";
import { UserTurns } from "./user_turns.ts";
import { WriteQueue } from "./write_queue.ts";
import {
  becomeNonDumpable,
  becomeSubreaper,
  ProcessGroups,
} from "../tools/kernel/processes.ts";
import { preloadProvider } from "./models/mod.ts";
import { warmDecoders } from "./inbound.ts";
import { ReadState } from "../tools/kernel/read_state.ts";
import { TaskStore } from "../tools/kernel/tasks.ts";
import { realPathOf } from "../tools/kernel/workspace.ts";

/**
 * The streams a session talks over: protocol lines come in on `stdin` and
 * go out on `stdout`, and nothing else is written to `stdout`.
 */
export interface SessionIO {
  /** The parent's lines (UTF-8 JSON, one a line). */
  stdin: ReadableStream<Uint8Array>;
  /** Where wave's lines go, each whole and in order. */
  stdout: LineSink;
}

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /** Tool module references (see `tools/loaders.ts`), in toolset order. */
  modules: readonly string[];
  /** `system/init` was already written (the CLI writes it before loading anything); else serve writes it first. */
  initSent?: boolean;
  /** Called once with the session's output queue, to watch how much waits for the parent. */
  onOutputQueue?: (queue: OutputQueueView) => void;
}

/**
 * How long after `system/init` the tools' workers start warming: a parent
 * that sends a line at once gets it served (a first model request, a
 * first call) before they compete with it for the cores.
 */
const PREWARM_AFTER_MS = 100;

/** The `system/warning` when the file tools are held by path checks alone. */
export const WEAK_FILE_BOUNDARY =
  "The file tools are held to the workspace by path checks only: this " +
  "kernel offers no Landlock (Linux 5.13 or later), so a symlink or a " +
  "renamed directory swapped in by another process between a check and " +
  "an open can lead a tool outside the workspace. Run wave on a kernel " +
  "with Landlock enabled for a boundary the kernel enforces.";

/**
 * Serves one session over `io` until stdin ends or `signal` aborts, and
 * resolves with the exit code: 0 after stdin ended and the work in flight
 * finished (approvals still waiting are denied), 1 after `signal` (it
 * interrupts everything; the caller maps it to its own code, 143 or 130
 * in the CLI). Either way every worker is ended, every child process group
 * killed and every line written before it resolves. Bad input never ends
 * it. If stdout breaks, it interrupts everything and resolves with 0.
 *
 * Rejects only when the tool modules cannot be loaded.
 *
 * @example Serve one call_tool request from a string, and read the answers
 * ```ts
 * import { builtinRef, parseFlags, serve, TOOLSETS } from "@wave/wave";
 *
 * const parsed = parseFlags(["--workspace", "."], Deno.env, ["wave"]);
 * if (parsed.kind !== "run") throw new Error("bad flags");
 * const input = '{"type":"control_request","request_id":"r1",' +
 *   '"request":{"subtype":"list_tools"}}\n';
 * const out: Uint8Array[] = [];
 * const code = await serve(parsed.config, {
 *   stdin: ReadableStream.from([new TextEncoder().encode(input)]),
 *   stdout: { write: (bytes) => (out.push(bytes.slice()), Promise.resolve(bytes.length)) },
 * }, { modules: TOOLSETS.wave.map(builtinRef) });
 * // code === 0; out holds system/init, then the control_response to r1.
 * ```
 */
export async function serve(
  config: Config,
  io: SessionIO,
  options: ServeOptions,
  signal?: AbortSignal,
): Promise<number> {
  // What a command detaches becomes wave's child, so it can be cleaned up.
  becomeSubreaper();
  // Before the first command runs: a process of wave's uid can then no
  // longer read wave's environment or memory, nor open its stdin or stdout.
  becomeNonDumpable();
  // WAVE_HOME exists before any command runs (mode 700), so no command can
  // make it first, or link its parts elsewhere, for wave to write through.
  try {
    Deno.mkdirSync(config.waveHome, { recursive: true, mode: 0o700 });
  } catch { /* read-only: commands cannot make it either; writes will say */ }
  // WAVE_HOME's real location, so paths under it compare with resolved ones.
  config = { ...config, waveHome: realPathOf(config.waveHome) };
  const writer = new ProtocolWriter(io.stdout, config.sessionId);
  options.onOutputQueue?.(writer);
  // The model's SDK (the slowest import before a first request) loads
  // beside the tools, which the session needs before it reads a line.
  if (config.model) preloadProvider(config.model);
  const registry = await ToolRegistry.load(options.modules, {
    output_dir: shownDir(config.workspace, config.outputDir),
  });
  if (!options.initSent) {
    const names = registry.bound(config.mode).map((t) => t.def.name);
    // initMessage (init.ts) builds the declared system/init shape; the CLI writes it without the writer.
    writer.send(initMessage(config, names) as SystemInit);
  }
  const session = openSession(config, writer, registry);
  // A writer killed mid-write left its temp file: the workspace's top is swept now, in the background; deeper directories before a write there.
  const sweeping = sweepLeftovers(config.workspace).catch(() => []);
  // Commands not confined as asked or as hoped: said before anything else.
  const { warning } = await CommandSandbox.for(config).decided();
  if (warning) {
    writer.send({ type: "system", subtype: "warning", message: warning });
  }
  if (config.fileBoundary === "paths") {
    writer.send({
      type: "system",
      subtype: "warning",
      message: WEAK_FILE_BOUNDARY,
    });
  }

  if (config.resume) await session.turns.resume();
  await session.taskList.announceIfAny();

  const state = { stopping: "eof" as "eof" | "signal" | "pipe" };
  const reader = readLines(io.stdin, config.maxLineBytes);
  const stop = new Promise<"signal">((resolve) => {
    const onAbort = () => resolve("signal");
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  writer.onClosed = () => {
    state.stopping = "pipe";
    session.inFlight.interrupt();
  };

  // Idle time until the first line: the tools' workers start and load
  // their modules, so no first call pays for that.
  Deno.unrefTimer(setTimeout(warmDecoders, 0));
  Deno.unrefTimer(
    setTimeout(() => session.calls.prewarm(), PREWARM_AFTER_MS),
  );

  const readLoop = (async () => {
    for await (const item of reader) {
      // Backpressure: while the parent leaves more than the high-water mark
      // of output unread, no input is read (the pipe fills, its writes
      // block), so a parent that does not read cannot make wave buffer
      // without limit.
      if (writer.congested) await writer.uncongested();
      if (state.stopping === "pipe") break;
      if ("error" in item) {
        session.dispatch.inputError({
          code: item.error,
          message: item.message,
          line: item.line,
        });
      } else {
        session.dispatch.line(item.text, item.line);
      }
    }
  })();

  const how = await Promise.race([readLoop.then(() => "eof" as const), stop]);
  if (how === "signal") state.stopping = "signal";

  if (state.stopping === "eof") {
    // Nobody can answer an approval any more; finish the rest, unless a
    // signal says to stop now.
    session.approvals.close("stdin was closed, so no approval can arrive");
    session.parent.close("stdin was closed");
    const finished = await Promise.race([
      session.inFlight.settle().then(() => "settled" as const),
      stop,
    ]);
    if (finished === "signal") state.stopping = "signal";
  }
  if (state.stopping !== "eof") {
    session.approvals.close("wave is shutting down");
    session.parent.close("wave is shutting down");
    session.inFlight.interrupt();
    await session.inFlight.settleWithin(1500);
  }
  session.close();
  await sweeping;
  await writer.drain();
  return state.stopping === "signal" ? 1 : 0;
}

/** The parts of one session that serve needs to drive it. */
interface OpenSession {
  dispatch: InboundDispatch;
  approvals: ApprovalGate;
  parent: ParentRequests;
  inFlight: InFlight;
  turns: UserTurns;
  taskList: TaskListAnnouncer;
  calls: ToolCalls;
  /** Ends the session's resources: workers, process groups. */
  close(): void;
}

/** Assembles a session's parts for `config`. */
function openSession(
  config: Config,
  writer: ProtocolWriter,
  registry: ToolRegistry,
): OpenSession {
  const mode = new SessionMode(config.mode);
  const inFlight = new InFlight();
  const processes = new ProcessGroups();
  const writeQueue = new WriteQueue();
  const executor = new SandboxExecutor({
    workspace: config.workspace,
    waveHome: config.waveHome,
    processes,
    deadlineMs: config.toolDeadlineMs,
    fileBoundary: config.fileBoundary,
    spillDir: spillDirOf(config),
    // An extra module may import any of wave's own modules, not all of
    // which are in a worker's module graph; wave's source is no secret.
    moduleDirs: config.toolModules.length === 0 ? [] : [
      fileURLToPath(new URL("..", import.meta.url)),
      ...config.toolModules.map((url) => dirname(fileURLToPath(url))),
    ],
  });
  const approvals = new ApprovalGate(
    config.approvals,
    config.approvalTimeoutMs,
    (requestId, request) =>
      writer.send({ type: "control_request", request_id: requestId, request }),
  );
  const parent = new ParentRequests((requestId, request) =>
    writer.send({ type: "control_request", request_id: requestId, request })
  );
  const currentTask = new CurrentTask(config.sessionId);
  const tasks = new TaskStore(config.waveHome, config.taskListId);
  const taskList = new TaskListAnnouncer(tasks, config.taskListId, writer);
  const calls = new ToolCalls({
    processes,
    config,
    registry,
    executor,
    approvals,
    readState: new ReadState(),
    writeQueue,
    mode: () => mode.current,
    env: commandEnvironment(Deno.env, config.envAllow),
    home: Deno.env.get("HOME"),
    transcriber: !config.sttModel ? undefined : new Transcriber({
      model: config.sttModel,
      baseUrl: config.sttBaseUrl,
      apiKey: config.sttApiKey,
    }),
    onEvent: toolEventRenderer(writer, taskList),
    task: currentTask,
    parent,
  });
  const trackers = new Set(registry.emitters("task_list_changed"));
  const reminders = new TaskReminders(tasks, {
    isTracker: (name) => trackers.has(name),
    bound: () => registry.emitters("task_list_changed", mode.current),
  });
  const turns = new UserTurns({
    config,
    writer,
    registry,
    calls,
    transcript: new Transcript(
      transcriptPath(config.waveHome, config.sessionId),
    ),
    mode,
    reminders,
    inFlight,
    task: currentTask,
  });
  const control = new ControlRequests({
    writer,
    registry,
    calls,
    mode,
    writeQueue,
    taskList,
    inFlight,
    task: currentTask,
  });
  return {
    calls,
    dispatch: new InboundDispatch({
      writer,
      control,
      approvals,
      turns,
      parent,
    }),
    approvals,
    parent,
    inFlight,
    turns,
    taskList,
    close() {
      executor.close();
      processes.killAll();
    },
  };
}

/** A directory as a model is told it: relative to the workspace inside it (`output/`), else absolute. */
function shownDir(workspace: string, dir: string): string {
  if (dir === workspace) return "./";
  return dir.startsWith(`${workspace}/`)
    ? `${dir.slice(workspace.length + 1)}/`
    : dir;
}
