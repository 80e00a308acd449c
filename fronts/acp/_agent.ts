/**
 * The ACP agent over the session core (`wave acp`): `initialize`,
 * `session/new`, `session/load`, `session/resume`, `session/list`,
 * `session/prompt`, `session/cancel`, `session/set_mode` and
 * `session/close`, answered through `@agentclientprotocol/sdk`. A prompt
 * runs a user turn of the core's agent loop; what the turn writes (typed
 * outbound messages) and what its tools emit become `session/update`s, and
 * approvals become `session/request_permission`.
 *
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import type {
  ApprovalDecision,
  ApprovalParent,
  ApprovalRequest,
} from "../../session/approvals.ts";
import { type Config, sessionCwd } from "../../session/config.ts";
import {
  type Core,
  type CoreSession,
  noParentRequests,
  openCore,
} from "../../session/core.ts";
import { InFlight } from "../../session/in_flight.ts";
import type { Outbound } from "../../session/outbound.ts";
import type { McpServers } from "../../session/mcp/servers.ts";
import type { MessageSink } from "../../session/output.ts";
import type { WarmupWatcher } from "../../session/server.ts";
import type { ToolRegistry } from "../../session/registry.ts";
import { TaskReminders } from "../../session/task_reminders.ts";
import type { ToolEvent } from "../../tools/kernel/events.ts";
import { Transcript, transcriptPath } from "../../session/transcript.ts";
import {
  claimTranscript,
  releaseTranscript,
  SESSION_ID,
} from "../../session/transcript_claim.ts";
import { UserTurns } from "../../session/user_turns.ts";
import { SessionList } from "../../session/session_list.ts";
import { MODES } from "../../tools/kernel/modes.ts";
import { isInside, realPathOf } from "../../tools/kernel/workspace.ts";
import {
  type DefinitionOf,
  finishedCall,
  modesOf,
  planOf,
  promptBlocks,
  replayOf,
  SHOWN_OUTPUT_CHARS,
  toolCallOf,
} from "./_render.ts";
import { initializeResult } from "./early.ts";
import { clientBuffers, offersBuffers } from "./_client_fs.ts";
import {
  offersTerminalOutput,
  terminalExitOf,
  terminalOf,
  terminalOutputOf,
} from "./_terminal.ts";

/**
 * How long `session/close` waits for the session's turn to end and answer
 * its prompt: an interrupt ends a turn within a second
 * (`INTERRUPT_WAIT_MS`, session/agent_loop.ts).
 */
const CLOSE_SETTLE_MS = 1500;
/** JSON-RPC's codes for bad parameters and for a failure inside the agent. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * One ACP session: a user-turn queue over a core, its own mode, read
 * state, task and task list on that core (`Core.session`), and what its
 * client is shown.
 */
interface AcpSession {
  id: string;
  core: Core;
  /** What the session has of its own on the core: a mode set here is this session's. */
  own: CoreSession;
  /** The core's tools, and the session's MCP servers' (`session/new`'s `mcpServers`). */
  registry: ToolRegistry;
  /** The session's MCP servers, when it has any: closed with it. */
  servers?: McpServers;
  turns: UserTurns;
  /** Its transcript: claimed for this process while the session is open. */
  transcript: Transcript;
  /** The session's own interrupts: `session/cancel` ends its turn only. */
  inFlight: InFlight;
  /** Updates go out one after another; a prompt's answer waits for them. */
  updates: Promise<void>;
  /** The prompt being answered, resolved by its turn's `result`. */
  prompt?: PromiseWithResolvers<acp.PromptResponse>;
  /** Tool names the user allowed always, in this session. */
  alwaysAllowed: Set<string>;
  /** `session/close` has let it go: nothing more of it is sent. */
  closed?: boolean;
}

/** A tool call the model asked for in a session, while it runs. */
interface RunningCall {
  session: AcpSession;
  name: string;
  input: unknown;
  output: string;
  /** The call's command is shown in an editor terminal (`_terminal.ts`). */
  terminal?: boolean;
}

/** The `wave acp` agent: its handlers, sessions and cores. */
export class AcpFront {
  #config: Config;
  #client: acp.AgentContext | undefined;
  /** What the client said it offers, in `initialize`. */
  #capabilities: acp.ClientCapabilities | undefined;
  #cores = new Map<string, Promise<Core>>();
  #modules: readonly string[];
  #sessions = new Map<string, AcpSession>();
  /** The sessions in WAVE_HOME (`session/list`), made on first use. */
  #sessionList: SessionList | undefined;
  /** Set by {@linkcode AcpFront.close}: no session opens from then on. */
  #shuttingDown = false;
  /** The ids `session/load` is opening now. */
  #loading = new Set<string>();
  /** The sessions `session/close` is letting go of now, by id: until then a load of one waits. */
  #closing = new Map<string, Promise<void>>();
  /**
   * By {@linkcode callKey}: a tool_use id is the model's, and two
   * sessions' models may give the same one.
   */
  #calls = new Map<string, RunningCall>();
  /** Ends every core's warm-up at its next step: the front is closing. */
  #stopWarmup = new AbortController();
  /** Each core's warm-up (`ToolCalls.prewarm`), until it has ended. */
  #warmups = new Set<Promise<unknown>>();

  /** Told about each core's warm-up (`ServeOptions.onWarmup`). */
  #warmupWatcher: WarmupWatcher | undefined;

  /**
   * An agent for sessions configured by `config`, with the tools of
   * `modules`; `warmup` is told about each core's warm-up.
   */
  constructor(
    config: Config,
    modules: readonly string[],
    warmup?: WarmupWatcher,
  ) {
    this.#config = config;
    this.#modules = modules;
    this.#warmupWatcher = warmup;
  }

  /** The SDK app that answers ACP on a connection. */
  app(): acp.AgentApp {
    const { methods } = acp;
    return acp.agent({ name: "wave" })
      .onRequest(methods.agent.initialize, ({ params, client }) => {
        this.#client = client;
        this.#capabilities = params.clientCapabilities;
        return initializeResult();
      })
      .onRequest(methods.agent.session.new, async ({ params, client }) => {
        this.#client = client;
        const session = await this.#open(
          crypto.randomUUID(),
          params.cwd,
          params.mcpServers,
        );
        // After the answer: until it, the client knows no such session.
        setTimeout(() => this.#showPlan(session), 0);
        return {
          sessionId: session.id,
          modes: modesOf(session.own.mode.current),
        };
      })
      .onRequest(methods.agent.session.load, async ({ params, client }) => {
        this.#client = client;
        return await this.#load(
          params.sessionId,
          params.cwd,
          params.mcpServers,
          "load",
        );
      })
      .onRequest(methods.agent.session.resume, async ({ params, client }) => {
        this.#client = client;
        return await this.#load(
          params.sessionId,
          params.cwd,
          params.mcpServers,
          "resume",
        );
      })
      .onRequest(methods.agent.session.list, async ({ params }) => {
        const cwd = params.cwd ?? undefined;
        if (cwd !== undefined) {
          assertAbsolute(cwd, "the cwd to list the sessions of");
        }
        let page;
        try {
          this.#sessionList ??= new SessionList(this.#config.waveHome);
          // A workspace is recorded by its real path.
          page = await this.#sessionList.page({
            cwd: cwd === undefined ? undefined : realPathOf(cwd),
            cursor: params.cursor ?? undefined,
          });
        } catch (error) {
          throw new acp.RequestError(INVALID_PARAMS, (error as Error).message);
        }
        return {
          sessions: page.sessions.map((s) => ({
            sessionId: s.id,
            cwd: s.cwd,
            title: s.title ?? null,
            updatedAt: s.updatedAt,
          })),
          ...page.nextCursor ? { nextCursor: page.nextCursor } : {},
        };
      })
      .onRequest(methods.agent.session.close, async ({ params }) => {
        await this.#close(params.sessionId);
        return {};
      })
      .onRequest(methods.agent.session.setMode, ({ params }) => {
        const session = this.#session(params.sessionId);
        const mode = MODES.find((m) => m === params.modeId);
        if (!mode) {
          throw new acp.RequestError(
            INVALID_PARAMS,
            `unknown mode "${params.modeId}"; wave's modes are ${
              MODES.join(", ")
            }`,
          );
        }
        // The session's own: its siblings on the workspace keep theirs.
        session.own.mode.current = mode;
        this.#update(session, {
          sessionUpdate: "current_mode_update",
          currentModeId: mode,
        });
        return {};
      })
      .onRequest(methods.agent.session.prompt, ({ params }) => {
        const session = this.#session(params.sessionId);
        if (session.prompt) {
          throw new acp.RequestError(
            INVALID_PARAMS,
            "a prompt is already running in this session; cancel it (session/cancel) or wait for its answer",
          );
        }
        session.prompt = Promise.withResolvers();
        session.turns.start(promptBlocks(params.prompt));
        return session.prompt.promise;
      })
      .onNotification(methods.agent.session.cancel, ({ params }) => {
        this.#sessions.get(params.sessionId)?.inFlight.interrupt();
      });
  }

  /** Asks the session's client with `session/request_permission`; "always" is kept for the session. */
  readonly parent: ApprovalParent = {
    unavailable: (req: ApprovalRequest) =>
      this.#calls.has(callKey(req.sessionId, req.toolUseId)) && this.#client
        ? null
        : "no ACP client is waiting for this call",
    ask: async (req, signal): Promise<ApprovalDecision> => {
      const call = this.#calls.get(callKey(req.sessionId, req.toolUseId))!;
      const { session } = call;
      // "Always" covers calls like the one it answered: never one that
      // names a sensitive file or the model's key, which is asked each time.
      const remembers = !req.alwaysAsk && !req.sensitive;
      if (remembers && session.alwaysAllowed.has(req.toolName)) {
        return { allowed: true };
      }
      const toolCall = toolCallOf(
        req.toolUseId,
        req.toolName,
        req.input,
        this.#definitionOf(session.registry),
        session.core.config.workspace,
      );
      await session.updates;
      const answer = await this.#client!.request(
        acp.methods.client.session.requestPermission,
        {
          sessionId: session.id,
          toolCall: {
            ...toolCall,
            content: [{
              type: "content",
              content: { type: "text", text: `Needs approval: ${req.reason}` },
            }],
          },
          options: [
            { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
            ...remembers
              ? [{
                optionId: "allow_always",
                name: `Always allow ${req.toolName}`,
                kind: "allow_always" as const,
              }]
              : [],
            { optionId: "reject_once", name: "Reject", kind: "reject_once" },
          ],
        },
        { cancellationSignal: signal },
      );
      const outcome = answer.outcome;
      if (outcome.outcome === "selected") {
        if (outcome.optionId === "allow_always" && remembers) {
          session.alwaysAllowed.add(req.toolName);
        }
        if (outcome.optionId.startsWith("allow")) return { allowed: true };
        return {
          allowed: false,
          message: `${req.toolName} was denied by the user (${req.reason})`,
        };
      }
      return {
        allowed: false,
        message:
          `${req.toolName} was denied: the permission request was cancelled (${req.reason})`,
      };
    },
  };

  #session(id: string): AcpSession {
    const session = this.#sessions.get(id);
    if (!session) {
      throw new acp.RequestError(
        INVALID_PARAMS,
        `no session ${id} is open in this wave; start one with session/new, or open it with session/load or session/resume`,
      );
    }
    return session;
  }

  #definitionOf(registry: ToolRegistry): DefinitionOf {
    return (name) => registry.get(name)?.def;
  }

  /** The core for the workspace `cwd`, opened on first use. */
  #coreFor(cwd: string): Promise<Core> {
    assertAbsolute(cwd, "the session's cwd");
    let workspace: string;
    try {
      workspace = Deno.realPathSync(cwd);
      if (!Deno.statSync(workspace).isDirectory) throw new Error();
    } catch {
      throw new acp.RequestError(
        INVALID_PARAMS,
        `the session's cwd is not a directory wave can work in: ${cwd}`,
      );
    }
    // Inside WAVE_HOME, every session's transcript, history and spill
    // files would be the workspace's, read without a question.
    const waveHome = realPathOf(this.#config.waveHome);
    if (isInside(waveHome, workspace)) {
      throw new acp.RequestError(
        INVALID_PARAMS,
        `the session's cwd ${cwd} is inside wave's own state directory (WAVE_HOME ${waveHome}); open a project directory`,
      );
    }
    let core = this.#cores.get(workspace);
    if (!core) {
      // An id of its own: the core's spill and warm-up directories are
      // named by it, and are no other workspace's.
      const coreConfig = {
        ...this.#config,
        workspace,
        sessionId: crypto.randomUUID(),
      };
      core = openCore(coreConfig, {
        modules: this.#modules,
        parent: this.parent,
        requests: noParentRequests("wave acp"),
        onEvent: (toolUseId, event, sessionId) =>
          this.#onEvent(toolUseId, event, sessionId),
        buffers: offersBuffers(this.#capabilities)
          ? clientBuffers(
            () => this.#client,
            (sessionId, toolUseId) =>
              this.#calls.has(callKey(sessionId, toolUseId)),
          )
          : undefined,
      });
      this.#cores.set(workspace, core);
      core.then(async (opened) => {
        // Idle time until the first turn's calls: the workers start now,
        // as they do for stream-json. Each step waits while a call runs
        // or a prompt's turn holds it (until its first model request is
        // sent: UserTurns), and close() stops it.
        const watcher = this.#warmupWatcher;
        const warming = opened.calls.prewarm({
          signal: this.#stopWarmup.signal,
          onCall: watcher?.call,
          // Each session makes its own (its spill directory is its own).
          firstCommand: false,
        }).then(() => watcher?.ended?.());
        this.#warmups.add(warming);
        warming.finally(() => this.#warmups.delete(warming));
        for (const warning of await opened.warnings()) {
          console.error(`wave: warning: ${warning}`);
        }
      }, () => this.#cores.delete(workspace));
    }
    return core;
  }

  async #open(
    id: string,
    cwd: string,
    mcpServers: readonly acp.McpServer[] = [],
  ): Promise<AcpSession> {
    const core = await this.#coreFor(cwd);
    const inFlight = new InFlight();
    // The session's MCP servers (the client's, and --mcp-config's) join a
    // registry of its own: its model is offered their tools, and no other
    // session's is.
    const entries = { ...this.#config.mcpServers, ...mcpEntries(mcpServers) };
    let registry = core.registry;
    let servers: McpServers | undefined;
    if (Object.keys(entries).length > 0) {
      registry = core.registry.derive();
      servers = await core.mcpServers(registry);
      await servers.connect(entries);
      for (const server of servers.status()) {
        if (server.status === "failed") {
          console.error(
            `wave: warning: MCP server ${server.name} failed: ${server.error}`,
          );
        }
      }
    }
    const own = core.session(id, registry);
    const session: AcpSession = {
      id,
      core,
      own,
      registry,
      servers,
      inFlight,
      updates: Promise.resolve(),
      alwaysAllowed: new Set(),
      turns: undefined as unknown as UserTurns,
      transcript: new Transcript(transcriptPath(core.config.waveHome, id)),
    };
    const trackers = new Set(registry.emitters("task_list_changed"));
    session.turns = new UserTurns({
      config: { ...core.config, sessionId: id },
      writer: this.#sinkFor(session),
      registry,
      calls: own.calls,
      transcript: session.transcript,
      mode: own.mode,
      reminders: new TaskReminders(own.tasks, {
        isTracker: (name) => trackers.has(name),
        bound: () => registry.emitters("task_list_changed", own.mode.current),
      }),
      inFlight,
      task: own.task,
    });
    // wave acp began shutting down meanwhile: its close has gone through
    // the sessions already, and would not let this one go.
    if (this.#shuttingDown) {
      await servers?.close();
      throw new acp.RequestError(INTERNAL_ERROR, "wave acp is shutting down");
    }
    this.#sessions.set(id, session);
    // Idle time until its first prompt: its first command's process.
    void own.calls.prepareCommand();
    return session;
  }

  /**
   * `session/load` (the transcript replayed as updates first) and
   * `session/resume` (not replayed: the client shows what it kept): the
   * session goes on from its transcript. `verb` names the request in
   * what a refusal says.
   */
  async #load(
    id: string,
    cwd: string,
    mcpServers: readonly acp.McpServer[] | undefined,
    verb: "load" | "resume",
  ): Promise<acp.LoadSessionResponse> {
    if (!SESSION_ID.test(id)) {
      throw new acp.RequestError(
        INVALID_PARAMS,
        `not a wave session id: ${JSON.stringify(id).slice(0, 140)}`,
      );
    }
    // One being closed still holds its transcript claim and spill
    // directory, which its close is about to let go of.
    await this.#closing.get(id);
    if (this.#shuttingDown) {
      throw new acp.RequestError(INTERNAL_ERROR, "wave acp is shutting down");
    }
    // Taken at once: a second load of it that comes while this one
    // awaits is refused, not opened beside it.
    if (this.#sessions.has(id) || this.#loading.has(id)) {
      throw new acp.RequestError(
        INVALID_PARAMS,
        `session ${id} is already open in this wave`,
      );
    }
    this.#loading.add(id);
    try {
      const core = await this.#coreFor(cwd);
      const path = transcriptPath(core.config.waveHome, id);
      let entries;
      try {
        ({ entries } = await Transcript.load(path));
      } catch {
        throw new acp.RequestError(
          INVALID_PARAMS,
          `there is no session ${id} to ${verb} in ${core.config.waveHome}/sessions`,
        );
      }
      // A session goes on in its own workspace: its history names that
      // workspace's files.
      const owner = sessionCwd(path);
      if (owner !== undefined && owner !== core.config.workspace) {
        throw new acp.RequestError(
          INVALID_PARAMS,
          `session ${id} is a session of ${owner}, not of ${core.config.workspace}; ${verb} it with that cwd`,
        );
      }
      // Another wave appending to it too would interleave two histories.
      if (!claimTranscript(path)) {
        throw new acp.RequestError(
          INVALID_PARAMS,
          `session ${id} is open in another wave process; ${verb} it once that one has ended`,
        );
      }
      let session: AcpSession | undefined;
      try {
        session = await this.#open(id, cwd, mcpServers);
        await session.turns.resume();
      } catch (error) {
        // Not opened after all: neither here nor held from another wave,
        // and nothing of it left running.
        this.#sessions.delete(id);
        if (session) await this.#release(session);
        releaseTranscript(path);
        throw error;
      }
      if (verb === "load") {
        for (
          const update of replayOf(
            entries,
            this.#definitionOf(session.registry),
            core.config.workspace,
          )
        ) this.#update(session, update);
      }
      await this.#showPlan(session);
      await session.updates;
      return { modes: modesOf(session.own.mode.current) };
    } finally {
      this.#loading.delete(id);
    }
  }

  /**
   * `session/close`: the session's turn is cancelled as `session/cancel`
   * does (its prompt answered `cancelled`, its updates out first), then
   * what it holds is let go (`#release`): the processes made
   * ahead for its commands, its MCP servers (their processes), its claim
   * on the transcript (another wave may load it now), its spill directory
   * if nothing was spilled into it. Closing a session that is not open
   * succeeds; one still being loaded is refused. A second close of it
   * answers once the first has let go, and a load or resume of it waits
   * until then (the claim and the spill directory are the same ones).
   */
  async #close(id: string): Promise<void> {
    // A second close answers once the first has let everything go.
    const closing = this.#closing.get(id);
    if (closing) return await closing;
    if (this.#loading.has(id)) {
      throw new acp.RequestError(
        INVALID_PARAMS,
        `session ${id} is still being opened; close it once session/load or session/resume has answered`,
      );
    }
    const session = this.#sessions.get(id);
    if (!session) return;
    // From now on no request reaches it.
    this.#sessions.delete(id);
    const done = this.#letGo(session).finally(() => this.#closing.delete(id));
    this.#closing.set(id, done);
    await done;
  }

  /**
   * What `session/close` does once no request reaches the session: its
   * turn is interrupted and given {@linkcode CLOSE_SETTLE_MS} in all to
   * end and answer its prompt, then what it holds is let go.
   */
  async #letGo(session: AcpSession): Promise<void> {
    const deadline = performance.now() + CLOSE_SETTLE_MS;
    const answered = session.prompt?.promise.then(() => {}, () => {});
    session.inFlight.interrupt();
    await session.inFlight.settleWithin(CLOSE_SETTLE_MS);
    if (answered) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        answered,
        new Promise((resolve) =>
          timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))
        ),
      ]);
      clearTimeout(timer);
      // A turn that did not end in time is not waited for: its prompt is
      // answered here, and what it writes later is not recorded
      // (`Transcript.release`) nor shown.
      session.prompt?.resolve({ stopReason: "cancelled" });
      session.prompt = undefined;
    }
    await session.updates;
    session.closed = true;
    for (const [key, call] of this.#calls) {
      if (call.session === session) this.#calls.delete(key);
    }
    await this.#release(session);
  }

  /**
   * Lets go of what a session holds: the processes made ahead for its
   * commands and its spill directory if nothing was spilled into it
   * (`ToolCalls.endSession`), its MCP servers (their processes), its
   * claim on the transcript.
   */
  async #release(session: AcpSession): Promise<void> {
    session.own.calls.endSession();
    await session.servers?.close();
    await session.transcript.release();
  }

  /**
   * Shows the session its task list as its plan when the list has tasks
   * (a loaded session's, or one --task-list names), as a change to it
   * would; an empty list shows nothing.
   */
  async #showPlan(session: AcpSession): Promise<void> {
    const view = await session.own.tasks.view().catch(() => undefined);
    if (view && view.tasks.length > 0) {
      this.#update(session, { sessionUpdate: "plan", ...planOf(view) });
    }
  }

  /** Sends one `session/update`, after the ones before it; none once the session is closed. */
  #update(session: AcpSession, update: acp.SessionUpdate): void {
    const client = this.#client;
    // A turn that outlived its session's close: its id may be a session
    // opened again since, whose client must not see this one's updates.
    if (!client || session.closed) return;
    session.updates = session.updates.then(() =>
      client.notify(acp.methods.client.session.update, {
        sessionId: session.id,
        update,
      })
    ).catch((error) =>
      console.error("wave: a session/update was not sent:", error)
    );
  }

  /** What a session's turns write, rendered as updates and the prompt's answer. */
  #sinkFor(session: AcpSession): MessageSink {
    // Whether the reply being written has streamed its text already (as
    // chunks while it came): its whole text is then not sent again.
    let streamed = false;
    return {
      textDelta: (text: string) => {
        if (text === "") return;
        streamed = true;
        this.#update(session, {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text },
        });
      },
      send: (message: Outbound) => {
        const { core } = session;
        switch (message.type) {
          case "assistant":
            for (const block of message.message.content) {
              if (block.type === "text" && block.text !== "" && !streamed) {
                this.#update(session, {
                  sessionUpdate: "agent_message_chunk",
                  content: { type: "text", text: block.text },
                });
              } else if (block.type === "tool_use") {
                const call = toolCallOf(
                  block.id,
                  block.name,
                  block.input,
                  this.#definitionOf(session.registry),
                  core.config.workspace,
                );
                const terminal = call.kind === "execute" &&
                  offersTerminalOutput(this.#capabilities);
                this.#calls.set(callKey(session.id, block.id), {
                  session,
                  name: block.name,
                  input: block.input,
                  output: "",
                  terminal,
                });
                this.#update(session, {
                  sessionUpdate: "tool_call",
                  ...call,
                  ...terminal
                    ? terminalOf(block.id, core.config.workspace)
                    : {},
                });
              }
            }
            streamed = false;
            return;
          case "user":
            for (const block of message.message.content) {
              if (typeof block === "string" || block.type !== "tool_result") {
                continue;
              }
              const key = callKey(session.id, block.tool_use_id);
              const terminal = this.#calls.get(key)?.terminal;
              this.#calls.delete(key);
              const structured = message.tool_use_result ?? null;
              this.#update(session, {
                sessionUpdate: "tool_call_update",
                toolCallId: block.tool_use_id,
                ...finishedCall({
                  content: block.content,
                  is_error: !!block.is_error,
                  structured,
                }),
                ...terminal
                  ? terminalExitOf(block.tool_use_id, structured)
                  : {},
              });
            }
            return;
          case "result":
            return this.#finishPrompt(session, message);
          case "system":
            if (message.subtype === "warning") {
              console.error(`wave: ${message.message}`);
            }
            return;
        }
      },
    };
  }

  /** Answers the session's prompt once its updates are out: the turn's ending as ACP's stop reason. */
  #finishPrompt(
    session: AcpSession,
    result: Extract<Outbound, { type: "result" }>,
  ): void {
    const prompt = session.prompt;
    session.prompt = undefined;
    if (!prompt) return;
    session.updates.then(() => {
      switch (result.subtype) {
        case "success":
          return prompt.resolve({ stopReason: "end_turn" });
        case "error_interrupted":
          return prompt.resolve({ stopReason: "cancelled" });
        case "error_max_turns":
          return prompt.resolve({ stopReason: "max_turn_requests" });
        default:
          return prompt.reject(
            new acp.RequestError(
              INTERNAL_ERROR,
              result.result ?? "the turn failed",
            ),
          );
      }
    });
  }

  /** A running tool's events: output into its tool call, a changed task list as the plan of every session on that list. */
  #onEvent(
    toolUseId: string,
    event: ToolEvent,
    sessionId: string,
  ): Promise<void> | void {
    const call = this.#calls.get(callKey(sessionId, toolUseId));
    switch (event.type) {
      case "output": {
        if (!call) return;
        if (call.terminal) {
          this.#update(call.session, {
            sessionUpdate: "tool_call_update",
            ...terminalOutputOf(toolUseId, event.text),
          });
          return;
        }
        call.output = (call.output + event.text).slice(-SHOWN_OUTPUT_CHARS);
        this.#update(call.session, {
          sessionUpdate: "tool_call_update",
          toolCallId: toolUseId,
          status: "in_progress",
          content: [{
            type: "content",
            content: { type: "text", text: call.output },
          }],
        });
        return;
      }
      case "task_list_changed": {
        if (!call) return;
        const { own } = call.session;
        return own.tasks.view().then((view) => {
          const plan = planOf(view);
          // Sessions share a list only when --task-list named it: each
          // on it is told, on whichever workspace.
          for (const session of this.#sessions.values()) {
            if (session.own.taskListId === own.taskListId) {
              this.#update(session, { sessionUpdate: "plan", ...plan });
            }
          }
          return call.session.updates;
        }, (error) => console.error("wave: cannot read the task list:", error));
      }
    }
  }

  /**
   * Shuts down: the warm-up stops (no step starts; it has ended when this
   * resolves), every approval still waiting is denied with `reason`,
   * every turn interrupted (at most 1.5 s to stop), every core closed.
   */
  async close(reason: string): Promise<void> {
    this.#shuttingDown = true;
    // No warm-up step starts from now on.
    this.#stopWarmup.abort();
    const cores = await Promise.allSettled([...this.#cores.values()]);
    for (const c of cores) {
      if (c.status === "fulfilled") c.value.approvals.close(reason);
    }
    for (const session of this.#sessions.values()) {
      session.own.calls.discardPrepared();
      session.inFlight.interrupt();
    }
    // Those session/close is letting go of finish first.
    await Promise.allSettled(this.#closing.values());
    await Promise.all(
      [...this.#sessions.values()].map((s) => s.inFlight.settleWithin(1500)),
    );
    for (const c of cores) {
      if (c.status === "fulfilled") await c.value.close();
    }
    await Promise.all(
      [...this.#sessions.values()].map((s) => s.transcript.release()),
    );
    // A warm-up call in flight ended with the workers: nothing of the
    // warm-up runs after close.
    await Promise.all(this.#warmups);
  }
}

/**
 * Refuses a `cwd` that is not absolute, naming it as `what`: ACP's cwd is
 * absolute, and a relative one would be wave's own directory's.
 */
function assertAbsolute(cwd: string, what: string): void {
  if (!cwd.startsWith("/")) {
    throw new acp.RequestError(
      INVALID_PARAMS,
      `${what} must be an absolute path, not ${JSON.stringify(cwd)}`,
    );
  }
}

/** The key of a session's running tool call in {@linkcode AcpFront}'s map. */
function callKey(sessionId: string, toolUseId: string): string {
  return `${sessionId}\u0000${toolUseId}`;
}

/**
 * ACP's `mcpServers` as `--mcp-config` entries, by name: stdio
 * `{name, command, args, env: [{name, value}]}`, and `http` or `sse`
 * `{type, name, url, headers: [{name, value}]}`.
 */
function mcpEntries(
  servers: readonly acp.McpServer[],
): Record<string, unknown> {
  const pairs = (list: readonly { name: string; value: string }[] = []) =>
    Object.fromEntries(list.map(({ name, value }) => [name, value]));
  const entries: Record<string, unknown> = {};
  for (const server of servers) {
    const entry =
      "type" in server && (server.type === "http" || server.type === "sse")
        ? { type: server.type, url: server.url, headers: pairs(server.headers) }
        : {
          command: (server as acp.McpServerStdio).command,
          args: (server as acp.McpServerStdio).args,
          env: pairs((server as acp.McpServerStdio).env),
        };
    Object.defineProperty(entries, server.name, {
      value: entry,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return entries;
}
