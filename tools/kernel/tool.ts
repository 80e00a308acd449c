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

import type { CommandConfinement } from "./bwrap.ts";
import type { z } from "zod";
import type {
  OutputEvent,
  OutputStream,
  TaskListChangedEvent,
  ToolEvent,
  ToolEventType,
} from "./events.ts";
import type { HiddenGlob } from "./hidden.ts";
import type { Mode } from "./modes.ts";
import type { ReadStateView } from "./read_state.ts";
import type {
  NewTask,
  Task,
  TaskChanges,
  TaskList,
  TaskListView,
  TaskStatus,
} from "./tasks.ts";
import { ToolError } from "./tool_error.ts";
import type { ResolvedPath } from "./workspace.ts";

export { ToolError };
export type {
  NewTask,
  OutputEvent,
  OutputStream,
  ReadStateView,
  Task,
  TaskChanges,
  TaskList,
  TaskListChangedEvent,
  TaskListView,
  TaskStatus,
  ToolEvent,
  ToolEventType,
};

/**
 * The Deno permissions a tool needs. The executor narrows them: `read` and
 * `write` to the workspace, `WAVE_HOME` and the spill directory; `run` to the
 * named programs. `write: "state"` means only wave's own state (tasks, plans
 * under WAVE_HOME), never the workspace.
 */
export interface Scopes {
  /** Reads files (the workspace, `WAVE_HOME`, approved paths). */
  read?: boolean;
  /** Writes the workspace (`true`), or only wave's own state (`"state"`). */
  write?: boolean | "state";
  /** The programs the tool runs, by name; each is looked up on PATH once. */
  run?: readonly string[];
}

/** A content block as the model sees it (Anthropic's shapes). */
export type ContentBlock =
  | { type: "text"; text: string }
  | {
    type: "image";
    source: { type: "base64"; media_type: string; data: string };
  };

/** An image block of base64 `data` (Anthropic's shape, which every provider adapter translates). */
export function base64Image(mediaType: string, data: string): ContentBlock {
  return {
    type: "image",
    source: { type: "base64", media_type: mediaType, data },
  };
}

/** What the model sees: plain text, or content blocks (text and images). */
export type ToolContent = string | ContentBlock[];

/** What a tool returns. `structured` is the machine-readable metadata for the parent. */
export interface ToolResult {
  /** Exactly what the model sees. */
  content: ToolContent;
  /** The call failed; `content` says why and what to do instead. */
  isError?: boolean;
  /** Metadata for the parent (`call_tool`'s `structured`, `tool_use_result`). */
  structured?: unknown;
}

/** A path a tool's input names, and what the tool does with it. */
export interface PathUse {
  /** The path as the input gives it. */
  path: string;
  /** Whether the tool only reads it, or may change it. */
  access: "read" | "write";
}

/** Child process groups a tool started; the main thread tracks and kills them. */
export interface ProcessGroupsView {
  /** The start of every marker of the session's commands (`newCommandMarker`). */
  readonly markerPrefix: string;
  /**
   * Reports a new process group (its leader's pid) so shutdown can kill
   * it; a command also gives the marker its environment carries, so what
   * escapes its group can be found when it ends, and the cgroup it joins
   * (the session's, from `shellSandbox`), killed whole when it ends.
   */
  started(pgid: number, marker?: string, cgroup?: string): void;
  /** Reports that the group's leader has exited. */
  ended(pgid: number): void;
  /**
   * Reports that this call now runs a group an earlier call of the same
   * worker started ahead for it (a prepared sandbox): the group is the
   * call's to signal from then on.
   */
  adopted(pgid: number): void;
  /**
   * Reports a group started ahead, for a later call of this worker to
   * adopt (a prepared sandbox): killed with the worker and at shutdown,
   * and kept when the call that started it has ended.
   */
  prepared(pgid: number, marker?: string, cgroup?: string): void;
  /**
   * Reports that a process this worker is about to start ahead will join
   * `cgroup` (one the session gave the call): it is then the worker's,
   * not released when the call ends.
   */
  hold(cgroup: string): void;
  /** Asks the main thread to signal the whole group (a worker cannot). */
  signal(pgid: number, signal: Deno.Signal): void;
  /**
   * Runs `task` off the call's path: once the call's answer is written
   * where the session knows when (see `ProcessGroups.offPath`), else at a
   * later turn. Absent: at a later turn.
   */
  offPath?(task: () => void): void;
}

/** The task a call belongs to: a user turn, or what the parent named with `set_task`. */
export interface CallTask {
  /** Stable for the whole task. */
  readonly id: string;
  /** What the task is for: the first line of the user's message, at most 200 characters. */
  readonly goal: string;
}

/** How a file is opened for the person (`--open-with`): by the parent, the system's opener, or not at all. */
export type OpenWith = "parent" | "system" | "none";

/**
 * What the session gives a running tool. Tools do not reach around it: a
 * path goes through `path()` (the resolver and the call's approvals), a
 * command's process group is reported to `processes`, news goes out
 * through `emit`.
 *
 * @example
 * ```ts
 * import type { ToolContext } from "@wave/wave";
 *
 * function readShown(ctx: ToolContext, raw: string): string {
 *   const file = ctx.path(raw); // throws ToolError outside the workspace
 *   ctx.emit({ type: "output", stream: "stdout", text: `reading ${raw}\n` });
 *   // Synchronous: it runs on the worker's own thread, which Landlock holds.
 *   return Deno.readTextFileSync(file.real);
 * }
 * ```
 */
export interface ToolContext {
  /** The real absolute path of the workspace. */
  readonly workspace: string;
  /** The session's id. */
  readonly sessionId: string;
  /** The id of this call (the model's `tool_use` id, or the parent's). */
  readonly toolUseId: string;
  /** Aborted on interrupt, shutdown, or the call's own deadline. */
  readonly signal: AbortSignal;
  /** wave's state directory (`WAVE_HOME`). */
  readonly waveHome: string;
  /**
   * Where this session's spill files go: `WAVE_HOME/spill/<session>`, and
   * for a session of `wave acp` or `wave mcp --listen`
   * `WAVE_HOME/spill/<process>/<session>`.
   */
  readonly spillDir: string;
  /** Limits the session was configured with. */
  readonly limits: { readonly maxReadTokens: number };
  /**
   * The globs of the session's `Read` deny rules: whatever a tool shows
   * beyond the paths its input names (a search's matches, a listing's
   * entries, a "did you mean") leaves out what they cover (`hiddenTest`,
   * `ripgrepExclusions` in `hidden.ts`). Absent or empty when no rule
   * denies a read.
   */
  readonly hidden?: readonly HiddenGlob[];
  /** How commands are confined: `bwrap` runs them under bubblewrap, hiding what it lists. */
  readonly shellSandbox: CommandConfinement;
  /** The task list this session works on (`--task-list`, else the session's own). */
  readonly tasks: TaskList;
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
  /**
   * Whether the parent approved this call for the real path `real` (one
   * outside the workspace, or a sensitive file): what is opened there may
   * be what the approval named, a sensitive file included.
   */
  approvedFor(real: string): boolean;
  /** What this session has read of the paths the call names, and its changes to that. */
  readonly readState: ReadStateView;
  /**
   * Tells the session something while the call runs. Events reach the
   * session in the order they were emitted, all before the call's result.
   */
  emit(event: ToolEvent): void;
  /** Shorthand for `emit({ type: "output", stream, text })`. */
  progress(stream: OutputStream, text: string): void;
  /** Process groups the tool starts, so the main thread can track and kill them. */
  readonly processes: ProcessGroupsView;
  /**
   * The transcript of an audio or video file from the session's
   * speech-to-text model (`--stt-model`). `path` is the real path of a
   * file this call's input names (`ctx.path(raw).real`); any other is
   * refused. The main thread, which holds the API key, reads the file,
   * converts or splits it with ffmpeg when the API cannot take it as it
   * is, and sends it; the text comes back, and no key ever reaches the
   * tool. Stops when the call's signal aborts. Rejects with a
   * {@linkcode ToolError}: one naming `--stt-model` when none is
   * configured, else one saying what failed and what to do.
   */
  transcribe(path: string): Promise<string>;
  /** The task this call belongs to (file history records it with each version). */
  readonly task: CallTask;
  /** The file-history budget of the workspace (`--history-max-days`, `--history-max-bytes`). */
  readonly historyLimits: {
    readonly maxAgeMs: number;
    readonly maxBytes: number;
  };
  /** Where files made for the user go when no location is given (`--output-dir`), absolute. */
  readonly outputDir: string;
  /** How open_file opens a file (`--open-with`). */
  readonly openWith: OpenWith;
  /**
   * Opens `path` (a real path this call's input named) for the person, as
   * `openWith` says: `parent` sends the parent a `control_request`
   * `open_file` and waits for its answer; `system` runs the system's
   * opener (`xdg-open`, `open`) detached and waits for it to exit. Waits
   * at most `timeoutMs`. Resolves with what happened, in words for the
   * model; rejects with a {@linkcode ToolError} saying what failed.
   */
  openFile(path: string, timeoutMs: number): Promise<string>;
  /**
   * The editor's buffers of the files this call named, when the session's
   * front has an editor that serves them (ACP's `fs/read_text_file` and
   * `fs/write_text_file`) and the tool declares `buffers`; else
   * `undefined`, and the tool works on the disk.
   */
  readonly buffers?: EditorBuffers;
}

/**
 * The text of files as the person's editor holds it, unsaved changes
 * included (`ctx.buffers`). The main thread asks the editor; only paths
 * the call named, after the resolver and approvals, are served.
 */
export interface EditorBuffers {
  /**
   * The editor's text of `path` (a real path this call's input named).
   * Rejects with a {@linkcode ToolError} saying why the editor could not
   * answer; stops when the call's signal aborts.
   */
  read(path: string): Promise<string>;
  /**
   * Replaces the editor's text of `path` (a real path this call named for
   * writing) with exactly `text`; the disk is the editor's business.
   * Rejects with a {@linkcode ToolError} saying why; the buffer then
   * holds what the editor says it holds.
   */
  write(path: string, text: string): Promise<void>;
}

/**
 * The schema of a tool's input: a zod schema, seen through the Standard
 * Schema interface zod's schemas implement, so the contract names no
 * library type. The session validates input with it and generates the
 * JSON Schema the model sees from it.
 */
export interface InputSchema<Output = unknown> {
  /** Standard Schema's marker; its `types.output` is what the input parses to. */
  readonly "~standard": { readonly types?: { readonly output: Output } };
}

/** What input a schema parses to: what a tool's `run` receives. */
export type InputOf<S extends InputSchema> = NonNullable<
  S["~standard"]["types"]
>["output"];

/**
 * What input a schema accepts before parsing (defaults not yet applied): a
 * tool's {@linkcode ToolSpec.warmup} inputs, which the session parses as it
 * parses a model's.
 */
export type RawInputOf<S extends InputSchema> =
  NonNullable<S["~standard"]["types"]> extends { readonly input: infer I } ? I
    : InputOf<S>;

/** What a tool module author writes: the argument of {@linkcode defineTool}. */
export interface ToolSpec<S extends InputSchema> {
  /** The name the model calls it by; unique in its toolset. */
  name: string;
  /** What the model reads: when to use it, its limits, how to recover from its errors. */
  description: string;
  /** The input's schema; the JSON Schema the model sees is generated from it. */
  input: S;
  /** The Deno permissions it needs, before narrowing. */
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
  /**
   * How a sensitive file among its paths is approved (the kernel's
   * `sensitive.ts`: SSH keys, `*.pem`, `*.key`, `.env*` …). `"policy"`
   * (the default): as `--approvals` says, like a path outside the
   * workspace. `"always_ask"`: the parent is asked through `can_use_tool`
   * even under `--approvals allow`, and `deny` refuses it (spec 004
   * read_files); paths outside the workspace still follow the policy.
   */
  sensitive?: "policy" | "always_ask";
  /**
   * Whether the text of the files it names may come from, and go to, the
   * person's editor instead of the disk (`ctx.buffers`), when the front
   * has an editor that offers it. Default `false`: the disk.
   */
  buffers?: boolean;
  /** The paths the input names; each is resolved and approved before the tool runs. */
  paths?(input: InputOf<S>): PathUse[];
  /**
   * Inputs of the tool's common calls, on the files of
   * {@linkcode WARMUP_FILES}. In idle time after a session starts, each is
   * run once, in order, in the worker that will run the tool's calls,
   * against a scratch workspace holding those files: the first real call
   * then finds the tool's code compiled, which a module load alone does
   * not do (a first run costs several times a warm one). The scratch
   * workspace is the call's whole world: its own WAVE_HOME (file history,
   * task lists) and read-state, nothing it does reaches the session's, and
   * its results are discarded. The read-only tools' warm-ups run before
   * the writers', so a writer may change a file a reader's warm-up read.
   */
  warmup?: readonly RawInputOf<S>[];
  /** Does the work. May throw {@linkcode ToolError} for an expected failure. */
  run(input: InputOf<S>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
}

/**
 * The files of the scratch workspace the tools' {@linkcode ToolSpec.warmup}
 * calls run in, by path relative to it: a text file of numbered lines
 * (`"line 1"` … `"line 300"`), a source file, and one in a subdirectory.
 */
export const WARMUP_FILES: Readonly<Record<string, string>> = {
  "notes.txt": Array.from({ length: 300 }, (_, i) => `line ${i + 1}\n`).join(
    "",
  ),
  "main.ts": 'export function main(): string {\n  return "line";\n}\n',
  "docs/guide.md": "# Guide\n\nSee notes.txt, line 1.\n",
};

/** A tool as the registry holds it. Its `run` never throws for an expected failure. */
export interface ToolDefinition<S extends InputSchema = InputSchema>
  extends ToolSpec<S> {
  /** The narrowest mode that binds it: given, or derived from `scopes` ({@linkcode modeOf}). */
  mode: Mode;
}

/**
 * A tool's input schema as the zod schema it is: for the session, which
 * validates with it and generates JSON Schema from it. `loadTool` refuses a
 * module whose schema is not one.
 */
export function zodSchemaOf(def: ToolDefinition): z.ZodType {
  return def.input as unknown as z.ZodType;
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
 * into an error result, so expected failures never escape as exceptions;
 * anything else it throws is a bug, which the sandbox reports as one.
 *
 * @example A tool module (its default export is the definition)
 * ```ts
 * import { defineTool, ToolError } from "@wave/wave";
 * import { z } from "zod";
 *
 * export default defineTool({
 *   name: "LineCount",
 *   description: "Counts the lines of a text file in the workspace.",
 *   input: z.object({ path: z.string() }),
 *   scopes: { read: true },
 *   paths: (input) => [{ path: input.path, access: "read" }],
 *   run(input, ctx) {
 *     const file = ctx.path(input.path);
 *     // Paths are opened with the synchronous ops: they run on the worker's
 *     // own thread, which Landlock holds (see the README's "The kernel").
 *     let text: string;
 *     try {
 *       text = Deno.readTextFileSync(file.real);
 *     } catch {
 *       throw new ToolError(`${input.path} cannot be read`);
 *     }
 *     const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
 *     return { content: `${lines} lines`, structured: { lines } };
 *   },
 * });
 * ```
 */
export function defineTool<S extends InputSchema>(
  spec: ToolSpec<S>,
): ToolDefinition<S> {
  return {
    ...spec,
    mode: spec.mode ?? modeOf(spec.scopes),
    async run(input, ctx) {
      try {
        return await spec.run(input, ctx);
      } catch (error) {
        if (error instanceof ToolError) return toolErrorResult(error);
        throw error;
      }
    },
  };
}

/**
 * The error result of an expected failure: its message for the model, its
 * metadata for the parent. The one place a {@linkcode ToolError} becomes a
 * result, for {@linkcode defineTool} and for the sandbox worker.
 */
export function toolErrorResult(error: ToolError): ToolResult {
  return {
    content: error.message,
    isError: true,
    structured: error.structured,
  };
}

/**
 * An error result with `message` as its content.
 *
 * @example
 * ```ts
 * import { errorResult } from "@wave/wave";
 *
 * const result = errorResult("nothing to do", { type: "empty" });
 * console.assert(result.isError === true);
 * ```
 */
export function errorResult(message: string, structured?: unknown): ToolResult {
  return { content: message, isError: true, structured };
}
