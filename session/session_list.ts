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
  /** Its session id (a name `session/load` takes). */
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
  /** At most a page of them, newest first. */
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
const LISTING_MS = 60_000;

/** How many listings are kept for the pages after their first (several clients, or views, page at once). */
const LISTINGS_KEPT = 8;

/**
 * The sessions of one `WAVE_HOME`. A first page (no cursor) lists the
 * directory afresh; the pages after it walk that listing (its number is
 * in their cursor), for up to {@linkcode LISTING_MS}, so a cursor names a
 * place in one order, whatever other first pages came meanwhile; a
 * listing gone or too old is taken afresh. What each transcript's head
 * says is kept between calls and checked against the file each time: a
 * head with a workspace and a title stays while the file is the same one
 * (inode and birth) and has not shrunk; any other is read again once the
 * file's size or change time moved. A transcript gone since its listing
 * is left out.
 */
export class SessionList {
  #dir: string;
  #heads = new Map<string, { file: FileKey; head: TranscriptHead }>();
  #listings = new Map<number, { at: number; transcripts: TranscriptFile[] }>();
  #listed = 0;
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
    let listing = after && this.#listings.get(after.listing);
    let number = after?.listing ?? 0;
    if (!listing || performance.now() - listing.at >= LISTING_MS) {
      const found = await this.#transcripts();
      // Newest first; among those changed at once, by id: a stable order
      // the cursor can name a place in.
      found.sort((a, b) => b.mtime - a.mtime || (a.id < b.id ? -1 : 1));
      number = ++this.#listed;
      listing = { at: performance.now(), transcripts: found };
      this.#listings.set(number, listing);
      this.#listings.delete(number - LISTINGS_KEPT);
    }
    const found = listing.transcripts;
    const sessions: ListedSession[] = [];
    let last: TranscriptFile | undefined;
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
        return { sessions, nextCursor: cursorOf(last!, number) };
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
  async #transcripts(): Promise<TranscriptFile[]> {
    const found: TranscriptFile[] = [];
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

  /**
   * What the transcript's head says now, read again once the file
   * changed; undefined when it is gone or cannot be read.
   */
  #headOf(transcript: TranscriptFile): TranscriptHead | undefined {
    let file: FileKey;
    try {
      const info = Deno.statSync(transcript.path);
      file = {
        ino: info.ino ?? 0,
        born: info.birthtime?.getTime() ?? 0,
        size: info.size,
        mtime: info.mtime?.getTime() ?? 0,
      };
    } catch {
      return undefined; // gone since it was listed
    }
    const known = this.#heads.get(transcript.path);
    if (
      known && known.file.ino === file.ino && known.file.born === file.born &&
      file.size >= known.file.size
    ) {
      const whole = known.head.cwd !== undefined &&
        known.head.title !== undefined;
      // Appends change nothing a whole head says; before it is whole, the
      // same size and time mean nothing was appended.
      if (
        whole ||
        (known.file.size === file.size && known.file.mtime === file.mtime)
      ) return known.head;
    }
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
    this.#heads.set(transcript.path, { file, head });
    return head;
  }
}

/** What tells one state of a transcript file from another. */
interface FileKey {
  ino: number;
  /** Its birth time: a file made again under the name may get the same inode. */
  born: number;
  size: number;
  mtime: number;
}

/** A transcript file found in the directory. */
interface TranscriptFile {
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

/** The cursor after `place` in listing `listing` (a session id holds no colon). */
function cursorOf(
  place: { id: string; mtime: number },
  listing: number,
): string {
  return `${place.mtime}:${place.id}:${listing}`;
}

function parseCursor(
  cursor: string,
): { id: string; mtime: number; listing: number } {
  const match = /^(\d+):([^:]+):(\d+)$/.exec(cursor);
  if (!match) {
    throw new Error(
      `not a cursor of wave's session list: ${
        JSON.stringify(cursor.slice(0, 80))
      }`,
    );
  }
  return { mtime: Number(match[1]), id: match[2], listing: Number(match[3]) };
}
