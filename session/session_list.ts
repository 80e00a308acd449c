/**
 * The sessions whose transcripts are in `WAVE_HOME/sessions`, newest
 * first, a page at a time (ACP's `session/list`): what an editor shows as
 * its history, to load or resume one.
 *
 * @module
 */

import { SESSION_ID } from "./transcript_claim.ts";
import {
  parseTranscriptHead,
  readTranscriptHead,
  type TranscriptHead,
} from "./transcript_head.ts";

/** One session as a list shows it. */
export interface ListedSession {
  id: string;
  /** The workspace it ran in (its transcript's session line). */
  cwd: string;
  /** The first line of its first prompt (`TranscriptHead.title`); absent when none was found. */
  title?: string;
  /** When its transcript last changed (ISO 8601). */
  updatedAt: string;
}

/** One page of {@linkcode SessionList.page}. */
export interface SessionPage {
  sessions: ListedSession[];
  /** Where the next page starts; absent on the last. */
  nextCursor?: string;
}

/** How many sessions a page holds. */
export const SESSIONS_PER_PAGE = 50;

/**
 * How much of a transcript is read first: its session line and first
 * prompt are its first two lines, and most prompts are short. The rest of
 * the head is read only when they are not in it.
 */
const FIRST_READ_BYTES = 4096;

/**
 * How long the list works before it lets the event loop turn: its file
 * operations are synchronous (each costs a few microseconds, where an
 * asynchronous one costs a hundred), so a large directory must not hold
 * every other session's updates meanwhile.
 */
const WORK_MS_PER_TURN = 8;

/** How long a listing taken for a first page serves the pages after it. */
const SNAPSHOT_MS = 60_000;

/**
 * The sessions of one `WAVE_HOME`. A first page (no cursor) lists the
 * directory afresh; the pages after it walk that listing, for up to
 * {@linkcode SNAPSHOT_MS}, so a cursor names a place in one order. What
 * each transcript's head says is kept between calls: a head with a
 * workspace and a title is final (a transcript only grows), any other is
 * read again once its file changed; a transcript gone is forgotten at the
 * next fresh listing.
 */
export class SessionList {
  #dir: string;
  #heads = new Map<string, { mtime: number; head: TranscriptHead }>();
  #snapshot: { at: number; transcripts: Transcript[] } | undefined;
  #turnedAt = 0;

  /** The list of the sessions in `waveHome/sessions`. */
  constructor(waveHome: string) {
    this.#dir = `${waveHome}/sessions`;
  }

  /**
   * The sessions (of workspace `cwd` only, when given), newest first, a
   * page from `cursor` (a previous page's `nextCursor`). A transcript
   * whose name is not a session id, with no session line yet (no turn
   * started), or that cannot be read is left out. Rejects a cursor not
   * of the form this makes.
   */
  async page(
    options: { cwd?: string; cursor?: string; perPage?: number } = {},
  ): Promise<SessionPage> {
    const after = options.cursor === undefined
      ? undefined
      : parseCursor(options.cursor);
    const perPage = options.perPage ?? SESSIONS_PER_PAGE;
    this.#turnedAt = performance.now();
    const snapshot = this.#snapshot;
    let found: Transcript[];
    if (after && snapshot && performance.now() - snapshot.at < SNAPSHOT_MS) {
      found = snapshot.transcripts;
    } else {
      found = await this.#transcripts();
      // Newest first; among those changed at once, by id: a stable order
      // the cursor can name a place in.
      found.sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? -1 : 1));
      this.#snapshot = { at: performance.now(), transcripts: found };
    }
    const sessions: ListedSession[] = [];
    let last: Transcript | undefined;
    for (const candidate of found) {
      if (after && !comesAfter(candidate, after)) continue;
      await this.#breathe();
      const head = this.#headOf(candidate);
      if (
        head?.cwd === undefined ||
        (options.cwd !== undefined && head.cwd !== options.cwd)
      ) continue;
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

  /** Lets the event loop turn when the list has worked {@linkcode WORK_MS_PER_TURN} since it last did. */
  async #breathe(): Promise<void> {
    if (performance.now() - this.#turnedAt < WORK_MS_PER_TURN) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#turnedAt = performance.now();
  }

  /** Every transcript in the directory with its change time; the heads of those gone are forgotten. */
  async #transcripts(): Promise<Transcript[]> {
    const found: Transcript[] = [];
    const names: string[] = [];
    try {
      for (const entry of Deno.readDirSync(this.#dir)) {
        if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
        const id = entry.name.slice(0, -".jsonl".length);
        // A name `session/load` would refuse is no session to offer.
        if (SESSION_ID.test(id)) names.push(id);
      }
    } catch { /* no sessions yet */ }
    for (const id of names) {
      await this.#breathe();
      const path = `${this.#dir}/${id}.jsonl`;
      try {
        const mtime = Deno.statSync(path).mtime?.getTime() ?? 0;
        found.push({ id, path, mtime });
      } catch { /* gone meanwhile */ }
    }
    const present = new Set(found.map((t) => t.path));
    for (const path of this.#heads.keys()) {
      if (!present.has(path)) this.#heads.delete(path);
    }
    return found;
  }

  /** What the transcript's head says, read once it changed; undefined when it cannot be read. */
  #headOf(transcript: Transcript): TranscriptHead | undefined {
    const known = this.#heads.get(transcript.path);
    if (
      known &&
      (known.mtime === transcript.mtime ||
        (known.head.cwd !== undefined && known.head.title !== undefined))
    ) return known.head;
    let head: TranscriptHead;
    try {
      const first = readTranscriptHead(transcript.path, FIRST_READ_BYTES);
      head = parseTranscriptHead(first.text);
      if (
        !first.whole && (head.cwd === undefined || head.title === undefined)
      ) {
        head = parseTranscriptHead(readTranscriptHead(transcript.path).text);
      }
    } catch {
      return undefined;
    }
    this.#heads.set(transcript.path, { mtime: transcript.mtime, head });
    return head;
  }
}

/** A transcript file found in the directory. */
interface Transcript {
  id: string;
  path: string;
  mtime: number;
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
