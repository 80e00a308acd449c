/**
 * The entry of a sandbox worker: imports tool modules, builds each call's
 * {@linkcode ToolContext}, runs the tool, and posts the result. Its Deno
 * permissions were fixed by the executor when it was created.
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
import { restrictThread } from "../tools/kernel/landlock.ts";
import { CallReadState } from "../tools/kernel/read_state.ts";
import { TaskStore } from "../tools/kernel/tasks.ts";
import { noSttModelError } from "../tools/kernel/transcripts.ts";
import {
  type ToolContext,
  type ToolDefinition,
  ToolError,
  toolErrorResult,
  type ToolEvent,
} from "../tools/kernel/tool.ts";
import {
  displayPath,
  type ResolvedPath,
  resolveInWorkspace,
} from "../tools/kernel/workspace.ts";

// stdout carries protocol lines only: a tool's stray console.log must not reach it.
console.log = console.error;
console.info = console.error;
console.debug = console.error;
console.table = console.error;
console.dir = console.error;

const modules = new Map<string, Promise<ToolDefinition>>();
const controllers = new Map<string, AbortController>();
/** Transcripts asked of the main thread, by request number. */
const transcripts = new Map<
  number,
  { resolve(text: string): void; reject(error: ToolError): void }
>();
let nextTranscript = 1;

/** Asks the main thread for a transcript (ToolContext.transcribe). */
function transcribe(
  id: string,
  data: CallContextData,
  signal: AbortSignal,
  path: string,
): Promise<string> {
  if (data.stt === null) return Promise.reject(noSttModelError());
  const interrupted = () =>
    new ToolError("the transcription was interrupted", {
      type: "interrupted",
    });
  if (signal.aborted) return Promise.reject(interrupted());
  // Opened here, on the confined thread: what the main thread transcribes
  // must be this file (Landlock held the open to the call's roots).
  let file: FileIdentity;
  try {
    using opened = Deno.openSync(path, { read: true });
    const info = opened.statSync();
    file = { dev: info.dev, ino: info.ino ?? 0 };
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
  const request = nextTranscript++;
  return new Promise<string>((resolve, reject) => {
    // The main thread stops too (it has the call's signal); the tool need
    // not wait for it to say so.
    const onAbort = () => {
      transcripts.delete(request);
      reject(interrupted());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    transcripts.set(request, {
      resolve: (text) => {
        signal.removeEventListener("abort", onAbort);
        resolve(text);
      },
      reject: (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    });
    post({ type: "transcribe", id, request, path, file });
  });
}

/** open_file requests asked of the main thread, by request number. */
const opens = new Map<
  number,
  (answer: { text?: string; error?: ToolError }) => void
>();
let nextOpen = 1;

/** Asks the main thread to open a file for the person (ToolContext.openFile). */
function openFile(
  id: string,
  signal: AbortSignal,
  path: string,
  timeoutMs: number,
): Promise<string> {
  const request = nextOpen++;
  return new Promise<string>((resolve, reject) => {
    const onAbort = () => {
      opens.delete(request);
      reject(new ToolError("opening was interrupted", { type: "interrupted" }));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    opens.set(request, ({ text, error }) => {
      signal.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(text ?? "");
    });
    post({ type: "open_file", id, request, path, timeoutMs });
  });
}

/** Buffer requests asked of the main thread, by request number. */
const buffers = new Map<
  number,
  (answer: { text?: string; error?: ToolError }) => void
>();
let nextBuffer = 1;

/** Asks the main thread to read (no `text`) or write the editor's buffer of `path` (ToolContext.buffers). */
function buffer(
  id: string,
  signal: AbortSignal,
  path: string,
  text?: string,
): Promise<string> {
  const request = nextBuffer++;
  return new Promise<string>((resolve, reject) => {
    const onAbort = () => {
      buffers.delete(request);
      reject(
        new ToolError("the editor's answer was interrupted", {
          type: "interrupted",
        }),
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    buffers.set(request, ({ text, error }) => {
      signal.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(text ?? "");
    });
    post({ type: "buffer", id, request, path, text });
  });
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
    shellSandbox: data.shellSandbox,
    // Opened on first use: most tools never touch the task list.
    get tasks() {
      return tasks ??= new TaskStore(data.waveHome, data.taskListId);
    },
    env: data.env,
    programs: data.programs,
    readState,
    path(raw) {
      return check(
        data.paths[raw] ??
          resolveInWorkspace(
            data.workspace,
            raw,
            data.home,
            [data.spillDir],
            data.waveHome,
          ),
      );
    },
    emit,
    progress: (stream, text) => emit({ type: "output", stream, text }),
    processes: {
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
    result = await tool.run(message.input, ctx);
  } catch (error) {
    result = unexpectedFailure(error);
  } finally {
    controllers.delete(message.id);
  }
  post({
    type: "result",
    id: message.id,
    result,
    readState: readState.changes(),
  });
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
  return {
    content: `The tool failed unexpectedly: ${message}`,
    isError: true,
    structured: { type: "internal_error" },
  };
}

/**
 * Restricts this worker's thread to its roots (Landlock) and gives up FFI.
 * What the tools do on this thread, and the programs they start, is then
 * held by the kernel; this is why the tools open, create, list, rename and
 * remove paths with the synchronous ops, which run on this thread (the
 * asynchronous ones run on a shared pool that is not restricted).
 */
function confine(rules: Extract<ToWorker, { type: "confine" }>["rules"]) {
  const why = restrictThread(rules);
  try {
    Deno.permissions.revokeSync({ name: "ffi" });
  } catch { /* never granted */ }
  if (why) post({ type: "unconfined", why });
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "confine") confine(message.rules);
  else if (message.type === "preload") {
    // A module that fails to load fails its first call, which says why.
    Promise.allSettled(message.modules.map(load)).then(() =>
      post({ type: "preloaded" })
    );
  } else if (message.type === "call") runCall(message);
  else if (message.type === "abort") controllers.get(message.id)?.abort();
  else if (message.type === "buffered") {
    const waiting = buffers.get(message.request);
    buffers.delete(message.request);
    waiting?.({
      text: message.text,
      error: message.error &&
        new ToolError(message.error.message, message.error.structured),
    });
  } else if (message.type === "opened") {
    const waiting = opens.get(message.request);
    opens.delete(message.request);
    waiting?.({
      text: message.text,
      error: message.error &&
        new ToolError(message.error.message, message.error.structured),
    });
  } else if (message.type === "transcript") {
    const waiting = transcripts.get(message.request);
    transcripts.delete(message.request);
    if (message.error) {
      waiting?.reject(
        new ToolError(message.error.message, message.error.structured),
      );
    } else waiting?.resolve(message.text ?? "");
  }
};
