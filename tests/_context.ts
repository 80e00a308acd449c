/**
 * Test harness for the core: runs tool modules in-process with a session-like
 * context (read-state kept across calls, like one session), no worker.
 *
 * @module
 */

import type { CommandConfinement } from "../tools/kernel/bwrap.ts";
import type { ReadRecord } from "../tools/kernel/read_state.ts";
import { signalGroup } from "../tools/kernel/processes.ts";
import { resolvePrograms } from "../tools/kernel/programs.ts";
import { TaskStore } from "../tools/kernel/tasks.ts";
import { noSttModelError } from "../tools/kernel/transcripts.ts";
import type {
  EditorBuffers,
  ToolContext,
  ToolDefinition,
  ToolEvent,
  ToolResult,
} from "../tools/kernel/tool.ts";
import { zodSchemaOf } from "../tools/kernel/tool.ts";
import { resolveInWorkspace } from "../tools/kernel/workspace.ts";
import { SHELL_PROGRAMS } from "../tools/_core/shell.ts";
import { lastItems, waitUntil } from "./_waiting.ts";
import { tempDir } from "./_temp.ts";
import { loadContentHash } from "../tools/_core/content_hash.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

/** A fake session for in-process tool runs. */
export class TestSession {
  readonly workspace: string;
  readonly waveHome: string;
  readonly records = new Map<string, ReadRecord>();
  readonly progress: { stream: string; text: string }[] = [];
  /** Every event but output, in order. */
  readonly events: ToolEvent[] = [];
  readonly groups = new Set<number>();
  programs: Record<string, string> = {};
  env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  };
  maxReadTokens = 25_000;
  shellSandbox: CommandConfinement = { kind: "none" };
  taskListId = "test-list";
  /** The task calls belong to (`ctx.task`). */
  task = { id: "task-test", goal: "a test" };
  /** File history's budget (`ctx.historyLimits`). */
  historyLimits = { maxAgeMs: 30 * 24 * 3600 * 1000, maxBytes: 1 << 30 };
  /** How open_file opens files (`ctx.openWith`). */
  openWith: "parent" | "system" | "none" = "none";
  /** What `ctx.openFile` does (default: opened at once). */
  openFile: (path: string, timeoutMs: number) => Promise<string> = () =>
    Promise.resolve("opened");

  /** The editor's buffers (`ctx.buffers`); absent: the disk. */
  buffers?: EditorBuffers;

  controller = new AbortController();
  /** What `ctx.transcribe` does (default: no speech-to-text model). */
  transcribe: (path: string) => Promise<string> = () =>
    Promise.reject(noSttModelError());

  constructor(workspace: string, waveHome: string) {
    this.workspace = workspace;
    this.waveHome = waveHome;
  }

  /** A session on a new temp workspace (real path), with ripgrep found. */
  static async create(): Promise<TestSession> {
    const workspace = await Deno.realPath(
      await tempDir({ prefix: "wave-core-" }),
    );
    const home = await tempDir({ prefix: "wave-home-" });
    const session = new TestSession(workspace, home);
    session.programs = await resolvePrograms(["rg", ...SHELL_PROGRAMS], home);
    return session;
  }

  /** The context of one call. */
  context(): ToolContext {
    const records = this.records;
    const emit = (event: ToolEvent) => {
      if (event.type === "output") {
        this.progress.push({ stream: event.stream, text: event.text });
      } else this.events.push(event);
    };
    return {
      workspace: this.workspace,
      sessionId: "test",
      toolUseId: "toolu_test",
      signal: this.controller.signal,
      waveHome: this.waveHome,
      spillDir: `${this.waveHome}/spill/test`,
      limits: { maxReadTokens: this.maxReadTokens },
      shellSandbox: this.shellSandbox,
      tasks: new TaskStore(this.waveHome, this.taskListId),
      env: this.env,
      programs: this.programs,
      approvedFor: () => false,
      path: (raw) => {
        const resolved = resolveInWorkspace(this.workspace, raw);
        if (resolved.outside) {
          throw new Error(`test context: outside path ${raw}`);
        }
        return resolved;
      },
      readState: {
        get: (p) => records.get(p),
        record: (p, r) => void records.set(p, r),
        forget: (p) => void records.delete(p),
      },
      emit,
      progress: (stream, text) => emit({ type: "output", stream, text }),
      processes: {
        markerPrefix: `${Deno.pid}-test`,
        started: (pgid) => void this.groups.add(pgid),
        ended: (pgid) => void this.groups.delete(pgid),
        adopted: (pgid) => void this.groups.add(pgid),
        prepared: (pgid) => void this.groups.add(pgid),
        hold: () => {},
        signal: (pgid, signal) => signalGroup(pgid, signal),
      },
      transcribe: (path) => this.transcribe(path),
      task: this.task,
      historyLimits: this.historyLimits,
      outputDir: `${this.workspace}/output`,
      openWith: this.openWith,
      openFile: (path, timeoutMs) => this.openFile(path, timeoutMs),
      buffers: this.buffers,
    };
  }

  /**
   * Waits until the progress streamed so far (every chunk's text, joined)
   * matches `pattern`, and returns that text: the event a command sends
   * when it has got somewhere. On timeout the error names the pattern and
   * shows the last chunks.
   */
  async waitForProgress(pattern: RegExp, timeoutMs?: number): Promise<string> {
    const streamed = () => this.progress.map((p) => p.text).join("");
    return await waitUntil(
      () => pattern.test(streamed()) && streamed(),
      `progress matching ${pattern}`,
      {
        timeoutMs,
        detail: () => lastItems(this.progress, "progress chunks"),
      },
    );
  }

  /** Validates input like the session does, then runs the tool. */
  async call(
    tool: ToolDefinition,
    input: Record<string, unknown>,
  ): Promise<ToolResult> {
    const parsed = zodSchemaOf(tool).safeParse(input);
    if (!parsed.success) {
      throw new Error(`invalid input: ${parsed.error.message}`);
    }
    return await tool.run(parsed.data, this.context());
  }

  /** Writes a file in the workspace (parents created). */
  async write(path: string, content: string | Uint8Array): Promise<string> {
    const full = `${this.workspace}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
    return full;
  }

  /** Reads a workspace file's text. */
  read(path: string): Promise<string> {
    return Deno.readTextFile(`${this.workspace}/${path}`);
  }
}

/** The text of a result's content. */
export function text(result: ToolResult): string {
  return typeof result.content === "string"
    ? result.content
    : result.content.map((b) => b.type === "text" ? b.text : `[${b.type}]`)
      .join("");
}

/** Sets a file's mtime `seconds` into the future (an external "touch"). */
export async function touchLater(path: string, seconds = 5): Promise<void> {
  const t = new Date(Date.now() + seconds * 1000);
  await Deno.utime(path, t, t);
}
