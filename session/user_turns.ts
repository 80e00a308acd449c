/**
 * User turns (docs/protocol.md "A user turn"): each `user` message runs one
 * turn of the agent loop, one after another, and every turn ends with
 * exactly one `result`, also one that cannot run (no model configured, the
 * provider fails to start, an interrupt while it waited).
 *
 * @module
 */

import {
  AgentLoop,
  repairHistory,
  type TurnHooks,
  turnResult,
} from "./agent_loop.ts";
import { parseModelId } from "./models/model_id.ts";
import type { Config } from "./config.ts";
import type { CurrentTask } from "./current_task.ts";
import type { InFlight } from "./in_flight.ts";
import type { Block, Message } from "./messages.ts";
import { createProvider } from "./models/mod.ts";
import type { SessionMode } from "./session_mode.ts";
import type { ResultSubtype } from "./outbound.ts";
import type { MessageSink } from "./output.ts";
import type { ToolRegistry } from "./registry.ts";
import type { TaskReminders } from "./task_reminders.ts";
import type { ToolCalls } from "./tool_calls.ts";
import { Transcript } from "./transcript.ts";
import type { EarlyRequest } from "./early_request.ts";

/** What {@linkcode UserTurns} needs from its session. */
export interface UserTurnsDeps {
  config: Config;
  writer: MessageSink;
  registry: ToolRegistry;
  calls: ToolCalls;
  transcript: Transcript;
  mode: SessionMode;
  reminders: TaskReminders;
  inFlight: InFlight;
  /** The session's current task: each turn is one. */
  task: CurrentTask;
  /** The parent's hooks on turns (UserPromptSubmit, Stop), once registered. */
  turnHooks?(): TurnHooks | undefined;
  /**
   * The first turn's model request, sent before the session loaded
   * (`early_request.ts`): the first provider's SDK takes its response over
   * when its own request is the same. Discarded after the first turn.
   */
  early?: Promise<EarlyRequest | undefined>;
}

/** A session's user turns and the agent loop that runs them. */
export class UserTurns {
  #deps: UserTurnsDeps;
  /** The turn last queued: the next one starts after it. */
  #queue: Promise<unknown> = Promise.resolve();
  #agent: Promise<AgentLoop> | undefined;
  #resumed: Message[] = [];
  /** The model `set_model` chose, for the turns from now on. */
  #model: string | null = null;
  /** Lets the session's warm-up go on: the running turn's first request is being sent. */
  #requesting: (() => void) | undefined;

  /** The session's config for the turns from now on. */
  #config: Config;

  /** Turns of the session `deps` describe. */
  constructor(deps: UserTurnsDeps) {
    this.#deps = deps;
    this.#config = deps.config;
  }

  /** The session's config for the turns from now on. */
  get config(): Config {
    return this.#config;
  }

  /**
   * Makes `config` the session's config from the next model request on
   * (initialize's prompt and schema, set_max_thinking_tokens' budget): a
   * new object, so the one the session started from stays as it was.
   */
  reconfigure(config: Config): void {
    this.#config = config;
  }

  /**
   * Loads a resumed session's history and rebuilds the reminder counters
   * from it; warnings (lines skipped) go to stderr and, as
   * `system/warning`, to the parent.
   */
  async resume(): Promise<void> {
    const { transcript, writer, reminders } = this.#deps;
    const { entries, warnings } = await Transcript.load(transcript.path);
    for (const warning of warnings) {
      console.error(`wave: ${warning}`);
      writer.send({ type: "system", subtype: "warning", message: warning });
    }
    this.#resumed = repairHistory(entries.map((e) => e.message));
    reminders.restore(entries);
  }

  /** Queues a turn on `content`. Its work is tracked, and an interrupt ends it. */
  start(content: string | Block[]): void {
    const { inFlight } = this.#deps;
    if (!this.#config.model) {
      return this.#failed(
        "error_during_execution",
        "no model is configured: start wave with --model PROVIDER:NAME (anthropic:…, openai:…, replay:FILE), or drive the tools with control_request call_tool",
      );
    }
    // Turns run one after another; an interrupt also ends the ones still waiting.
    const generation = inFlight.interrupts;
    const turn = this.#queue.then(async () => {
      if (generation !== inFlight.interrupts) {
        this.discardEarly();
        return this.#failed(
          "error_interrupted",
          "interrupted before the turn started",
        );
      }
      // Real work: the warm-up of the tools (ToolCalls.prewarm) waits
      // until this turn's first model request is sent.
      const release = this.#deps.calls.hold();
      this.#requesting = release;
      let loop: AgentLoop;
      try {
        loop = await this.#loop();
      } catch (error) {
        release();
        this.discardEarly();
        return this.#failed("error_during_execution", (error as Error).message);
      }
      // An interrupt while the loop was made (the provider's SDK loads) is
      // one before the turn started: no controller of it existed to abort.
      if (generation !== inFlight.interrupts) {
        release();
        this.discardEarly();
        return this.#failed(
          "error_interrupted",
          "interrupted before the turn started",
        );
      }
      const controller = inFlight.controller();
      this.#deps.task.beginTurn(messageText(content));
      try {
        await loop.runTurn(content, controller.signal);
      } finally {
        release();
        this.#deps.task.endTurn();
        inFlight.release(controller);
        // Taken over by now, or never to be: a request no turn reads is ended.
        this.discardEarly();
      }
    });
    this.#queue = turn;
    inFlight.track(turn);
  }

  /**
   * Switches the model of the next requests (`set_model`): a name as
   * `--model` takes it, or null for the one the session started with.
   * Rejects with a message a parent can act on when it cannot be reached.
   */
  async setModel(model: string | null): Promise<string> {
    const config = this.#config;
    const wanted = model === null
      ? config.model
      : modelIdOf(model, config.model);
    if (!wanted) throw new Error("no model is configured to return to");
    // A replay script is a file the parent names: only --model may name one.
    if (wanted.startsWith("replay:") && wanted !== config.model) {
      throw new Error(
        "set_model takes a model of an API (a Claude model name, anthropic:NAME or openai:NAME), not a replay script",
      );
    }
    const provider = await this.#providerFor(wanted);
    this.#model = wanted;
    const loop = await this.#agent?.catch(() => undefined);
    loop?.useProvider(provider);
    return wanted;
  }

  /** The model the next request goes to. */
  get model(): string | null {
    return this.#model ?? this.#config.model;
  }

  /** Aborts the early first request unless its response was taken over. */
  discardEarly(): void {
    this.#deps.early?.then((early) => early?.discard());
  }

  #providerFor(model: string, send?: typeof fetch) {
    const config = this.#config;
    const sameApi = model.slice(0, model.indexOf(":")) ===
      config.model?.slice(0, config.model.indexOf(":"));
    return createProvider({
      model,
      baseUrl: sameApi ? config.baseUrl : undefined,
      apiKey: sameApi ? config.apiKey : undefined,
      fetch: send,
    });
  }

  #failed(subtype: ResultSubtype, message: string): void {
    this.#deps.writer.send(
      turnResult({ subtype, text: message }, this.#config.claudeCompat),
    );
  }

  /** The agent loop, made on the first turn: the provider and any resumed history load then. */
  #loop(): Promise<AgentLoop> {
    const { registry, calls, writer, transcript, mode, reminders } = this.#deps;
    const currentConfig = () => this.#config;
    this.#agent ??= (async () => {
      // The session's first provider, of --model: its SDK may take the
      // early first request over.
      const early = this.model === this.#config.model
        ? await this.#deps.early
        : undefined;
      const provider = await this.#providerFor(this.model!, early?.fetchFor());
      return new AgentLoop({
        // Read at each request: what reconfigure gave is used from then on.
        get config() {
          return currentConfig();
        },
        provider,
        registry,
        calls,
        writer,
        transcript,
        mode: () => mode.current,
        hooks: {
          beforeRequest: () => {
            // The request is made and sent right after this hook; the
            // warm-up goes on a turn of the event loop later.
            const sent = this.#requesting;
            this.#requesting = undefined;
            if (sent) setTimeout(sent, 0);
            return reminders.beforeRequest();
          },
          afterReply: (names) => reminders.afterReply(names),
        },
        turnHooks: () => this.#deps.turnHooks?.(),
        providerFor: (model) => this.#providerFor(model),
      }, this.#resumed);
    })();
    // A failed start is reported on each turn, and tried again on the next.
    this.#agent.catch(() => this.#agent = undefined);
    return this.#agent;
  }
}

/** A model named as `--model` takes it, in the provider of `current` for a bare name of another API's model. */
function modelIdOf(model: string, current: string | null): string {
  const id = parseModelId(model);
  if ("problem" in id) {
    throw new Error(id.problem.replace("--model", "set_model"));
  }
  // A bare name is Claude's; under an OpenAI session it names an OpenAI model.
  const bare = !model.includes(":");
  const provider = bare && current?.startsWith("openai:")
    ? "openai"
    : id.provider;
  return `${provider}:${id.name}`;
}

/** The text of a user message: the string, or its text blocks in order. */
function messageText(content: string | Block[]): string {
  if (typeof content === "string") return content;
  return content.map((b) =>
    b.type === "text" ? (b as { text: string }).text : ""
  ).join("\n");
}
