/**
 * The sessions whose transcripts are in `WAVE_HOME/sessions`, newest
 * first, a page at a time (ACP's `session/list`): what an editor shows as
 * its history, to load or resume one.
 *
 * @module
 */

/** One session as a list shows it. */
export interface ListedSession {
  id: string;
  /** The workspace it ran in (its transcript's session line). */
  cwd: string;
  /** The first line of its first prompt, cut to {@linkcode TITLE_CHARS}; absent when none was found. */
  title?: string;
  /** When its transcript last changed (ISO 8601). */
  updatedAt: string;
}

/** One page of {@linkcode listSessions}. */
export interface SessionPage {
  sessions: ListedSession[];
  /** Where the next page starts; absent on the last. */
  nextCursor?: string;
}

/** How many sessions a page holds. */
export const SESSIONS_PER_PAGE = 50;

/** The longest title, in characters (one line of a list). */
export const TITLE_CHARS = 100;

/** How much of a transcript's start is read for its workspace and title. */
const HEAD_BYTES = 64 * 1024;

/**
 * The sessions in `waveHome/sessions` (of workspace `cwd` only, when
 * given), newest first, a page from `cursor` (a previous page's
 * `nextCursor`). A transcript with no session line yet (no turn started)
 * or that cannot be read is left out. Throws on a cursor this did not
 * make.
 */
export function listSessions(
  waveHome: string,
  options: { cwd?: string; cursor?: string; perPage?: number } = {},
): SessionPage {
  const after = options.cursor === undefined
    ? undefined
    : parseCursor(options.cursor);
  const perPage = options.perPage ?? SESSIONS_PER_PAGE;
  const dir = `${waveHome}/sessions`;
  const found: { id: string; mtime: number; path: string }[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
      const path = `${dir}/${entry.name}`;
      try {
        const mtime = Deno.statSync(path).mtime?.getTime() ?? 0;
        found.push({ id: entry.name.slice(0, -".jsonl".length), mtime, path });
      } catch { /* gone meanwhile */ }
    }
  } catch {
    return { sessions: [] }; // no sessions yet
  }
  // Newest first; among those changed at once, by id: a stable order the
  // cursor can name a place in.
  found.sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? -1 : 1));
  const sessions: ListedSession[] = [];
  let last: { id: string; mtime: number } | undefined;
  for (const candidate of found) {
    if (after && !comesAfter(candidate, after)) continue;
    const head = sessionHead(candidate.path);
    if (!head || (options.cwd !== undefined && head.cwd !== options.cwd)) {
      continue;
    }
    // One more than a page: there is a next one.
    if (sessions.length === perPage) {
      return { sessions, nextCursor: cursorOf(last!) };
    }
    sessions.push({
      id: candidate.id,
      cwd: head.cwd,
      ...head.title !== undefined ? { title: head.title } : {},
      updatedAt: new Date(candidate.mtime).toISOString(),
    });
    last = candidate;
  }
  return { sessions };
}

/** Whether `entry` comes after `place` in the list's order. */
function comesAfter(
  entry: { id: string; mtime: number },
  place: { id: string; mtime: number },
): boolean {
  return entry.mtime < place.mtime ||
    (entry.mtime === place.mtime && entry.id > place.id);
}

function cursorOf(place: { id: string; mtime: number }): string {
  return `${place.mtime}:${place.id}`;
}

function parseCursor(cursor: string): { id: string; mtime: number } {
  const match = /^(\d+):(.+)$/.exec(cursor);
  if (!match) {
    throw new Error(
      `not a cursor of wave's session list: ${
        JSON.stringify(cursor.slice(0, 80))
      }`,
    );
  }
  return { mtime: Number(match[1]), id: match[2] };
}

/**
 * A transcript's workspace and title, from its first
 * {@linkcode HEAD_BYTES}; undefined when it has no session line there or
 * cannot be read.
 */
function sessionHead(
  path: string,
): { cwd: string; title?: string } | undefined {
  let text: string;
  try {
    const file = Deno.openSync(path);
    try {
      const buffer = new Uint8Array(HEAD_BYTES);
      let filled = 0;
      while (filled < buffer.length) {
        const n = file.readSync(buffer.subarray(filled));
        if (n === null) break;
        filled += n;
      }
      text = new TextDecoder().decode(buffer.subarray(0, filled));
    } finally {
      file.close();
    }
  } catch {
    return undefined;
  }
  let cwd: string | undefined;
  let title: string | undefined;
  for (const line of text.split("\n")) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // cut short by the head's end, or by a crash
    }
    if (entry?.type === "session" && typeof entry.cwd === "string") {
      cwd ??= entry.cwd;
    } else if (
      entry?.type === "user" && !entry.isMeta && title === undefined
    ) {
      title = promptTitle(entry.message?.content);
    }
    if (cwd !== undefined && title !== undefined) break;
  }
  return cwd === undefined ? undefined : { cwd, title };
}

/** The first non-empty line of a prompt's text, cut to {@linkcode TITLE_CHARS}. */
function promptTitle(content: unknown): string | undefined {
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.filter((b) => b?.type === "text" && typeof b.text === "string")
      .map((b) => b.text).join("\n")
    : "";
  const line = text.split("\n").map((l: string) => l.trim()).find((l) =>
    l !== ""
  );
  if (line === undefined) return undefined;
  return line.length > TITLE_CHARS
    ? `${line.slice(0, TITLE_CHARS - 1)}…`
    : line;
}
