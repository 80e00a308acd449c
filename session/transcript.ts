/**
 * Transcripts: every message of a session, appended to
 * `WAVE_HOME/sessions/<id>.jsonl` as it happens, and read back by
 * `--resume`. Each line is written with one append, so a crash can only
 * leave the last line incomplete, and loading skips such a line with a
 * warning.
 *
 * @module
 */

import { dirname } from "../tools/kernel/posix_path.ts";
import {
  claimTranscript,
  releaseTranscript,
  transcriptPath,
} from "./transcript_claim.ts";
import type { Message, Usage } from "./messages.ts";

/** One message of a transcript: what `--resume` sends back to the model. */
export interface TranscriptEntry {
  type: "user" | "assistant";
  message: Message;
  /** A message wave added for the model, not the user's (task reminders). */
  isMeta?: boolean;
  /** The structured results of tool calls, by tool_use id, on a tool-result message. */
  toolUseResults?: Record<string, unknown>;
  /** How long each tool call took, in ms, by tool_use id, on a tool-result message. */
  durationsMs?: Record<string, number>;
  /** The approvals calls needed and how each was decided, by tool_use id. */
  approvals?: Record<string, {
    reason: string;
    allowed: boolean;
    by: "parent" | "policy";
    message?: string;
  }>;
  /** On a reply: the model that wrote it, its tokens, and how long the request took (ms). */
  model?: string;
  usage?: Usage;
  durationMs?: number;
  timestamp: string;
}

/**
 * A line that is not a message, for a person reading the session later
 * (`wave report`): the session's settings when its agent loop started
 * (once per process, so a resumed session has one more), and each user
 * turn's end, as its `result` said it.
 */
export type TranscriptRecord =
  | {
    type: "session";
    session_id: string;
    cwd: string;
    model: string | null;
    toolset: string;
    mode: string;
    approvals: string;
    wave_version: string;
    timestamp: string;
  }
  | {
    type: "result";
    subtype: string;
    is_error: boolean;
    num_turns: number;
    duration_ms: number;
    usage: Usage;
    result: string;
    timestamp: string;
  };

export { transcriptPath };

/** Distributes `Omit` over a union. */
type Unstamped<T> = T extends unknown ? Omit<T, "timestamp"> : never;

/**
 * An append-only transcript. Its first append claims it for this process
 * ({@linkcode claimTranscript}); {@linkcode Transcript.release} gives the
 * claim up when the session ends, and after it an append writes nothing.
 */
export class Transcript {
  readonly path: string;
  #queue: Promise<void> = Promise.resolve();
  #failed = false;
  /** Another process held it at an append: nothing more is written. */
  #refused = false;
  /** {@linkcode release}d: the session has ended, and nothing more is written. */
  #released = false;
  #kept: boolean;

  /** The transcript at `path`; with `kept` false (`--no-session-persistence`) nothing is written. */
  constructor(path: string, kept = true) {
    this.path = path;
    this.#kept = kept;
  }

  /** Appends an entry; appends happen in call order. A failure is logged once, never thrown. */
  append(
    entry: Unstamped<TranscriptEntry> | Unstamped<TranscriptRecord>,
  ): Promise<void> {
    if (!this.#kept) return this.#queue;
    const line =
      JSON.stringify({ ...entry, timestamp: new Date().toISOString() }) + "\n";
    this.#queue = this.#queue.then(async () => {
      if (this.#refused) return;
      if (this.#released) {
        // A turn that outlived its session's close: writing would claim
        // the transcript again, for a session another wave may have
        // opened since.
        console.error(
          `wave: the session of ${this.path} has ended; a late message of it is not recorded`,
        );
        return;
      }
      // Held from the first line on; one another process holds is never
      // written to (a session id given to two waves at once), from then on.
      if (!claimTranscript(this.path)) {
        console.error(
          `wave: another wave process has the session of ${this.path} open; this one's messages are not recorded`,
        );
        this.#refused = true;
        return;
      }
      try {
        await Deno.mkdir(dirname(this.path), { recursive: true });
        using file = await Deno.open(this.path, { append: true, create: true });
        const bytes = new TextEncoder().encode(line);
        for (let at = 0; at < bytes.length;) {
          at += await file.write(bytes.subarray(at));
        }
      } catch (error) {
        if (!this.#failed) {
          console.error(
            `wave: cannot write the transcript ${this.path}:`,
            error,
          );
        }
        this.#failed = true;
      }
    });
    return this.#queue;
  }

  /** Resolves when every append so far is on disk. */
  flush(): Promise<void> {
    return this.#queue;
  }

  /**
   * The session has ended: once the appends so far are on disk, the claim
   * on the transcript is given up, and later appends write nothing (each
   * says so on stderr).
   */
  async release(): Promise<void> {
    await this.#queue;
    this.#released = true;
    releaseTranscript(this.path);
  }

  /**
   * Reads a transcript. Lines that are not complete entries (a crash in the
   * middle of a write) are skipped, each with a warning. `entries` are the
   * messages; `lines` are the messages and the records, in file order.
   */
  static async load(
    path: string,
  ): Promise<{
    entries: TranscriptEntry[];
    lines: (TranscriptEntry | TranscriptRecord)[];
    warnings: string[];
  }> {
    const text = await Deno.readTextFile(path);
    const entries: TranscriptEntry[] = [];
    const kept: (TranscriptEntry | TranscriptRecord)[] = [];
    const warnings: string[] = [];
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        const entry = JSON.parse(line) as TranscriptEntry | TranscriptRecord;
        if (
          (entry?.type === "session" || entry?.type === "result") &&
          typeof entry.timestamp === "string"
        ) {
          kept.push(entry);
          return;
        }
        if (
          (entry?.type !== "user" && entry?.type !== "assistant") ||
          !entry.message?.role
        ) {
          throw new Error("not a message");
        }
        entries.push(entry);
        kept.push(entry);
      } catch {
        const last = i === lines.length - 1 ||
          lines.slice(i + 1).every((l) => l.trim() === "");
        warnings.push(
          `${path}: line ${i + 1} is not a complete message${
            last ? " (a write cut short, most likely)" : ""
          }; it was skipped`,
        );
      }
    });
    return { entries, lines: kept, warnings };
  }
}
