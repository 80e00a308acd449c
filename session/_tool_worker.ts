/**
 * A sandbox worker's work: imports tool modules, builds each call's
 * {@linkcode ToolContext}, runs the tool, and posts the result. Its Deno
 * permissions were fixed by the executor when it was created, and
 * `_tool_worker_entry.js` has confined it (Landlock) before importing this.
 *
 * Its top level only defines: the main thread imports it too, so that
 * Deno's transpile cache holds it (`cacheWorkerCode` in core.ts says why).
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type {
  CallContextData,
  FileIdentity,
  FromWorker,
  ToWorker,
} from "./_worker_protocol.ts";
import { loadTool } from "../tools/loaders.ts";
import { nodeFs, openRegularFile } from "../tools/kernel/regular_file.ts";
import { loadContentHash } from "../tools/_core/content_hash.ts";
import { CallReadState } from "../tools/kernel/read_state.ts";
import { TaskStore } from "../tools/kernel/tasks.ts";
import { noSttModelError } from "../tools/kernel/transcripts.ts";
import {
  type ToolContext,
  type ToolDefinition,
  ToolError,
  toolErrorResult,
  type ToolEvent,
  type ToolResult,
} from "../tools/kernel/tool.ts";
import {
  displayPath,
  displayPathsIn,
  type ResolvedPath,
  resolveInWorkspace,
} from "../tools/kernel/workspace.ts";
import {
  changedToGuarded,
  pinChecked,
  withCheckedFiles,
} from "../tools/kernel/checked_files.ts";

const modules = new Map<string, Promise<ToolDefinition>>();
const controllers = new Map<string, AbortController>();
/**
 * What the tools asked of the main thread (a transcript, opening a file, an
 * editor's buffer) and wait for, by request number.
 */
const asked = new Map<
  number,
  (answer: { text?: string; error?: ToolError }) => void
>();
let nextRequest = 1;

/**
 * Sends the main thread the request `message` makes of a fresh request
 * number, and resolves with its answer's text or rejects with its error;
 * when `signal` aborts first, rejects at once with a ToolError saying
 * `interrupted` (the main thread has the call's signal and stops too).
 */
function ask(
  signal: AbortSignal,
  interrupted: string,
  message: (request: number) => FromWorker,
): Promise<string> {
  const request = nextRequest++;
  return new Promise<string>((resolve, reject) => {
    const onAbort = () => {
      asked.delete(request);
      reject(new ToolError(interrupted, { type: "interrupted" }));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    asked.set(request, ({ text, error }) => {
      signal.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(text ?? "");
    });
    post(message(request));
  });
}

/** Asks the main thread for a transcript (ToolContext.transcribe). */
function transcribe(
  id: string,
  data: CallContextData,
  signal: AbortSignal,
  path: string,
): Promise<string> {
  if (data.stt === null) return Promise.reject(noSttModelError());
  const interrupted = "the transcription was interrupted";
  if (signal.aborted) {
    return Promise.reject(new ToolError(interrupted, { type: "interrupted" }));
  }
  // Opened here, on the confined thread: what the main thread transcribes
  // must be this file (Landlock held the open to the call's roots).
  let file: FileIdentity;
  try {
    using opened = openRegularFile(path);
    file = { dev: opened.dev, ino: opened.ino };
  } catch (error) {
    const why = error instanceof Deno.errors.NotCapable
      ? "the sandbox refused access (not a file this call was granted)"
      : (error as Error).message;
    return Promise.reject(
      new ToolError(`${path} cannot be read: ${why}`, {
        type: "transcription_failed",
      }),
    );
  }
  return ask(
    signal,
    interrupted,
    (request) => ({ type: "transcribe", id, request, path, file }),
  );
}

/** Asks the main thread to open a file for the person (ToolContext.openFile). */
function openFile(
  id: string,
  signal: AbortSignal,
  path: string,
  timeoutMs: number,
): Promise<string> {
  return ask(
    signal,
    "opening was interrupted",
    (request) => ({ type: "open_file", id, request, path, timeoutMs }),
  );
}

/** Asks the main thread to read (no `text`) or write the editor's buffer of `path` (ToolContext.buffers). */
function buffer(
  id: string,
  signal: AbortSignal,
  path: string,
  text?: string,
): Promise<string> {
  return ask(
    signal,
    "the editor's answer was interrupted",
    (request) => ({ type: "buffer", id, request, path, text }),
  );
}

function post(message: FromWorker): void {
  self.postMessage(message);
}

function load(ref: string): Promise<ToolDefinition> {
  let tool = modules.get(ref);
  if (!tool) {
    tool = loadTool(ref);
    modules.set(ref, tool);
  }
  return tool;
}

function contextFor(
  id: string,
  data: CallContextData,
  signal: AbortSignal,
  readState: CallReadState,
): ToolContext {
  const approved = new Set(data.approved);
  const check = (resolved: ResolvedPath): ResolvedPath => {
    if (approved.has(resolved.real)) return resolved;
    if (resolved.outside) {
      throw new ToolError(
        `path outside the workspace: ${resolved.abs}${
          resolved.real !== resolved.abs
            ? ` (it leads to ${resolved.real})`
            : ""
        }; only paths named in the tool's input can be approved`,
      );
    }
    if (resolved.sensitive) {
      throw new ToolError(
        `${resolved.sensitive}: ${
          displayPath(data.workspace, resolved.abs)
        } needs the parent's approval`,
      );
    }
    return resolved;
  };
  const emit = (event: ToolEvent) => post({ type: "event", id, event });
  let tasks: TaskStore | undefined;
  return {
    workspace: data.workspace,
    sessionId: data.sessionId,
    toolUseId: data.toolUseId,
    signal,
    waveHome: data.waveHome,
    spillDir: data.spillDir,
    limits: data.limits,
    hidden: data.hidden ?? [],
    shellSandbox: data.shellSandbox,
    // Opened on first use: most tools never touch the task list.
    get tasks() {
      return tasks ??= new TaskStore(data.waveHome, data.taskListId);
    },
    env: data.env,
    programs: data.programs,
    readState,
    approvedFor: (real) => approved.has(real),
    path(raw) {
      const given = data.paths[raw];
      // A path the parent approved (outside, or sensitive), or one in an
      // added root: the main thread's resolution, the one approved, and
      // what the call opens there is held to what it judged.
      if (given && (given.outside || given.sensitive)) {
        check(given);
        if (given.identity) pinChecked(given.real, given.identity);
        return given;
      }
      // Any other is judged again as the call runs (it may have waited for
      // another write of the file, or a link may have been made since), and
      // what the call opens is held to that judgment.
      const resolved = resolveInWorkspace(
        data.workspace,
        raw,
        data.home,
        [data.spillDir],
        data.waveHome,
      );
      if (given && (resolved.outside || resolved.sensitive)) {
        // Ordinary when the call came, guarded now: the parent was not asked.
        throw changedToGuarded(
          displayPath(data.workspace, resolved.abs),
          resolved.sensitive ?? "outside the workspace",
        );
      }
      check(resolved);
      if (resolved.identity) pinChecked(resolved.real, resolved.identity);
      return resolved;
    },
    emit,
    progress: (stream, text) => emit({ type: "output", stream, text }),
    processes: {
      markerPrefix: data.markerPrefix,
      started: (pgid, marker, cgroup) =>
        post({ type: "process", id, op: "started", pgid, marker, cgroup }),
      ended: (pgid) => post({ type: "process", id, op: "ended", pgid }),
      adopted: (pgid) => post({ type: "process", id, op: "adopted", pgid }),
      prepared: (pgid, marker, cgroup) =>
        post({ type: "process", id, op: "prepared", pgid, marker, cgroup }),
      hold: (cgroup) =>
        post({ type: "process", id, op: "held", pgid: 0, cgroup }),
      signal: (pgid, signal) => post({ type: "signal", id, pgid, signal }),
    },
    transcribe: (path) => transcribe(id, data, signal, path),
    task: data.task,
    historyLimits: data.historyLimits,
    outputDir: data.outputDir,
    openWith: data.openWith,
    openFile: (path, timeoutMs) => openFile(id, signal, path, timeoutMs),
    buffers: data.buffers
      ? {
        read: (path) => buffer(id, signal, path),
        write: async (path, text) => {
          await buffer(id, signal, path, text);
        },
      }
      : undefined,
  };
}

async function runCall(message: Extract<ToWorker, { type: "call" }>) {
  const controller = new AbortController();
  controllers.set(message.id, controller);
  const readState = new CallReadState(message.ctx.readState);
  let result;
  try {
    const tool = await load(message.module);
    post({ type: "started", id: message.id });
    const ctx = contextFor(
      message.id,
      message.ctx,
      controller.signal,
      readState,
    );
    result = await withCheckedFiles(() => tool.run(message.input, ctx));
  } catch (error) {
    result = unexpectedFailure(error);
  } finally {
    controllers.delete(message.id);
  }
  post({
    type: "result",
    id: message.id,
    result: shownInWorkspace(result, message.ctx.workspace),
    readState: readState.changes(),
  });
}

/**
 * The errors a file found changed at its open is reported with: the kernel
 * that refuses it knows only the real path, so their paths are shown here
 * as every tool shows one, relative to the workspace.
 */
const OPEN_ERRORS = new Set([
  "not_regular_file",
  "not_found",
  "access_denied",
  "changed_during_call",
]);

function shownInWorkspace(result: ToolResult, workspace: string): ToolResult {
  const type = (result.structured as { type?: unknown } | null)?.type;
  if (
    !result.isError || typeof result.content !== "string" ||
    typeof type !== "string" || !OPEN_ERRORS.has(type)
  ) return result;
  return { ...result, content: displayPathsIn(workspace, result.content) };
}

/** A tool that threw: the sandbox's refusal, or a bug, as an error result. */
function unexpectedFailure(error: unknown) {
  if (error instanceof Deno.errors.NotCapable) {
    return {
      // Deno's hint ("run again with --allow-read") means nothing to a model.
      content: `The sandbox refused: ${
        error.message.replace(/, run again with .*$/, "")
      }`,
      isError: true,
      structured: { type: "sandbox_denied" },
    };
  }
  if (error instanceof ToolError) return toolErrorResult(error);
  const message = error instanceof Error ? error.message : String(error);
  // A file tool checks its path before it opens it; what changed between
  // the two (or was never readable) is said as such, not as a bug.
  if (
    error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.NotADirectory
  ) {
    return {
      content:
        `${message}: it was removed or renamed while the call ran; try again`,
      isError: true,
      structured: { type: "not_found" },
    };
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return {
      content:
        `${message}: wave's user may not open it, or the path was swapped for a link out of the workspace while the call ran`,
      isError: true,
      structured: { type: "access_denied" },
    };
  }
  return {
    content: `The tool failed unexpectedly: ${message}`,
    isError: true,
    structured: { type: "internal_error" },
  };
}

/**
 * Loads what the tools' modules take only when first used, so that the
 * main thread, which loads those modules for their definitions, never
 * pays for it (the content hasher, `node:fs`: Deno's Node compatibility
 * layer, see kernel/posix_path.ts). The entry awaits it before it hands
 * on the first message, so no call pays for it either. Never rejects:
 * what could not load fails the calls that need it, saying why.
 */
export async function prepare(): Promise<void> {
  try {
    nodeFs();
  } catch { /* a file open says why */ }
  await loadContentHash().catch(() => {});
}

/**
 * Handles one message of the main thread, in the order they came. The
 * entry has handled `confine` (it comes first, before this module loads).
 */
export function handle(message: ToWorker): void {
  if (message.type === "preload") {
    // A module that fails to load fails its first call, which says why.
    Promise.allSettled(message.modules.map(load)).then(() =>
      post({ type: "preloaded" })
    );
  } else if (message.type === "call") runCall(message);
  else if (message.type === "abort") controllers.get(message.id)?.abort();
  else if (
    message.type === "buffered" || message.type === "opened" ||
    message.type === "transcript"
  ) {
    const waiting = asked.get(message.request);
    asked.delete(message.request);
    waiting?.({
      text: message.text,
      error: message.error &&
        new ToolError(message.error.message, message.error.structured),
    });
  }
}
