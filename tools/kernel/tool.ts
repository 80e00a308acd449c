/**
 * The tool contract: what a tool module exports, what it gets when it runs,
 * and what it returns. See docs/design.md "A tool is a module".
 *
 * A tool module's default export is the value of {@linkcode defineTool}. It
 * runs inside a sandbox worker whose Deno permissions are its `scopes`
 * narrowed to the workspace; everything it needs from the session comes in
 * its {@linkcode ToolContext}, and everything it changes goes back in its
 * {@linkcode ToolResult}.
 *
 * @module
 */

import type { z } from "zod";
import type { OutputStream, ToolEvent, ToolEventType } from "./events.ts";
import type { Mode } from "./modes.ts";
import type { ReadStateView } from "./read_state.ts";
import type { TaskStore } from "./tasks.ts";
import { ToolError } from "./tool_error.ts";
import type { ResolvedPath } from "./workspace.ts";

export { ToolError };
export type { ToolEvent, ToolEventType };

/**
 * The Deno permissions a tool needs. The executor narrows them: `read` and
 * `write` to the workspace, `WAVE_HOME` and the spill directory; `run` to the
 * named programs. `write: "state"` means only wave's own state (tasks, plans
 * under WAVE_HOME), never the workspace.
 */
export interface Scopes {
  read?: boolean;
  write?: boolean | "state";
  run?: readonly string[];
}

/** A content block as the model sees it (Anthropic's shapes). */
export type ContentBlock =
  | { type: "text"; text: string }
  | {
    type: "image";
    source: { type: "base64"; media_type: string; data: string };
  };

/** What the model sees: plain text, or content blocks (text and images). */
export type ToolContent = string | ContentBlock[];

/** What a tool returns. `structured` is the machine-readable metadata for the parent. */
export interface ToolResult {
  content: ToolContent;
  isError?: boolean;
  structured?: unknown;
}

/** A path a tool's input names, and what the tool does with it. */
export interface PathUse {
  path: string;
  access: "read" | "write";
}

/** Child process groups a tool started; the main thread tracks and kills them. */
export interface ProcessGroupsView {
  /**
   * Reports a new process group (its leader's pid) so shutdown can kill
   * it; a command also gives the marker its environment carries, so what
   * escapes its group can be found when it ends.
   */
  started(pgid: number, marker?: string): void;
  /** Reports that the group's leader has exited. */
  ended(pgid: number): void;
  /** Asks the main thread to signal the whole group (a worker cannot). */
  signal(pgid: number, signal: Deno.Signal): void;
}

/** What the session gives a running tool. Tools do not reach around it. */
export interface ToolContext {
  /** The real absolute path of the workspace. */
  readonly workspace: string;
  readonly sessionId: string;
  readonly toolUseId: string;
  /** Aborted on interrupt, shutdown, or the call's own deadline. */
  readonly signal: AbortSignal;
  /** wave's state directory (`WAVE_HOME`). */
  readonly waveHome: string;
  /** Where this session's spill files go (`WAVE_HOME/spill/<session>`). */
  readonly spillDir: string;
  /** Limits the session was configured with. */
  readonly limits: { readonly maxReadTokens: number };
  /** How commands are confined: `bwrap` runs them under bubblewrap. */
  readonly shellSandbox: "none" | "bwrap";
  /** The task list this session works on (`--task-list`, else the session's own). */
  readonly tasks: TaskStore;
  /** The allow-listed environment for commands the tool runs (never API keys). */
  readonly env: Readonly<Record<string, string>>;
  /** Absolute paths of the programs in the tool's `run` scope that were found. */
  readonly programs: Readonly<Record<string, string>>;
  /**
   * Resolves a path through the workspace resolver. Throws {@linkcode ToolError}
   * if it lands outside the workspace (or on a sensitive file) and this call
   * was not approved for it.
   */
  path(raw: string): ResolvedPath;
  readonly readState: ReadStateView;
  /**
   * Tells the session something while the call runs. Events reach the
   * session in the order they were emitted, all before the call's result.
   */
  emit(event: ToolEvent): void;
  /** Shorthand for `emit({ type: "output", stream, text })`. */
  progress(stream: OutputStream, text: string): void;
  readonly processes: ProcessGroupsView;
}

/** What a tool module author writes. */
export interface ToolSpec<S extends z.ZodType> {
  name: string;
  /** What the model reads: when to use it, its limits, how to recover from its errors. */
  description: string;
  input: S;
  scopes: Scopes;
  /** The narrowest mode that binds the tool; derived from `scopes` when absent. */
  mode?: Mode;
  /**
   * The events the tool emits that the session plans for before any call:
   * a tool that lists `task_list_changed` is one that tracks work (spec
   * 003's reminders and the system prompt's advice follow it). `output`
   * need not be listed.
   */
  emits?: readonly ToolEventType[];
  /** The paths the input names; each is resolved and approved before the tool runs. */

  paths?(input: z.output<S>): PathUse[];
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
}

/** A tool as the registry holds it. Its `run` never throws for an expected failure. */
export interface ToolDefinition<S extends z.ZodType = z.ZodType>
  extends ToolSpec<S> {
  mode: Mode;
}

/**
 * The mode that binds a tool: read-only tools are bound in `ask`, tools that
 * write wave's own state in `plan`, and the rest only in `agent`.
 */
export function modeOf(scopes: Scopes): Mode {
  if (scopes.run?.length || scopes.write === true) return "agent";
  if (scopes.write === "state") return "plan";
  return "ask";
}

/**
 * Defines a tool. The returned `run` turns a thrown {@linkcode ToolError}
 * into an error result, so expected failures never escape as exceptions.
 */
export function defineTool<S extends z.ZodType>(
  spec: ToolSpec<S>,
): ToolDefinition<S> {
  return {
    ...spec,
    mode: spec.mode ?? modeOf(spec.scopes),
    async run(input, ctx) {
      try {
        return await spec.run(input, ctx);
      } catch (error) {
        if (error instanceof ToolError) {
          return {
            content: error.message,
            isError: true,
            structured: error.structured,
          };
        }
        throw error;
      }
    },
  };
}

/** An error result with `message` as its content. */
export function errorResult(message: string, structured?: unknown): ToolResult {
  return { content: message, isError: true, structured };
}
