/**
 * Messages between the main thread and a sandbox worker. Private to the
 * executor and the worker entry.
 *
 * @module
 */

import type { CommandConfinement } from "../tools/kernel/bwrap.ts";
import type { HiddenGlob } from "../tools/kernel/hidden.ts";
import type { LandlockRule } from "../tools/kernel/landlock.ts";
import type {
  ReadRecord,
  ReadStateChanges,
} from "../tools/kernel/read_state.ts";
import type { ResolvedPath } from "../tools/kernel/workspace.ts";
import type {
  CallTask,
  OpenWith,
  ToolEvent,
  ToolResult,
} from "../tools/kernel/tool.ts";

/** What a tool's context is built from in the worker. */
export interface CallContextData {
  workspace: string;
  sessionId: string;
  toolUseId: string;
  waveHome: string;
  spillDir: string;
  home?: string;
  limits: { maxReadTokens: number };
  /** The `Read` deny rules' globs that bind the call (`ctx.hidden`). */
  hidden?: HiddenGlob[];
  shellSandbox: CommandConfinement;
  /** The session's marker prefix (`ProcessGroupsView.markerPrefix`). */
  markerPrefix: string;
  /** The session's task list; the worker opens its store (`ctx.tasks`). */
  taskListId: string;
  env: Record<string, string>;
  programs: Record<string, string>;
  /** The declared paths, resolved by the main thread: raw → resolution. */
  paths: Record<string, ResolvedPath>;
  /** Real paths the parent approved for this call (outside or sensitive). */
  approved: string[];
  /** The session's read-state records for the declared paths. */
  readState: Record<string, ReadRecord>;
  /** `--stt-model`, or null: then `ctx.transcribe` fails at once, naming the flag. */
  stt: string | null;
  /** The task the call belongs to (`ctx.task`). */
  task: CallTask;
  /** The file-history budget (`ctx.historyLimits`). */
  historyLimits: { maxAgeMs: number; maxBytes: number };
  /** `--output-dir`, absolute (`ctx.outputDir`). */
  outputDir: string;
  /** `--open-with` (`ctx.openWith`). */
  openWith: OpenWith;
  /**
   * The call reads and writes the text of the files it named through the
   * front's editor (`ctx.buffers`, over `buffer` requests); absent or false: the disk.
   */
  buffers?: boolean;
}

/** Main → worker. */
export type ToWorker =
  | {
    type: "call";
    id: string;
    module: string;
    input: unknown;
    ctx: CallContextData;
  }
  | { type: "abort"; id: string }
  /** Load these tool modules now, before a call needs them (idle time). */
  | { type: "preload"; modules: readonly string[] }
  /**
   * The first message to a worker of file tools: restrict its thread to
   * these rules (Landlock), then give up FFI.
   */
  | { type: "confine"; rules: readonly LandlockRule[] }
  /**
   * The answer to a `transcribe` request: the text, or the error the
   * tool throws (its message and `structured`).
   */
  | {
    type: "transcript";
    id: string;
    request: number;
    text?: string;
    error?: { message: string; structured: unknown };
  }
  /**
   * The answer to a `buffer` request: the buffer's text (a read), nothing
   * (a write done), or the error the tool throws.
   */
  | {
    type: "buffered";
    id: string;
    request: number;
    text?: string;
    error?: { message: string; structured: unknown };
  }
  /** The answer to an `open_file` request: what happened, or the error the tool throws. */
  | {
    type: "opened";
    id: string;
    request: number;
    text?: string;
    error?: { message: string; structured: unknown };
  };

/** Worker → main. */
export type FromWorker =
  /** The modules of a `preload` are loaded (or failed to). */
  | { type: "preloaded" }
  /** The worker could not confine itself (`confine`): it must not run calls. */
  | { type: "unconfined"; why: string }
  /** A tool ended the worker (`how`: `self.close()`, `Deno.exit(3)`): it answers nothing more. */
  | { type: "ending"; how: string }
  /** The tool's module is loaded and its run begins. */
  | { type: "started"; id: string }
  | {
    type: "result";
    id: string;
    result: ToolResult;
    readState: ReadStateChanges;
  }
  /** A tool's `ctx.emit`, posted before the call's result. */
  | { type: "event"; id: string; event: ToolEvent }
  | {
    type: "process";
    id: string;
    /**
     * `prepared`: a group started ahead, for a later call (a prepared
     * sandbox, tools/_core/shell.ts); `adopted`: the call now owns such a
     * group.
     */
    op: "started" | "ended" | "adopted" | "prepared" | "held";
    pgid: number;
    /** A command's marker (tools/kernel/processes.ts), with "started" and "prepared". */
    marker?: string;
    /** The cgroup the command joins, with "started", "prepared" and "held" (then `pgid` is 0). */
    cgroup?: string;
  }
  | { type: "signal"; id: string; pgid: number; signal: Deno.Signal }
  /**
   * A tool's `ctx.transcribe`: the main thread checks that `path` is one
   * the call named, makes the transcript, and answers `transcript`.
   */
  | {
    type: "transcribe";
    id: string;
    request: number;
    path: string;
    /**
     * The file the worker's confined thread opened at `path` (device and
     * inode): the main thread transcribes that file, not whatever the
     * path names by the time it opens it.
     */
    file: FileIdentity;
  }
  /**
   * A tool's `ctx.openFile`: the main thread checks that `path` is one
   * the call named, opens it as `--open-with` says, and answers `opened`.
   */
  | {
    type: "open_file";
    id: string;
    request: number;
    path: string;
    timeoutMs: number;
  }
  /**
   * A tool's `ctx.buffers`: the main thread checks that `path` is one the
   * call named (for writing, when `text` is given), asks the front's
   * editor for its text or gives it `text`, and answers `buffered`.
   */
  | {
    type: "buffer";
    id: string;
    request: number;
    path: string;
    /** The new whole text of the buffer: a write; absent: a read. */
    text?: string;
  };

/** A file's identity on its file system. */
export interface FileIdentity {
  dev: number;
  ino: number;
}
