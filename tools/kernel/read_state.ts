/**
 * Read-state: what this session has read of each file, so Edit and Write
 * can refuse blind or stale writes and Read can answer "unchanged".
 *
 * The main thread owns the {@linkcode ReadState}. A tool call gets a
 * {@linkcode CallReadState} holding the records of the paths it named, and
 * its changes are applied back when it returns.
 *
 * @module
 */

/** What one read recorded. */
export interface ReadRecord {
  /** The file's mtime (ms since the epoch) when it was read. */
  mtimeMs: number;
  /** Its size in bytes. */
  size: number;
  /** The content hash of its bytes (XXH3-128, hex: tools/_core/content_hash.ts); whole reads only (partial reads never compare content). */
  hash?: string;
  /** The whole file was read (no offset or limit); a ranged read is partial. */
  whole: boolean;
  /** The range read, as the reading dialect counts it, for "unchanged" replies. */
  range?: { offset: number; limit: number };
  /** Which dialect's read made the record (ranges are only compared within one). */
  reader?: string;
  /**
   * The content came from the editor's buffer (`ctx.buffers`), not the
   * disk: `hash` is of its text (UTF-8), the whole buffer, and only that
   * hash says whether it changed since (the disk's mtime and size do not).
   */
  buffer?: boolean;
}

/** Read-state as a tool sees it during one call: the session's records for its paths, and its changes. */
export interface ReadStateView {
  /** The session's record for a real path, if this session has read it. */
  get(realPath: string): ReadRecord | undefined;
  /** Records a read (or a write that leaves the tool knowing the content). */
  record(realPath: string, record: ReadRecord): void;
  /** Forgets a path (it was removed or replaced by something unknown). */
  forget(realPath: string): void;
}

/** A change a call made to the read-state: a record, or `null` to forget. */
export type ReadStateChanges = Record<string, ReadRecord | null>;

/** The session's read-state, keyed by real path. */
export class ReadState {
  #records = new Map<string, ReadRecord>();

  /** The record of a real path. */
  get(path: string): ReadRecord | undefined {
    return this.#records.get(path);
  }

  /** The records of the given paths that exist, for one call. */
  snapshot(paths: Iterable<string>): Record<string, ReadRecord> {
    const out: Record<string, ReadRecord> = {};
    for (const path of paths) {
      const record = this.#records.get(path);
      if (record) out[path] = record;
    }
    return out;
  }

  /** Applies a call's changes. */
  apply(changes: ReadStateChanges): void {
    for (const [path, record] of Object.entries(changes)) {
      if (record === null) this.#records.delete(path);
      else this.#records.set(path, record);
    }
  }
}

/**
 * One call's view of the read-state. Paths the call did not declare are not
 * in its snapshot: `get` returns `undefined` for them, which tools treat as
 * "not read".
 */
export class CallReadState implements ReadStateView {
  #records: Record<string, ReadRecord>;
  #changes: ReadStateChanges = {};

  constructor(snapshot: Record<string, ReadRecord>) {
    this.#records = { ...snapshot };
  }

  get(path: string): ReadRecord | undefined {
    return this.#records[path];
  }

  record(path: string, record: ReadRecord): void {
    this.#records[path] = record;
    this.#changes[path] = record;
  }

  forget(path: string): void {
    delete this.#records[path];
    this.#changes[path] = null;
  }

  /** What the call changed, to be applied by the main thread. */
  changes(): ReadStateChanges {
    return this.#changes;
  }
}
