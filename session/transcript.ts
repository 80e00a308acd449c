/**
 * Transcripts: every message of a session, appended to
 * `WAVE_HOME/sessions/<id>.jsonl` as it happens, and read back by
 * `--resume`. Each line is written with one append, so a crash can only
 * leave the last line incomplete, and loading skips such a line with a
 * warning.
 *
 * @module
 */

import { dirname } from "node:path";
import type { Message } from "./messages.ts";

/** One line of a transcript. */
export interface TranscriptEntry {
  type: "user" | "assistant";
  message: Message;
  /** A message wave added for the model, not the user's (task reminders). */
  isMeta?: boolean;
  /** The structured results of tool calls, by tool_use id, on a tool-result message. */
  toolUseResults?: Record<string, unknown>;
  timestamp: string;
}

/** Where a session's transcript lives. */
export function transcriptPath(waveHome: string, sessionId: string): string {
  return `${waveHome}/sessions/${sessionId}.jsonl`;
}

/** An append-only transcript. */
export class Transcript {
  readonly path: string;
  #queue: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(path: string) {
    this.path = path;
  }

  /** Appends an entry; appends happen in call order. A failure is logged once, never thrown. */
  append(entry: Omit<TranscriptEntry, "timestamp">): Promise<void> {
    const line =
      JSON.stringify({ ...entry, timestamp: new Date().toISOString() }) + "\n";
    this.#queue = this.#queue.then(async () => {
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
   * Reads a transcript. Lines that are not complete entries (a crash in the
   * middle of a write) are skipped, each with a warning.
   */
  static async load(
    path: string,
  ): Promise<{ entries: TranscriptEntry[]; warnings: string[] }> {
    const text = await Deno.readTextFile(path);
    const entries: TranscriptEntry[] = [];
    const warnings: string[] = [];
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        const entry = JSON.parse(line) as TranscriptEntry;
        if (
          (entry.type !== "user" && entry.type !== "assistant") ||
          !entry.message?.role
        ) {
          throw new Error("not a message");
        }
        entries.push(entry);
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
    return { entries, warnings };
  }
}
