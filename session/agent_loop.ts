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
import { textOf } from "./messages.ts";

import {
  isAbort,
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
} from "./models/provider.ts";
import { costOf } from "./models/prices.ts";
import type { ModelUsage, ResultSubtype, TurnResult } from "./outbound.ts";
import { describeIssues } from "./inbound.ts";
import { z } from "zod";
import type { MessageSink } from "./output.ts";
import type { ToolRegistry } from "./registry.ts";
import {
  MAX_OUTPUT_TOKENS,
  modelRequest,
  STRUCTURED_OUTPUT_TOOL,
} from "./model_request.ts";
import type { ApprovalOutcome, CallResult, ToolCalls } from "./tool_calls.ts";
import type { Transcript, TranscriptEntry } from "./transcript.ts";
import { VERSION } from "./version.ts";

/** How often a reply stream cut off mid-way is tried again before the turn fails. */
const STREAM_RETRIES = 2;
/** After an interrupt, how long tools get to stop before their results are written as interrupted. */
const INTERRUPT_WAIT_MS = 700;

/** Hooks other features plug into the loop (task reminders, a parent's hooks). */
export interface LoopHooks {
  /** Called before each model request; a message it returns is added (as a meta user message) first. */
  beforeRequest?(): Promise<Message | null> | Message | null;
  /** Called after each model reply with the names of the tools it called. */
  afterReply?(toolNames: string[]): void;
}

/** A parent's hooks on a turn (Claude Code's UserPromptSubmit and Stop). */
export interface TurnHooks {
  /**
   * Before the prompt reaches the model: block it (saying why), or add
   * context. `signal` (the turn's) ends the wait for the parent's answer.
   */
  onPrompt?(
    text: string,
    signal: AbortSignal,
  ): Promise<{ block?: string; context?: string }>;
  /**
   * When the model would end the turn: `continueWith` makes it go on,
   * with that text as the next user message. `active` says the turn
   * already went on once for a Stop hook.
   */
  onStop?(
    active: boolean,
    lastText: string,
    signal: AbortSignal,
  ): Promise<{ continueWith?: string }>;
}

export { STRUCTURED_OUTPUT_TOOL };
/** How often the model may fail to give valid structured output before the turn ends with `error_max_structured_output_retries`. */
const STRUCTURED_OUTPUT_RETRIES = 5;

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
  /** The parent's hooks on turns, read at each turn (they may be registered late). */
  turnHooks?(): TurnHooks | undefined;
  /** Makes the provider of another model (`--fallback-model`, `set_model`). */
  providerFor?(model: string): Promise<ModelProvider>;
}

/** The end of a turn. */
export interface Ending {
  subtype: ResultSubtype;
  text: string;
  /** Claude Code's word for why it ended (`result`'s `terminal_reason`). */
  terminal?: string;
}

/** What a turn spent, and what it was refused. */
interface Tally {
  turnUsage: Usage;
  apiMs: number;
  stopReason: string | null;
  denials: { tool_name: string; tool_use_id: string; tool_input: unknown }[];
  structured?: unknown;
  structuredMisses: number;
}

/** One session's conversation and its turns. */
export class AgentLoop {
  readonly history: Message[];
  #deps: LoopDeps;
  #recorded = false;
  #provider: ModelProvider;
  /** What the session spent so far, by model (`result`'s `modelUsage` is cumulative, as Claude Code's). */
  #spent = new Map<string, ModelUsage>();

  constructor(deps: LoopDeps, history: Message[] = []) {
    this.#deps = deps;
    this.#provider = deps.provider;
    this.history = history;
  }

  /** Switches the model for the next requests (`set_model`). */
  useProvider(provider: ModelProvider): void {
    this.#provider = provider;
  }

  /** The model requests go to now (`provider:name`). */
  get model(): string {
    return this.#provider.id;
  }

  /**
   * Runs one user turn to its end and writes its `result`. Never rejects:
   * every failure ends the turn with an error `result`.
   */
  async runTurn(content: string | Block[], signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const tally: Tally = {
      turnUsage: { input_tokens: 0, output_tokens: 0 },
      apiMs: 0,
      stopReason: null,
      denials: [],
      structuredMisses: 0,
    };
    let turns = 0;
    let ending: Ending;
    try {
      if (!this.#recorded) await this.#recordSession();
      const prompt = await this.#deps.turnHooks?.()?.onPrompt?.(
        textOf(
          typeof content === "string"
            ? [{ type: "text", text: content }]
            : content,
        ),
        signal,
      );
      const schemaProblem = this.#schemaProblem();
      if (prompt?.block !== undefined) {
        ending = {
          subtype: "error_during_execution",
          text:
            `the prompt was blocked by a UserPromptSubmit hook: ${prompt.block}`,
          terminal: "hook_stopped",
        };
      } else if (schemaProblem) {
        // Said before the model is asked, not when it first answers.
        ending = {
          subtype: "error_during_execution",
          text: schemaProblem,
          terminal: "turn_setup_failed",
        };
      } else {
        await this.#add({ role: "user", content });
        if (prompt?.context) {
          await this.#add({
            role: "user",
            content: `<system-reminder>\n${prompt.context}\n</system-reminder>`,
          }, { isMeta: true });
        }
        ending = await this.#loop(signal, tally, () => ++turns);
      }
    } catch (error) {
      ending = {
        subtype: "error_during_execution",
        text: `internal error: ${(error as Error).message}`,
      };
    }
    const result = turnResult(ending, this.#deps.config.claudeCompat, {
      turns,
      durationMs: Math.round(performance.now() - started),
      tally,
      totalCostUsd: this.#totalCost(),
      modelUsage: Object.fromEntries(this.#spent),
    });
    // On disk first: a parent that has read `result` finds it in the transcript.
    await this.#deps.transcript.append(result);
    this.#deps.writer.send(result);
  }

  #totalCost(): number {
    let total = 0;
    for (const usage of this.#spent.values()) total += usage.costUSD;
    return total;
  }

  /** Adds one reply's usage to the session's tally of `model`. */
  #spend(model: string, usage: Usage): void {
    const spent = this.#spent.get(model) ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0,
      contextWindow: CONTEXT_WINDOW,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
    };
    spent.inputTokens += usage.input_tokens;
    spent.outputTokens += usage.output_tokens;
    spent.cacheReadInputTokens += usage.cache_read_input_tokens ?? 0;
    spent.cacheCreationInputTokens += usage.cache_creation_input_tokens ?? 0;
    spent.costUSD += costOf(model, usage);
    this.#spent.set(model, spent);
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
    tally: Tally,
    countTurn: () => number,
  ): Promise<Ending> {
    const { config, hooks } = this.#deps;
    let lastText = "";
    let stopHookActive = false;
    while (true) {
      if (signal.aborted) return interrupted(lastText, "aborted_streaming");
      const meta = await hooks?.beforeRequest?.();
      if (meta) await this.#add(meta, { isMeta: true });

      let reply: ModelReply;
      const asked = performance.now();
      try {
        reply = await this.#request(signal);
      } catch (error) {
        tally.apiMs += performance.now() - asked;
        if (isAbort(error, signal)) {
          return interrupted(lastText, "aborted_streaming");
        }
        return {
          subtype: "error_during_execution",
          text: (error as Error).message,
          terminal: "api_error",
        };
      }
      tally.apiMs += performance.now() - asked;
      const turn = countTurn();
      tally.turnUsage.input_tokens += reply.usage.input_tokens;
      tally.turnUsage.output_tokens += reply.usage.output_tokens;
      tally.turnUsage.cache_creation_input_tokens =
        (tally.turnUsage.cache_creation_input_tokens ?? 0) +
        (reply.usage.cache_creation_input_tokens ?? 0);
      tally.turnUsage.cache_read_input_tokens =
        (tally.turnUsage.cache_read_input_tokens ?? 0) +
        (reply.usage.cache_read_input_tokens ?? 0);
      tally.stopReason = reply.stopReason;
      this.#spend(reply.model, reply.usage);
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
          id: reply.id ?? `msg_wave_${crypto.randomUUID().replaceAll("-", "")}`,
          type: "message",
          role: "assistant",
          content: reply.content,
          model: reply.model,
          stop_reason: reply.stopReason,
          stop_sequence: null,
          usage: fullUsage(reply.usage),
        },
        parent_tool_use_id: null,
        uuid: crypto.randomUUID(),
      });
      const uses = reply.content.filter((b): b is ToolUseBlock =>
        b.type === "tool_use"
      );
      hooks?.afterReply?.(uses.map((u) => u.name));
      if (
        config.maxBudgetUsd !== null && this.#totalCost() >= config.maxBudgetUsd
      ) {
        if (uses.length > 0) {
          await this.#answerUnrun(
            uses,
            "the session's budget was spent (--max-budget-usd)",
          );
        }
        return {
          subtype: "error_max_budget_usd",
          text: `stopped: the session's estimated cost reached $${
            this.#totalCost().toFixed(4)
          } (--max-budget-usd ${config.maxBudgetUsd})`,
          terminal: "budget_exhausted",
        };
      }
      if (uses.length === 0) {
        if (reply.stopReason === "max_tokens") {
          return {
            subtype: "error_during_execution",
            text:
              `${lastText}\n[the reply was cut at the model's output limit of ${MAX_OUTPUT_TOKENS} tokens]`,
          };
        }
        if (config.jsonSchema && tally.structured === undefined) {
          if (++tally.structuredMisses > STRUCTURED_OUTPUT_RETRIES) {
            return {
              subtype: "error_max_structured_output_retries",
              text:
                `the model gave no valid structured output in ${STRUCTURED_OUTPUT_RETRIES} tries`,
              terminal: "structured_output_retry_exhausted",
            };
          }
          await this.#add({
            role: "user",
            content:
              `You must call the ${STRUCTURED_OUTPUT_TOOL} tool now, with your final answer as its input.`,
          }, { isMeta: true });
          continue;
        }
        const stop = await this.#deps.turnHooks?.()?.onStop?.(
          stopHookActive,
          lastText,
          signal,
        );
        if (signal.aborted) return interrupted(lastText, "aborted_tools");
        if (stop?.continueWith !== undefined && turn < config.maxTurns) {
          stopHookActive = true;
          await this.#add({ role: "user", content: stop.continueWith }, {
            isMeta: true,
          });
          continue;
        }
        return { subtype: "success", text: lastText, terminal: "completed" };
      }
      await this.#runTools(uses, signal, tally);
      if (signal.aborted) return interrupted(lastText, "aborted_tools");
      if (tally.structured !== undefined) {
        return {
          subtype: "success",
          text: lastText || JSON.stringify(tally.structured),
          terminal: "completed",
        };
      }
      if (turn >= config.maxTurns) {
        return {
          subtype: "error_max_turns",
          text:
            `stopped after ${turn} model turns (--max-turns ${config.maxTurns}); send another message to continue`,
          terminal: "max_turns",
        };
      }
    }
  }

  /** Answers tool calls that will not run, so the history stays valid. */
  async #answerUnrun(uses: ToolUseBlock[], why: string): Promise<void> {
    await this.#add({
      role: "user",
      content: uses.map((u) => ({
        type: "tool_result" as const,
        tool_use_id: u.id,
        content: `${u.name} was not run: ${why}.`,
        is_error: true,
      })),
    });
  }

  /**
   * One model request, tried again when the reply stream broke off, and
   * sent to the fallback model (`--fallback-model`) once when the model is
   * overloaded or failing.
   */
  async #request(signal: AbortSignal): Promise<ModelReply> {
    const { registry, config, writer } = this.#deps;
    const mode = this.#deps.mode();
    const request = modelRequest({
      config,
      mode,
      tools: registry.describe(mode),
      taskTrackers: registry.emitters("task_list_changed", mode),
    }, this.history);
    let provider = this.#provider;
    let fellBack = false;
    for (let attempt = 0;; attempt++) {
      try {
        const onText = writer.textDelta &&
          ((delta: string) => writer.textDelta!(delta));
        if (!writer.streamEvent) {
          return await provider.complete(request, signal, onText);
        }
        const show = writer.streamEvent.bind(writer);
        if (provider.streamsEvents) {
          return await provider.complete(request, signal, onText, show);
        }
        return await completeWithEvents(
          provider,
          request,
          signal,
          onText,
          show,
        );
      } catch (error) {
        const status = error instanceof ModelError ? error.status : undefined;
        const failing = status !== undefined &&
          (status === 429 || status === 529 || status >= 500);
        if (
          failing && !fellBack && config.fallbackModel &&
          this.#deps.providerFor && !isAbort(error, signal)
        ) {
          fellBack = true;
          provider = await this.#deps.providerFor(config.fallbackModel);
          const warning = `${this.#provider.id} failed (${
            (error as Error).message
          }); this request went to the fallback model ${config.fallbackModel}`;
          console.error(`wave: ${warning}`);
          writer.send({ type: "system", subtype: "warning", message: warning });
          attempt = -1;
          continue;
        }
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
  async #runTools(
    uses: ToolUseBlock[],
    signal: AbortSignal,
    tally: Tally,
  ): Promise<void> {
    const { calls, writer } = this.#deps;
    const results: (CallResult & { durationMs: number })[] = new Array(
      uses.length,
    );
    const approvals: Record<string, ApprovalOutcome> = {};
    const running = uses.map(async (use, i) => {
      const started = performance.now();
      if (use.name === STRUCTURED_OUTPUT_TOOL && this.#deps.config.jsonSchema) {
        results[i] = { ...this.#structuredOutput(use, tally), durationMs: 0 };
        return;
      }
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
          (outcome) => {
            approvals[use.id] = outcome;
            if (!outcome.allowed) {
              tally.denials.push({
                tool_name: use.name,
                tool_use_id: use.id,
                tool_input: use.input,
              });
            }
          },
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
        parent_tool_use_id: null,
        uuid: crypto.randomUUID(),
      });
    });
    await this.#add({ role: "user", content: blocks }, {
      toolUseResults: structured,
      durationsMs,
      ...(Object.keys(approvals).length > 0 ? { approvals } : {}),
    });
  }

  /** Checks a StructuredOutput call against `--json-schema`; valid input ends the turn with it. */
  #structuredOutput(use: ToolUseBlock, tally: Tally): CallResult {
    this.#schema ??= z.fromJSONSchema(this.#deps.config.jsonSchema!);
    const parsed = this.#schema.safeParse(use.input);
    if (!parsed.success) {
      tally.structuredMisses++;
      return {
        tool_use_id: use.id,
        content: `The output does not match the required schema: ${
          describeIssues(parsed.error)
        }. Call ${STRUCTURED_OUTPUT_TOOL} again with corrected input.`,
        is_error: true,
        structured: null,
      };
    }
    tally.structured = use.input;
    return {
      tool_use_id: use.id,
      content: "Structured output provided successfully",
      is_error: false,
      structured: null,
    };
  }

  #schema: z.ZodType | undefined;

  /** What is wrong with the structured output's schema (`--json-schema`, initialize's `jsonSchema`), or null. */
  #schemaProblem(): string | null {
    const schema = this.#deps.config.jsonSchema;
    if (!schema) return null;
    try {
      this.#schema ??= z.fromJSONSchema(schema);
      return null;
    } catch (error) {
      return `the structured output's JSON Schema (--json-schema) cannot be used: ${
        (error as Error).message
      }`;
    }
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

function interrupted(lastText: string, terminal: string): Ending {
  return {
    subtype: "error_interrupted",
    text: lastText
      ? `${lastText}\n[Request interrupted by user]`
      : "[Request interrupted by user]",
    terminal,
  };
}

/**
 * The `result` of a turn that ended as `ending`, with what it spent (none
 * for a turn that could not run). Under Claude Code's vocabulary an
 * interrupted turn ends as an execution error, as Claude Code's do.
 */
export function turnResult(
  ending: Ending,
  claudeCompat: boolean,
  spent?: {
    turns: number;
    durationMs: number;
    tally: Tally;
    totalCostUsd: number;
    modelUsage: Record<string, ModelUsage>;
  },
): TurnResult {
  const subtype = ending.subtype === "error_interrupted" && claudeCompat
    ? "error_during_execution"
    : ending.subtype;
  const isError = subtype !== "success";
  const tally = spent?.tally;
  return {
    type: "result",
    subtype,
    is_error: isError,
    num_turns: spent?.turns ?? 0,
    duration_ms: spent?.durationMs ?? 0,
    usage: fullUsage(tally?.turnUsage ?? { input_tokens: 0, output_tokens: 0 }),
    result: ending.text,
    duration_api_ms: Math.round(tally?.apiMs ?? 0),
    total_cost_usd: spent?.totalCostUsd ?? 0,
    modelUsage: spent?.modelUsage ?? {},
    permission_denials: tally?.denials ?? [],
    stop_reason: tally?.stopReason ?? null,
    errors: isError ? [ending.text] : [],
    ...(ending.terminal ? { terminal_reason: ending.terminal } : {}),
    ...(tally?.structured !== undefined
      ? { structured_output: tally.structured }
      : {}),
    uuid: crypto.randomUUID(),
  };
}

/** The context window wave assumes of a model, for `modelUsage`. */
const CONTEXT_WINDOW = 200_000;

/** Usage with the cache counts every Claude Code parent reads (0 where the provider says none). */
function fullUsage(usage: Usage) {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
  };
}

/**
 * A request to a provider that streams only text, with the stream events a
 * `stream_event` parent reads made from that text (Anthropic's shapes):
 * message_start, one text block's start, deltas and stop, then the
 * message's delta and stop.
 */
async function completeWithEvents(
  provider: ModelProvider,
  request: ModelRequest,
  signal: AbortSignal,
  onText: ((delta: string) => void) | undefined,
  onEvent: (event: { type: string }) => void,
): Promise<ModelReply> {
  let open = false;
  onEvent({
    type: "message_start",
    message: {
      id: `msg_wave_${crypto.randomUUID().replaceAll("-", "")}`,
      type: "message",
      role: "assistant",
      content: [],
      model: provider.id.slice(provider.id.indexOf(":") + 1),
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  } as { type: string });
  const reply = await provider.complete(request, signal, (delta) => {
    if (!open) {
      open = true;
      onEvent({
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      } as { type: string });
    }
    onEvent({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: delta },
    } as { type: string });
    onText?.(delta);
  });
  if (open) {
    onEvent({ type: "content_block_stop", index: 0 } as { type: string });
  }
  onEvent({
    type: "message_delta",
    delta: { stop_reason: reply.stopReason, stop_sequence: null },
    usage: { output_tokens: reply.usage.output_tokens },
  } as { type: string });
  onEvent({ type: "message_stop" });
  return reply;
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
