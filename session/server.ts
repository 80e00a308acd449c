/**
 * The stdio server: reads protocol lines, dispatches them, and writes every
 * answer (PROTOCOL.md). One {@linkcode Session} per process.
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalGate } from "./approvals.ts";
import type { Config, Mode } from "./config.ts";
import { commandEnvironment } from "./environment.ts";
import { SandboxExecutor } from "./executor.ts";
import { initMessage } from "./init.ts";
import { readLines } from "./line_reader.ts";
import { type LineSink, ProtocolWriter } from "./output.ts";
import { becomeSubreaper, ProcessGroups } from "../tools/kernel/processes.ts";
import {
  ControlBodies,
  type ControlSubtype,
  decodeLine,
  describeIssues,
  type Inbound,
  type InputError,
  isInputError,
} from "./protocol.ts";
import { ReadState } from "../tools/kernel/read_state.ts";
import { ToolRegistry } from "./registry.ts";
import { ToolCalls } from "./tool_calls.ts";
import { WriteQueue } from "./write_queue.ts";
import { AgentLoop, type LoopHooks, repairHistory } from "./agent_loop.ts";
import type { Block, Message } from "./messages.ts";
import { createProvider } from "./models/mod.ts";
import { Transcript, transcriptPath } from "./transcript.ts";
import { TaskStore } from "../tools/kernel/tasks.ts";
import { TaskReminders } from "./task_reminders.ts";

import { realPathOf } from "../tools/kernel/workspace.ts";

/** The streams a session talks over. */
export interface SessionIO {
  stdin: ReadableStream<Uint8Array>;
  stdout: LineSink;
}

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /** Tool module URLs, in toolset order. */
  modules: readonly string[];
  /** `system/init` was already written (the CLI writes it before loading anything). */
  initSent?: boolean;
}

type ControlRequestMessage = Extract<Inbound, { type: "control_request" }>;

/** One session: its state, and the dispatch of every inbound message. */
export class Session {
  readonly config: Config;
  readonly writer: ProtocolWriter;
  readonly registry: ToolRegistry;
  readonly processes: ProcessGroups = new ProcessGroups();
  readonly executor: SandboxExecutor;
  readonly approvals: ApprovalGate;
  readonly readState: ReadState = new ReadState();
  readonly writeQueue: WriteQueue = new WriteQueue();
  readonly calls: ToolCalls;
  mode: Mode;
  /** Everything in flight, so interrupt and shutdown can reach it. */
  #inflight = new Set<AbortController>();
  /** User turns, one after another. */
  #turns: Promise<unknown> = Promise.resolve();
  /** Counts interrupts, so a queued turn knows one happened while it waited. */
  #interrupts = 0;
  #agent: Promise<AgentLoop> | undefined;
  #resumed: Message[] = [];
  /** Hooks into the agent loop (task reminders). */
  hooks: LoopHooks = {};
  readonly tasks: TaskStore;
  readonly reminders: TaskReminders;
  #announcing: Promise<void> = Promise.resolve();
  readonly transcript: Transcript;

  #work = new Set<Promise<unknown>>();

  constructor(
    config: Config,
    writer: ProtocolWriter,
    registry: ToolRegistry,
  ) {
    this.config = config;
    this.writer = writer;
    this.registry = registry;
    this.mode = config.mode;
    this.transcript = new Transcript(
      transcriptPath(config.waveHome, config.sessionId),
    );

    this.executor = new SandboxExecutor({
      workspace: config.workspace,
      waveHome: config.waveHome,
      processes: this.processes,
      // An extra module may import any of wave's own modules, not all of
      // which are in a worker's module graph; wave's source is no secret.
      moduleDirs: config.toolModules.length === 0 ? [] : [
        fileURLToPath(new URL("..", import.meta.url)),
        ...config.toolModules.map((url) => dirname(fileURLToPath(url))),
      ],
    });
    this.approvals = new ApprovalGate(
      config.approvals,
      config.approvalTimeoutMs,
      (requestId, request) =>
        writer.send({
          type: "control_request",
          request_id: requestId,
          request,
        }),
    );
    this.calls = new ToolCalls({
      config,
      registry,
      executor: this.executor,
      approvals: this.approvals,
      readState: this.readState,
      writeQueue: this.writeQueue,
      mode: () => this.mode,
      env: commandEnvironment(Deno.env, config.envAllow),
      home: Deno.env.get("HOME"),
      onEvent: (toolUseId, event) => {
        if (event.type === "output") {
          writer.send({
            type: "system",
            subtype: "tool_progress",
            tool_use_id: toolUseId,
            stream: event.stream,
            text: event.text,
          });
        } else if (event.type === "task_list_changed") {
          return this.announceTasks();
        }
      },
    });
    this.tasks = new TaskStore(config.waveHome, config.taskListId);
    const trackers = new Set(registry.emitters("task_list_changed"));
    this.reminders = new TaskReminders(this.tasks, {
      isTracker: (name) => trackers.has(name),
      bound: () => registry.emitters("task_list_changed", this.mode),
    });
    this.hooks = {
      beforeRequest: () => this.reminders.beforeRequest(),
      afterReply: (names) => this.reminders.afterReply(names),
    };
  }

  /** Dispatches one input line. Work it starts is tracked, not awaited. */
  handleLine(text: string, line: number): void {
    const decoded = decodeLine(text, line);
    if (isInputError(decoded)) return this.reportInputError(decoded);
    switch (decoded.type) {
      case "control_request":
        return this.#controlRequest(decoded);
      case "control_response": {
        const { response } = decoded;
        if (!this.approvals.answer(response.request_id, response)) {
          this.reportInputError({
            code: "invalid_message",
            line,
            message: `control_response for unknown request_id ${
              JSON.stringify(response.request_id)
            }: no approval with that id is waiting`,
          });
        }
        return;
      }
      case "user":
        return this.#userTurn(decoded.message.content as string | Block[]);
    }
  }

  /** Answers bad input: a `control_response` error when it had a request id, else `system/error`. */
  reportInputError(error: InputError): void {
    if (error.requestId !== undefined) {
      this.#answerError(error.requestId, error.message);
      return;
    }
    this.writer.send({
      type: "system",
      subtype: "error",
      error: { code: error.code, message: error.message, line: error.line },
    });
  }

  #answer(requestId: string | number, response: unknown): void {
    this.writer.send({
      type: "control_response",
      response: { subtype: "success", request_id: requestId, response },
    });
  }

  #answerError(requestId: string | number, error: string): void {
    this.writer.send({
      type: "control_response",
      response: { subtype: "error", request_id: requestId, error },
    });
  }

  #controlRequest(message: ControlRequestMessage): void {
    const { request_id: id, request } = message;
    const schema = ControlBodies[request.subtype as ControlSubtype];
    if (!schema) {
      return this.#answerError(
        id,
        `unknown control_request subtype "${
          request.subtype.slice(0, 100)
        }"; wave serves ${Object.keys(ControlBodies).join(", ")}`,
      );
    }
    const parsed = schema.safeParse(request);
    if (!parsed.success) {
      return this.#answerError(
        id,
        `invalid ${request.subtype} request: ${describeIssues(parsed.error)}`,
      );
    }
    const body = parsed.data;
    switch (body.subtype) {
      case "call_tool":
        return this.#callTool(id, body.tool_name, body.input, body.tool_use_id);
      case "interrupt":
        this.interrupt();
        return this.#answer(id, {});
      case "set_permission_mode":
        this.mode = body.mode as Mode;
        return this.#answer(id, { mode: this.mode });
      case "list_tools":
        return this.#answer(id, { tools: this.registry.describe(this.mode) });
      case "get_tasks":
        return this.#track(this.#getTasks(id));
    }
  }

  /** Answers get_tasks, in the session's queue as a read: it sees every change requested before it. */
  async #getTasks(id: string | number): Promise<void> {
    const ticket = this.writeQueue.enter("read");
    try {
      await ticket.ready;
      const view = await this.tasks.view();
      this.#answer(id, { task_list_id: this.config.taskListId, ...view });
    } catch (error) {
      this.#answerError(
        id,
        `the task list cannot be read: ${(error as Error).message}`,
      );
    } finally {
      ticket.release();
    }
  }

  #callTool(
    id: string | number,
    name: string,
    input: unknown,
    toolUseId?: string,
  ): void {
    const prepared = this.calls.prepare(name, input, toolUseId);
    if ("error" in prepared) return this.#answerError(id, prepared.error);
    const controller = new AbortController();
    this.#inflight.add(controller);
    this.#track(
      this.calls.run(prepared, controller.signal)
        .then((result) => this.#answer(id, result))
        .catch((error) =>
          this.#answerError(id, `internal error: ${(error as Error).message}`)
        )
        .finally(() => this.#inflight.delete(controller)),
    );
  }

  #userTurn(content: string | Block[]): void {
    if (!this.config.model) {
      return this.#failedTurn(
        "error_during_execution",
        "no model is configured: start wave with --model PROVIDER:NAME (anthropic:…, openai:…, replay:FILE), or drive the tools with control_request call_tool",
      );
    }
    // Turns run one after another; an interrupt also ends the ones still waiting.
    const generation = this.#interrupts;
    const turn = this.#turns.then(async () => {
      if (generation !== this.#interrupts) {
        return this.#failedTurn(
          "error_interrupted",
          "interrupted before the turn started",
        );
      }
      let loop: AgentLoop;
      try {
        loop = await this.#loop();
      } catch (error) {
        return this.#failedTurn(
          "error_during_execution",
          (error as Error).message,
        );
      }
      const controller = new AbortController();
      this.#inflight.add(controller);
      try {
        await loop.runTurn(content, controller.signal);
      } finally {
        this.#inflight.delete(controller);
      }
    });
    this.#turns = turn;
    this.#track(turn);
  }

  #failedTurn(subtype: string, message: string): void {
    this.writer.send({
      type: "result",
      subtype,
      is_error: true,
      num_turns: 0,
      duration_ms: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
      result: message,
    });
  }

  /** The agent loop, made on the first turn: the provider and any resumed history load then. */
  #loop(): Promise<AgentLoop> {
    this.#agent ??= (async () => {
      const provider = await createProvider({
        model: this.config.model!,
        baseUrl: this.config.baseUrl,
        env: Deno.env,
      });
      return new AgentLoop({
        config: this.config,
        provider,
        registry: this.registry,
        calls: this.calls,
        writer: this.writer,
        transcript: this.transcript,
        mode: () => this.mode,
        hooks: this.hooks,
      }, this.#resumed);
    })();
    // A failed start is reported on each turn, and tried again on the next.
    this.#agent.catch(() => this.#agent = undefined);
    return this.#agent;
  }

  /** Loads a resumed session's history; warnings go to stderr and to the parent. */
  async loadHistory(): Promise<void> {
    const { entries, warnings } = await Transcript.load(this.transcript.path);
    for (const warning of warnings) {
      console.error(`wave: ${warning}`);
      this.writer.send({
        type: "system",
        subtype: "warning",
        message: warning,
      });
    }
    this.#resumed = repairHistory(entries.map((e) => e.message));
    this.reminders.restore(entries);
  }

  #track(promise: Promise<unknown>): void {
    this.#work.add(promise);
    promise.finally(() => this.#work.delete(promise));
  }

  /**
   * Sends the task list (`system/task_list`). Announcements run one after
   * another and each reads the list when it runs, so the last event always
   * shows the latest state.
   */
  announceTasks(): Promise<void> {
    this.#announcing = this.#announcing.then(async () => {
      try {
        const view = await this.tasks.view();
        this.writer.send({
          type: "system",
          subtype: "task_list",
          task_list_id: this.config.taskListId,
          ...view,
        });
      } catch (error) {
        console.error("wave: cannot read the task list:", error);
      }
    });
    return this.#announcing;
  }

  /** Cancels every running call and pending approval. */

  interrupt(): void {
    this.#interrupts++;
    for (const controller of this.#inflight) controller.abort();
  }

  /** Resolves when nothing is in flight. */
  async settle(): Promise<void> {
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
  }

  /** Waits for work in flight at most `ms`. */
  async settleWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.settle(),
      new Promise((resolve) => timer = setTimeout(resolve, ms)),
    ]);
    clearTimeout(timer);
  }

  /** Ends the session's resources: workers, process groups. */
  close(): void {
    this.executor.close();
    this.processes.killAll();
  }
}

/**
 * Serves one session over `io` until stdin ends (exit code 0) or a signal
 * ends it (the caller's `signal`). Resolves with the exit code.
 */
export async function serve(
  config: Config,
  io: SessionIO,
  options: ServeOptions,
  signal?: AbortSignal,
): Promise<number> {
  // What a command detaches becomes wave's child, so it can be cleaned up.
  becomeSubreaper();
  // WAVE_HOME's real location, so paths under it compare with resolved ones.
  config = { ...config, waveHome: realPathOf(config.waveHome) };
  const writer = new ProtocolWriter(io.stdout, config.sessionId);
  const registry = await ToolRegistry.load(options.modules);
  if (!options.initSent) {
    writer.send(
      initMessage(config, registry.bound(config.mode).map((t) => t.def.name)),
    );
  }
  const session = new Session(config, writer, registry);

  if (config.resume) await session.loadHistory();
  // A list that already has tasks (shared, or resumed) is shown at once, finished or not.
  if (
    (await session.tasks.view().catch(() => ({ tasks: [] }))).tasks.length > 0
  ) {
    await session.announceTasks();
  }

  const state = { stopping: "eof" as "eof" | "signal" | "pipe" };
  const reader = readLines(io.stdin, config.maxLineBytes);
  const stop = new Promise<"signal">((resolve) => {
    const onAbort = () => resolve("signal");
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  writer.onClosed = () => {
    state.stopping = "pipe";
    session.interrupt();
  };

  const readLoop = (async () => {
    for await (const item of reader) {
      if ("error" in item) {
        session.reportInputError({
          code: item.error,
          message: item.message,
          line: item.line,
        });
      } else {
        session.handleLine(item.text, item.line);
      }
      if (state.stopping === "pipe") break;
    }
  })();

  const how = await Promise.race([readLoop.then(() => "eof" as const), stop]);
  if (how === "signal") state.stopping = "signal";

  if (state.stopping === "eof") {
    // Nobody can answer an approval any more; finish the rest, unless a
    // signal says to stop now.
    session.approvals.close("stdin was closed, so no approval can arrive");
    const finished = await Promise.race([
      session.settle().then(() => "settled" as const),
      stop,
    ]);
    if (finished === "signal") state.stopping = "signal";
  }
  if (state.stopping !== "eof") {
    session.approvals.close("wave is shutting down");
    session.interrupt();
    await session.settleWithin(1500);
  }
  session.close();
  await writer.drain();
  return state.stopping === "signal" ? 1 : 0;
}
