/**
 * The agent loop (docs/protocol.md "A user turn"): model → tool calls → results
 * → model … until the model stops, `--max-turns` is reached, the turn is
 * interrupted, or the model fails.
 *
 * Tool calls take exactly the path of `call_tool` (validation, modes,
 * approvals, read-state, the write queue), all of one reply at once: the
 * write queue lets read-only calls overlap and keeps writes in order. A
 * tool failure goes back to the model; it never ends the turn.
 *
 * @module
 */

import type { Config, Mode } from "./config.ts";
import type {
  Block,
  Message,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from "./messages.ts";
import { mergeTurns, textOf } from "./messages.ts";

import {
  isAbort,
  ModelError,
  type ModelProvider,
  type ModelReply,
} from "./models/provider.ts";
import type { MessageSink } from "./output.ts";
import type { ToolRegistry } from "./registry.ts";
import { systemPrompt } from "./system_prompt.ts";
import type { ApprovalOutcome, CallResult, ToolCalls } from "./tool_calls.ts";
import type { Transcript, TranscriptEntry } from "./transcript.ts";
import { VERSION } from "./version.ts";

/** How often a reply stream cut off mid-way is tried again before the turn fails. */
const STREAM_RETRIES = 2;
/** After an interrupt, how long tools get to stop before their results are written as interrupted. */
const INTERRUPT_WAIT_MS = 700;
/** Output tokens a model may produce in one reply. */
const MAX_OUTPUT_TOKENS = 8192;

/** Hooks other features plug into the loop (task reminders). */
export interface LoopHooks {
  /** Called before each model request; a message it returns is added (as a meta user message) first. */
  beforeRequest?(): Promise<Message | null> | Message | null;
  /** Called after each model reply with the names of the tools it called. */
  afterReply?(toolNames: string[]): void;
}

/** What the loop needs from its session. */
export interface LoopDeps {
  config: Config;
  provider: ModelProvider;
  registry: ToolRegistry;
  calls: ToolCalls;
  writer: MessageSink;
  transcript: Transcript;
  mode(): Mode;
  hooks?: LoopHooks;
}

/** The end of a turn. */
type Ending =
  | { subtype: "success"; text: string }
  | {
    subtype: "error_max_turns" | "error_during_execution" | "error_interrupted";
    text: string;
  };

/** One session's conversation and its turns. */
export class AgentLoop {
  readonly history: Message[];
  #deps: LoopDeps;
  #recorded = false;

  constructor(deps: LoopDeps, history: Message[] = []) {
    this.#deps = deps;
    this.history = history;
  }

  /**
   * Runs one user turn to its end and writes its `result`. Never rejects:
   * every failure ends the turn with an error `result`.
   */
  async runTurn(content: string | Block[], signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const usage: Usage = { input_tokens: 0, output_tokens: 0 };
    let turns = 0;
    let ending: Ending;
    try {
      if (!this.#recorded) await this.#recordSession();
      await this.#add({ role: "user", content });
      ending = await this.#loop(signal, usage, () => ++turns);
    } catch (error) {
      ending = {
        subtype: "error_during_execution",
        text: `internal error: ${(error as Error).message}`,
      };
    }
    const result = {
      type: "result",
      subtype: ending.subtype,
      is_error: ending.subtype !== "success",
      num_turns: turns,
      duration_ms: Math.round(performance.now() - started),
      usage,
      result: ending.text,
    } as const;
    // On disk first: a parent that has read `result` finds it in the transcript.
    await this.#deps.transcript.append(result);
    this.#deps.writer.send(result);
  }

  /** The session's settings, once per loop, for a report read later. */
  async #recordSession(): Promise<void> {
    this.#recorded = true;
    const { config } = this.#deps;
    await this.#deps.transcript.append({
      type: "session",
      session_id: config.sessionId,
      cwd: config.workspace,
      model: config.model,
      toolset: config.toolset,
      mode: this.#deps.mode(),
      approvals: config.approvals,
      wave_version: VERSION,
    });
  }

  async #loop(
    signal: AbortSignal,
    usage: Usage,
    countTurn: () => number,
  ): Promise<Ending> {
    const { config, hooks } = this.#deps;
    let lastText = "";
    while (true) {
      if (signal.aborted) return interrupted(lastText);
      const meta = await hooks?.beforeRequest?.();
      if (meta) await this.#add(meta, { isMeta: true });

      let reply: ModelReply;
      const asked = performance.now();
      try {
        reply = await this.#request(signal);
      } catch (error) {
        if (isAbort(error, signal)) return interrupted(lastText);
        return {
          subtype: "error_during_execution",
          text: (error as Error).message,
        };
      }
      const turn = countTurn();
      usage.input_tokens += reply.usage.input_tokens;
      usage.output_tokens += reply.usage.output_tokens;
      const text = textOf(reply.content);
      if (text) lastText = text;
      await this.#add({ role: "assistant", content: reply.content }, {
        model: reply.model,
        usage: reply.usage,
        durationMs: Math.round(performance.now() - asked),
      });
      this.#deps.writer.send({
        type: "assistant",
        message: {
          role: "assistant",
          content: reply.content,
          model: reply.model,
          stop_reason: reply.stopReason,
          usage: reply.usage,
        },
      });
      const uses = reply.content.filter((b): b is ToolUseBlock =>
        b.type === "tool_use"
      );
      hooks?.afterReply?.(uses.map((u) => u.name));
      if (uses.length === 0) {
        if (reply.stopReason === "max_tokens") {
          return {
            subtype: "error_during_execution",
            text:
              `${lastText}\n[the reply was cut at the model's output limit of ${MAX_OUTPUT_TOKENS} tokens]`,
          };
        }
        return { subtype: "success", text: lastText };
      }
      await this.#runTools(uses, signal);
      if (signal.aborted) return interrupted(lastText);
      if (turn >= config.maxTurns) {
        return {
          subtype: "error_max_turns",
          text:
            `stopped after ${turn} model turns (--max-turns ${config.maxTurns}); send another message to continue`,
        };
      }
    }
  }

  /** One model request, tried again when the reply stream broke off. */
  async #request(signal: AbortSignal): Promise<ModelReply> {
    const { provider, registry, config } = this.#deps;
    const mode = this.#deps.mode();
    const tools = registry.describe(mode).map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
    }));
    const request = {
      system: systemPrompt({
        workspace: config.workspace,
        mode,
        toolset: config.toolset,
        tools: tools.map((t) => t.name),
        taskTrackers: registry.emitters("task_list_changed", mode),
      }),
      messages: mergeTurns(this.history),
      tools,
      maxTokens: MAX_OUTPUT_TOKENS,
    };
    for (let attempt = 0;; attempt++) {
      try {
        const { writer } = this.#deps;
        return await provider.complete(
          request,
          signal,
          writer.textDelta && ((delta) => writer.textDelta!(delta)),
        );
      } catch (error) {
        if (
          !(error instanceof ModelError) || !error.retryable ||
          attempt >= STREAM_RETRIES
        ) {
          if (error instanceof ModelError && error.retryable) {
            throw new ModelError(
              `${error.message} (tried ${
                attempt + 1
              } times); the turn was stopped, and sending the message again will retry it`,
              false,
            );
          }
          throw error;
        }
        console.error(`wave: ${error.message}; trying again`);
        await sleep(250 * (attempt + 1), signal);
      }
    }
  }

  /** Runs one reply's tool calls and feeds their results back. */
  async #runTools(uses: ToolUseBlock[], signal: AbortSignal): Promise<void> {
    const { calls, writer } = this.#deps;
    const results: (CallResult & { durationMs: number })[] = new Array(
      uses.length,
    );
    const approvals: Record<string, ApprovalOutcome> = {};
    const running = uses.map(async (use, i) => {
      const started = performance.now();
      const prepared = calls.prepare(use.name, use.input, use.id);
      const result: CallResult = "error" in prepared
        ? {
          tool_use_id: use.id,
          content: prepared.error,
          is_error: true,
          structured: null,
        }
        : await calls.run(
          prepared,
          signal,
          (outcome) => approvals[use.id] = outcome,
        );
      results[i] = {
        ...result,
        durationMs: Math.round(performance.now() - started),
      };
    });
    const all = Promise.all(running);
    await Promise.race([all, afterAbort(signal, INTERRUPT_WAIT_MS)]);
    // Every tool_use needs its tool_result, even one a stuck tool never produced.
    uses.forEach((use, i) => {
      results[i] ??= {
        tool_use_id: use.id,
        content: `${use.name} was interrupted before it finished.`,
        is_error: true,
        structured: { type: "interrupted" },
        durationMs: 0,
      };
    });
    const blocks: ToolResultBlock[] = results.map((r) => ({
      type: "tool_result",
      tool_use_id: r.tool_use_id,
      content: r.content,
      is_error: r.is_error,
    }));
    const structured: Record<string, unknown> = {};
    const durationsMs: Record<string, number> = {};
    results.forEach((r, i) => {
      structured[r.tool_use_id] = r.structured;
      durationsMs[r.tool_use_id] = r.durationMs;
      writer.send({
        type: "user",
        message: { role: "user", content: [blocks[i]] },
        tool_use_result: r.structured,
        duration_ms: r.durationMs,
      });
    });
    await this.#add({ role: "user", content: blocks }, {
      toolUseResults: structured,
      durationsMs,
      ...(Object.keys(approvals).length > 0 ? { approvals } : {}),
    });
  }

  async #add(
    message: Message,
    extra: Omit<TranscriptEntry, "type" | "message" | "timestamp"> = {},
  ) {
    this.history.push(message);
    await this.#deps.transcript.append({
      type: message.role,
      message,
      ...extra,
    });
  }
}

function interrupted(lastText: string): Ending {
  return { subtype: "error_interrupted", text: lastText || "interrupted" };
}

/** Resolves `ms` after `signal` aborts (never, if it does not). */
function afterAbort(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const go = () => setTimeout(resolve, ms);
    if (signal.aborted) go();
    else signal.addEventListener("abort", go, { once: true });
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new DOMException("aborted", "AbortError"));
    }, { once: true });
  });
}

/**
 * A history read back from a transcript, made valid for a model: a reply
 * whose tool calls never got results (a crash mid-turn) gets results saying
 * so.
 */
export function repairHistory(messages: Message[]): Message[] {
  const out: Message[] = [];
  messages.forEach((message, i) => {
    out.push(message);
    if (message.role !== "assistant" || typeof message.content === "string") {
      return;
    }
    const uses = message.content.filter((b): b is ToolUseBlock =>
      b.type === "tool_use"
    );
    if (uses.length === 0) return;
    const next = messages[i + 1];
    const answered = new Set(
      next?.role === "user" && typeof next.content !== "string"
        ? next.content.flatMap((b) =>
          b.type === "tool_result" ? [b.tool_use_id] : []
        )
        : [],
    );
    const missing = uses.filter((u) => !answered.has(u.id));
    if (missing.length === 0) return;
    out.push({
      role: "user",
      content: missing.map((u) => ({
        type: "tool_result" as const,
        tool_use_id: u.id,
        content:
          "wave stopped before this tool finished; its effect is unknown.",
        is_error: true,
      })),
    });
  });
  return out;
}
