/**
 * Hooks around each tool call: what a front's parent may say before a call
 * runs (refuse it, let it run without asking, ask first, change its input,
 * add context for the model) and after (add context). The stream-json
 * front fills them with the Claude Agent SDK's PreToolUse and PostToolUse
 * callbacks (`hook_callback`); the core only applies what they say.
 *
 * @module
 */

/** A call as a hook sees it. */
export interface HookedCall {
  toolName: string;
  input: unknown;
  toolUseId: string;
}

/** What the hooks before a call decided. */
export interface BeforeCallOutcome {
  /** Refuse the call, saying why (for the model). */
  deny?: string;
  /** `allow`: run without asking; `ask`: ask the parent even where nothing else would. */
  decision?: "allow" | "ask";
  /** The input to run the call with instead (validated again). */
  updatedInput?: Record<string, unknown>;
  /** Text added to the call's result for the model. */
  context?: string;
}

/** The hooks of a session's calls. Each never rejects: a failed hook is reported by what it returns. */
export interface CallHooks {
  beforeCall?(
    call: HookedCall,
    signal: AbortSignal,
  ): Promise<BeforeCallOutcome>;
  afterCall?(
    call: HookedCall & { response: unknown; durationMs: number },
    signal: AbortSignal,
  ): Promise<{ context?: string }>;
}
