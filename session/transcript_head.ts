/**
 * What a transcript's first lines say: the workspace its session ran in
 * (the session line) and the first line of its first prompt (a title).
 * `--continue` and `--resume` look for the workspace before
 * `system/init`, so this module is small and imports nothing.
 *
 * @module
 */

/** How much of a transcript's start is read for its head. */
export const TRANSCRIPT_HEAD_BYTES = 64 * 1024;

/** The longest title, in characters (one line of a list). */
export const TITLE_CHARS = 100;

/** A transcript's head: what its first lines say. */
export interface TranscriptHead {
  /** The workspace of its session line; absent before its first turn. */
  cwd?: string;
  /**
   * The first non-empty line of its first prompt (task reminders are not
   * prompts), cut to {@linkcode TITLE_CHARS}; absent when the text read
   * holds none (a prompt longer than the head, an image alone).
   */
  title?: string;
}

/** The lines a head is read from: a session line, a user message (JSON spaced or not). */
const HEAD_LINE = /"type"\s*:\s*"(?:session|user)"/;

/**
 * The head of a transcript from the text of its start (its workspace
 * alone when `title` is false, which stops at the session line). A line
 * cut short (by the head's end, or a crash mid-write) is skipped, never
 * misread.
 */
export function parseTranscriptHead(
  text: string,
  title = true,
): TranscriptHead {
  const head: TranscriptHead = {};
  for (const line of text.split("\n")) {
    if (
      head.cwd !== undefined && (head.title !== undefined || !title)
    ) break;
    // Only these two kinds are looked at: other lines are not parsed.
    if (!HEAD_LINE.test(line)) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry?.type === "session" && typeof entry.cwd === "string") {
      head.cwd ??= entry.cwd;
    } else if (
      title && entry?.type === "user" && !entry.isMeta &&
      head.title === undefined
    ) {
      const found = titleOf(entry.message?.content);
      if (found !== undefined) head.title = found;
    }
  }
  return head;
}

/**
 * The first `bytes` of the transcript at `path` as text (at most
 * {@linkcode TRANSCRIPT_HEAD_BYTES}), and whether that is the whole file.
 * Throws when it cannot be read.
 */
export function readTranscriptHead(
  path: string,
  bytes = TRANSCRIPT_HEAD_BYTES,
): { text: string; whole: boolean } {
  const file = Deno.openSync(path);
  try {
    const buffer = new Uint8Array(Math.min(bytes, TRANSCRIPT_HEAD_BYTES));
    let filled = 0;
    let whole = false;
    while (filled < buffer.length) {
      const n = file.readSync(buffer.subarray(filled));
      if (n === null) {
        whole = true;
        break;
      }
      filled += n;
    }
    return {
      text: new TextDecoder().decode(buffer.subarray(0, filled)),
      whole,
    };
  } finally {
    file.close();
  }
}

/** The first non-empty line of a prompt's text, cut to {@linkcode TITLE_CHARS} characters (never inside one). */
function titleOf(content: unknown): string | undefined {
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter((b) => b?.type === "text" && typeof b.text === "string")
      .map((b) => b.text).join("\n")
    : "";
  const line = text.split("\n").map((l) => l.trim()).find((l) => l !== "");
  if (line === undefined) return undefined;
  // By code points: a cut between the halves of a surrogate pair would
  // leave one that no editor can show.
  const chars = Array.from(line);
  return chars.length > TITLE_CHARS
    ? `${chars.slice(0, TITLE_CHARS - 1).join("")}…`
    : line;
}
