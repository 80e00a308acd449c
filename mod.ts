/**
 * wave as a library: serve a session over any pair of streams
 * ({@linkcode parseFlags}, {@linkcode serve}), write tools for it
 * ({@linkcode defineTool} and the tool contract), or use the kernel's
 * pieces directly ({@linkcode resolveInWorkspace}, {@linkcode atomicWrite}).
 *
 * The wire contract is `docs/protocol.md`; the layers are in
 * `docs/design.md`. A tool module written with {@linkcode defineTool} joins
 * a session with `--tool-module FILE` (or in `ServeOptions.modules`) and
 * runs in the same sandbox workers, behind the same resolver, approvals and
 * write queue, as wave's own tools.
 *
 * @example A tool module
 * ```ts
 * import { defineTool } from "@wave/wave";
 * import { z } from "zod";
 *
 * export default defineTool({
 *   name: "Hello",
 *   description: "Says hello.",
 *   input: z.object({ name: z.string() }),
 *   scopes: { read: true },
 *   run: (input) => ({ content: `hello, ${input.name}` }),
 * });
 * ```
 *
 * @module
 */

export {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  type Config,
  type Front,
  FRONTS,
  type Mode,
  parseFlags,
  type ParseOutcome,
  SHELL_SANDBOXES,
  type ShellSandbox,
} from "./session/config.ts";
export { ApiKey } from "./session/models/api_key.ts";
export {
  PERMISSION_MODES,
  type PermissionMode,
} from "./session/permission_modes.ts";
export type { LineSink, OutputQueueView } from "./session/output.ts";
export {
  serve,
  type ServeOptions,
  type SessionIO,
  type WarmupWatcher,
} from "./session/server.ts";
export type { EarlyRequest, Wire } from "./session/early_request.ts";
export {
  type CallTask,
  type ContentBlock,
  defineTool,
  type EditorBuffers,
  errorResult,
  type InputOf,
  type InputSchema,
  type NewTask,
  type OpenWith,
  type OutputEvent,
  type OutputStream,
  type PathUse,
  type ProcessGroupsView,
  type RawInputOf,
  type ReadStateView,
  type Scopes,
  type Task,
  type TaskChanges,
  type TaskList,
  type TaskListChangedEvent,
  type TaskListView,
  type TaskStatus,
  type ToolContent,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolEvent,
  type ToolEventType,
  type ToolResult,
  type ToolSpec,
  WARMUP_FILES,
} from "./tools/kernel/tool.ts";
export type { ReadRecord } from "./tools/kernel/read_state.ts";
export type { HiddenGlob } from "./tools/kernel/hidden.ts";
export type {
  BwrapConfinement,
  CommandConfinement,
  UnconfinedCommand,
} from "./tools/kernel/bwrap.ts";
export { TASK_STATUSES } from "./tools/kernel/tasks.ts";
export type { FileBoundary } from "./tools/kernel/landlock.ts";
export {
  isInside,
  type ResolvedPath,
  resolveInWorkspace,
} from "./tools/kernel/workspace.ts";
export {
  type AtomicFs,
  atomicWrite,
  type AtomicWriteOptions,
  type AtomicWriteResult,
  sweepLeftovers,
} from "./tools/kernel/atomic_write.ts";
export {
  builtinRef,
  type ToolEntry,
  TOOLSET_NAMES,
  TOOLSETS,
} from "./tools/toolsets.ts";
export { VERSION } from "./session/version.ts";
