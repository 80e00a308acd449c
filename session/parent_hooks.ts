/**
 * A Claude Code parent's hooks (registered by `initialize`'s `hooks`):
 * PreToolUse, PostToolUse, UserPromptSubmit and Stop, each called with a
 * `hook_callback` control request, and their answers (Claude Code's hook
 * output: `decision`, `reason`, `continue`, `hookSpecificOutput`) turned
 * into what the core and the agent loop apply. A hook that fails (an error
 * answer, no answer within its timeout) is logged and does not block, as
 * in Claude Code.
 *
 * @module
 */

import type { TurnHooks } from "./agent_loop.ts";
import type { BeforeCallOutcome, CallHooks, HookedCall } from "./call_hooks.ts";
import type { ParentRequests } from "./parent_requests.ts";

/** The hook events wave calls. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
] as const;

/** One matcher of an event: which tools (a regular expression; none or `*` for all), the callbacks, and their timeout in seconds. */
export interface HookMatcher {
  matcher?: string;
  hookCallbackIds: string[];
  timeout?: number;
}

/** What every hook input carries. */
export interface HookContext {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
  /** Claude Code's name of the session's permission mode now. */
  permissionMode(): string;
}

/** How long a hook may take when its matcher says nothing (Claude Code's default). */
const DEFAULT_TIMEOUT_S = 60;

/** Claude Code's hook output, as far as wave reads it. */
interface HookOutput {
  continue?: boolean;
  stopReason?: string;
  decision?: "approve" | "block";
  reason?: string;
  systemMessage?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: "allow" | "deny" | "ask";
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext?: string;
  };
}

/** A parent's hooks, as the core's call hooks and the loop's turn hooks. */
export class ParentHooks implements CallHooks, TurnHooks {
  #matchers: Partial<Record<string, HookMatcher[]>>;
  #requests: ParentRequests;
  #context: HookContext;
  /** What a hook said that the parent should see (its `systemMessage`). */
  onMessage: (text: string) => void = () => {};

  /**
   * Hooks `matchers` (initialize's `hooks`, by event), called through
   * `requests`. Events wave does not call are kept out; {@linkcode ignored}
   * names them.
   */
  constructor(
    matchers: Record<string, HookMatcher[]>,
    requests: ParentRequests,
    context: HookContext,
  ) {
    this.#matchers = matchers;
    this.#requests = requests;
    this.#context = context;
  }

  /** The events the parent registered that wave never calls. */
  get ignored(): string[] {
    return Object.keys(this.#matchers).filter((event) =>
      !(HOOK_EVENTS as readonly string[]).includes(event)
    );
  }

  /** Whether any hook of `event` is registered. */
  has(event: string): boolean {
    return (this.#matchers[event]?.length ?? 0) > 0;
  }

  async beforeCall(
    call: HookedCall,
    signal: AbortSignal,
  ): Promise<BeforeCallOutcome> {
    const outputs = await this.#call(
      "PreToolUse",
      call.toolName,
      {
        tool_name: call.toolName,
        tool_input: call.input,
        tool_use_id: call.toolUseId,
      },
      signal,
      call.toolUseId,
    );
    const outcome: BeforeCallOutcome = {};
    const context: string[] = [];
    for (const output of outputs) {
      const specific = output.hookSpecificOutput;
      const decision = specific?.permissionDecision;
      if (
        decision === "deny" || output.decision === "block" ||
        output.continue === false
      ) {
        outcome.deny ??= specific?.permissionDecisionReason ?? output.reason ??
          output.stopReason ?? "no reason given";
      } else if (decision === "ask") outcome.decision = "ask";
      else if (
        (decision === "allow" || output.decision === "approve") &&
        outcome.decision !== "ask"
      ) outcome.decision = "allow";
      if (specific?.updatedInput) outcome.updatedInput = specific.updatedInput;
      if (specific?.additionalContext) context.push(specific.additionalContext);
    }
    if (context.length > 0) outcome.context = context.join("\n");
    return outcome;
  }

  async afterCall(
    call: HookedCall & { response: unknown; durationMs: number },
    signal: AbortSignal,
  ): Promise<{ context?: string }> {
    const outputs = await this.#call(
      "PostToolUse",
      call.toolName,
      {
        tool_name: call.toolName,
        tool_input: call.input,
        tool_response: call.response,
        tool_use_id: call.toolUseId,
        duration_ms: call.durationMs,
      },
      signal,
      call.toolUseId,
    );
    const context = outputs.flatMap((output) => [
      ...output.decision === "block" && output.reason ? [output.reason] : [],
      ...output.hookSpecificOutput?.additionalContext
        ? [output.hookSpecificOutput.additionalContext]
        : [],
    ]);
    return context.length > 0 ? { context: context.join("\n") } : {};
  }

  async onPrompt(
    text: string,
    signal: AbortSignal,
  ): Promise<{ block?: string; context?: string }> {
    const outputs = await this.#call("UserPromptSubmit", undefined, {
      prompt: text,
    }, signal);
    const blocked = outputs.find((o) =>
      o.decision === "block" || o.continue === false
    );
    if (blocked) {
      return {
        block: blocked.reason ?? blocked.stopReason ?? "no reason given",
      };
    }
    const context = outputs.flatMap((o) =>
      o.hookSpecificOutput?.additionalContext
        ? [o.hookSpecificOutput.additionalContext]
        : []
    );
    return context.length > 0 ? { context: context.join("\n") } : {};
  }

  async onStop(
    active: boolean,
    lastText: string,
    signal: AbortSignal,
  ): Promise<{ continueWith?: string }> {
    const outputs = await this.#call("Stop", undefined, {
      stop_hook_active: active,
      last_assistant_message: lastText,
    }, signal);
    const going = outputs.find((o) => o.decision === "block" && o.reason);
    return going ? { continueWith: going.reason } : {};
  }

  /** Calls every callback of `event` whose matcher covers `toolName`, one after another; the answers that came. */
  async #call(
    event: string,
    toolName: string | undefined,
    fields: Record<string, unknown>,
    signal: AbortSignal,
    toolUseId?: string,
  ): Promise<HookOutput[]> {
    const outputs: HookOutput[] = [];
    for (const matcher of this.#matchers[event] ?? []) {
      if (toolName !== undefined && !matches(matcher.matcher, toolName)) {
        continue;
      }
      for (const callbackId of matcher.hookCallbackIds) {
        try {
          const answer = await this.#requests.request(
            {
              subtype: "hook_callback",
              callback_id: callbackId,
              input: {
                hook_event_name: event,
                session_id: this.#context.sessionId,
                transcript_path: this.#context.transcriptPath,
                cwd: this.#context.cwd,
                permission_mode: this.#context.permissionMode(),
                ...fields,
              },
              ...(toolUseId ? { tool_use_id: toolUseId } : {}),
            },
            (matcher.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
            signal,
          );
          const output = (answer ?? {}) as HookOutput;
          if (typeof output.systemMessage === "string") {
            this.onMessage(output.systemMessage);
          }
          outputs.push(output);
        } catch (error) {
          console.error(
            `wave: the ${event} hook ${callbackId} failed, and does not block: ${
              (error as Error).message
            }`,
          );
        }
      }
    }
    return outputs;
  }
}

/** Whether a matcher (a regular expression over the tool's name; none, "" or `*` for all) covers `toolName`. */
function matches(matcher: string | undefined, toolName: string): boolean {
  if (!matcher || matcher === "*") return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(toolName);
  } catch {
    return matcher === toolName;
  }
}
