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

import { CanUseToolParent } from "./can_use_tool.ts";
import type { Config } from "./config.ts";
import { ControlRequests } from "./control_requests.ts";
import { type Core, openCore } from "./core.ts";
import type { StartedCore } from "./core_start.ts";
import { ParentRequests } from "./parent_requests.ts";
import { InboundDispatch } from "./inbound_dispatch.ts";
import { initMessage } from "./init.ts";
import { readLines, warmLineReader } from "./line_reader.ts";
import type { SystemInit } from "./outbound.ts";
import {
  type LineSink,
  type OutputQueueView,
  ProtocolWriter,
} from "./output.ts";
import { TaskListAnnouncer } from "./task_list_announcer.ts";
import { TaskReminders } from "./task_reminders.ts";
import { type ToolEventRenderer, toolEventRenderer } from "./tool_events.ts";
import { Transcript, transcriptPath } from "./transcript.ts";
import { spillDirOf } from "./config.ts";
import { UserTurns } from "./user_turns.ts";
import type { TurnHooks } from "./agent_loop.ts";
import { initializeSession } from "./initialize.ts";
import { preloadProvider } from "./models/mod.ts";
import { warmDecoders } from "./inbound.ts";
import type { EarlyRequest } from "./early_request.ts";

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
  /**
   * Told about the session's warm-up of its tools in idle time
   * (`ToolCalls.prewarm`), for a caller that watches it: `call` with each
   * warm-up call's tool as the call starts, `ended` once the warm-up is
   * over (done, or stopped as the session ends: serve resolves only
   * after). `wave acp` warms each workspace's tools once.
   */
  onWarmup?: WarmupWatcher;
  /**
   * `wave mcp` and `wave acp`: the id of the client's `initialize`, which
   * the CLI already answered (before anything heavy loaded); the front
   * reads the request but does not answer it again. Unused by stream-json.
   */
  answered?: string | number;
  /**
   * The first user turn's model request, sent by the CLI before the
   * session loaded (`early_request.ts`); the first turn's SDK takes it
   * over, or it is aborted.
   */
  early?: Promise<EarlyRequest | undefined>;
  /**
   * The core's start for this very config, made by the CLI as soon as
   * `system/init` was written, the file readers' worker already booting
   * (core_start.ts); absent, the core starts its own.
   *
   * @internal
   */
  started?: StartedCore;
}

export { WEAK_FILE_BOUNDARY } from "./core.ts";

/** What {@linkcode ServeOptions.onWarmup} is told. */
export interface WarmupWatcher {
  /** A warm-up call of the tool `tool` starts. */
  call?(tool: string): void;
  /** The warm-up is over; none of its work runs after. */
  ended?(): void;
}

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
  const writer = new ProtocolWriter(io.stdout, config.sessionId);
  options.onOutputQueue?.(writer);
  if (config.includePartialMessages) {
    writer.streamEvent = (event) =>
      writer.send({
        type: "stream_event",
        event,
        parent_tool_use_id: null,
        uuid: crypto.randomUUID(),
      });
  }
  // The model's SDK (the slowest import before a first request) loads
  // beside the tools, which the session needs before it reads a line.
  if (config.model) preloadProvider(config.model);
  const cancel = (requestId: string) =>
    writer.send({ type: "control_cancel_request", request_id: requestId });
  const approvalsParent = new CanUseToolParent(
    (requestId, request) =>
      writer.send({ type: "control_request", request_id: requestId, request }),
    cancel,
  );
  const requests = new ParentRequests(
    (requestId, request) =>
      writer.send({ type: "control_request", request_id: requestId, request }),
    cancel,
  );
  let render: ToolEventRenderer = () => {};
  const core = await openCore(config, {
    modules: options.modules,
    started: options.started,
    parent: approvalsParent,
    requests,
    onEvent: (toolUseId, event, sessionId) =>
      render(toolUseId, event, sessionId),
    afterNextWrite: (task) => writer.afterNextWrite(task),
  });
  config = core.config;
  // --mcp-config's servers connect (or fail) before init, which says how
  // each fared; the ones the parent hosts once its input is read.
  const mcp = Object.keys(config.mcpServers).length > 0
    ? await core.mcpServers()
    : undefined;
  await mcp?.connect(config.mcpServers);
  if (!options.initSent) {
    const names = core.registry.bound(config.mode).map((t) => t.def.name);
    // initMessage (init.ts) builds the declared system/init shape; the CLI writes it without the writer.
    writer.send(
      initMessage(config, names, mcp?.list()) as SystemInit,
    );
  }
  const session = openSession(
    core,
    writer,
    approvalsParent,
    requests,
    options.early,
  );
  render = toolEventRenderer(writer, session.taskList);
  // Commands or files not confined as asked or as hoped, flags not
  // honoured: said before anything else.
  for (const warning of [...await core.warnings(), ...config.warnings]) {
    writer.send({ type: "system", subtype: "warning", message: warning });
  }
  if (config.forkFrom) {
    // --fork-session: this session starts from a copy of the other's history.
    const { waveHome, sessionId } = config;
    await Deno.copyFile(
      transcriptPath(waveHome, config.forkFrom),
      transcriptPath(waveHome, sessionId),
    );
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

  // Idle time until the first line, and between calls: the input path's
  // code is compiled, and the tools' workers start, load their modules
  // and run each tool once, so no first line or call pays for that. The
  // tools' steps each wait until no call is in flight and no turn is
  // sending its first request.
  Deno.unrefTimer(setTimeout(warmDecoders, 0));
  const readerWarm = new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => warmLineReader(spillDirOf(config)));
  const warmup = new AbortController();
  const warming = core.calls.prewarm({
    signal: warmup.signal,
    onCall: options.onWarmup?.call,
  }).then(() => options.onWarmup?.ended?.());

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

  if (mcp) session.inFlight.track(mcp.connectHosted());

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
  session.turns.discardEarly();
  warmup.abort();
  await core.close();
  // Its call in flight, if any, ended with the workers.
  await warming;
  await readerWarm;
  await session.transcript.release();
  await writer.drain();
  return state.stopping === "signal" ? 1 : 0;
}

/** The stream-json parts of one session that serve needs to drive it. */
interface OpenSession {
  dispatch: InboundDispatch;
  approvals: Core["approvals"];
  parent: ParentRequests;
  inFlight: Core["inFlight"];
  turns: UserTurns;
  taskList: TaskListAnnouncer;
  /** The session's transcript: released (its claim given up) at the end. */
  transcript: Transcript;
}

/** Assembles the stream-json parts of a session over `core`. */
function openSession(
  core: Core,
  writer: ProtocolWriter,
  approvalsParent: CanUseToolParent,
  requests: ParentRequests,
  early?: Promise<EarlyRequest | undefined>,
): OpenSession {
  const { config, registry, calls, mode, writeQueue, tasks, inFlight } = core;
  const taskList = new TaskListAnnouncer(tasks, config.taskListId, writer);
  const trackers = new Set(registry.emitters("task_list_changed"));
  const reminders = new TaskReminders(tasks, {
    isTracker: (name) => trackers.has(name),
    bound: () => registry.emitters("task_list_changed", mode.current),
  });
  let turnHooks: TurnHooks | undefined;
  const transcript = new Transcript(
    transcriptPath(config.waveHome, config.sessionId),
    config.persistSession,
  );
  const turns = new UserTurns({
    config,
    writer,
    registry,
    calls,
    transcript,
    mode,
    reminders,
    inFlight,
    task: core.task,
    turnHooks: () => turnHooks,
    early,
  });
  const warn = (message: string) =>
    writer.send({ type: "system", subtype: "warning", message });
  const control = new ControlRequests({
    writer,
    mcp: () => core.openedMcpServers(),
    openMcp: () => core.mcpServers(),
    registry,
    calls,
    mode,
    writeQueue,
    taskList,
    inFlight,
    task: core.task,
    initialize: (request) =>
      initializeSession(request, {
        config: turns.config,
        reconfigure: (next) => turns.reconfigure(next),
        calls,
        mode,
        requests,
        transcriptPath: transcript.path,
        setTurnHooks: (hooks) => turnHooks = hooks,
        warn,
        openMcp: () => core.mcpServers(),
        announce: () =>
          writer.send(
            initMessage(
              turns.config,
              registry.bound(mode.current).map((t) => t.def.name),
              core.openedMcpServers()?.list(),
            ) as SystemInit,
          ),
      }),
    setModel: (model) => turns.setModel(model),
    setThinkingBudget: (tokens) =>
      turns.reconfigure({ ...turns.config, maxThinkingTokens: tokens }),
  });
  return {
    dispatch: new InboundDispatch({
      writer,
      control,
      approvals: approvalsParent,
      turns,
      parent: requests,
    }),
    approvals: core.approvals,
    parent: requests,
    inFlight,
    turns,
    taskList,
    transcript,
  };
}
