/**
 * File history: the one snapshot layer of the runtime. Every change any
 * tool of any dialect makes to a file (the write path, `write_path.ts`,
 * and edit_file) first records what the file held, so the change can be
 * listed (file_history) and undone (edit_file restore, devflow's
 * restore_file), also by a later session on the same workspace.
 *
 * Paths are opened, listed, linked and removed with synchronous calls, on
 * the tool's own thread: the one a kernel file boundary holds.
 *
 * Layout, per workspace, under `WAVE_HOME/history/<key>/` (`key`: the
 * first 16 hex digits of the SHA-256 of the workspace's real path):
 * - `index.jsonl`: one {@linkcode Version} a line, appended. A line cut
 *   short by a crash is skipped when read, and the next append starts on
 *   a line of its own.
 * - `blobs/<hash>`: a version's bytes, stored once by content hash (two
 *   versions with the same bytes share one blob), written atomically
 *   before the index line that names it. `hash` is the content hash
 *   (`content_hash.ts`, XXH3-128; `sha256` in history recorded before
 *   it); a blob is shared only after its bytes are compared, and bytes
 *   that differ from the blob of their hash (a collision) go to
 *   `<hash>-1`, `<hash>-2`, ….
 * - `rollbacks/<id>.json`: the journal of a multi-file restore in
 *   progress; one left by a crash is undone by {@linkcode recoverRollbacks}.
 * - `lock`: a shared `flock` while a version is recorded, an exclusive one
 *   while retention rewrites the index.
 *
 * Retention ({@linkcode HistoryLimits}): versions older than the age
 * budget go, then the oldest until the blobs fit the size budget; blobs no
 * version names are deleted.
 *
 * @module
 */

import { join } from "../kernel/posix_path.ts";
import { atomicWrite } from "../kernel/atomic_write.ts";
import { hiddenTest } from "../kernel/hidden.ts";
import { readFileBytesSync } from "../kernel/read_file.ts";
import { displayPath } from "../kernel/workspace.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { sameBytes } from "./bytes.ts";
import { contentHash } from "./content_hash.ts";
import { historyDir } from "./history_dir.ts";

/** The task a change happened in: a user turn, or what a parent named with `set_task`. */
export interface HistoryTask {
  /** Stable for the whole task. */
  id: string;
  /** What the task was for: the first line of the user's message, at most 200 characters. */
  goal: string;
}

/** How much history a workspace keeps. */
export interface HistoryLimits {
  /** Versions older than this go (ms). */
  maxAgeMs: number;
  /** The blobs of a workspace's history stay under this many bytes. */
  maxBytes: number;
}

/** Default retention: 30 days, 1 GiB per workspace (`--history-max-age`, `--history-max-bytes`). */
export const DEFAULT_HISTORY_LIMITS: HistoryLimits = {
  maxAgeMs: 30 * 24 * 3600 * 1000,
  maxBytes: 1024 * 1024 * 1024,
};

/** One recorded version: what a file held just before a tool changed it. */
export interface Version {
  /** Unique in the workspace's history. */
  id: string;
  /** The real path of the file. */
  path: string;
  /** When it was recorded (just before the change), ISO 8601 UTC. */
  at: string;
  /** The tool whose change it precedes. */
  tool: string;
  /** The task the change happened in. */
  task: HistoryTask;
  /** The session that recorded it. */
  session: string;
  /** Whether the file existed then (a version of a file that did not is restored by removing it). */
  existed: boolean;
  /** Its size in bytes (0 when it did not exist). */
  size: number;
  /**
   * The name of its blob: the content hash of its bytes (with `-N` after
   * it in the case of a collision, see the module's doc); `null` when it
   * did not exist.
   */
  hash: string | null;
}

/** What of a tool's context history needs. */
export type HistoryContext =
  & Pick<
    ToolContext,
    "workspace" | "waveHome" | "sessionId"
  >
  & {
    readonly task?: HistoryTask;
    readonly historyLimits?: HistoryLimits;
  };

/** The task of a call: the context's, else the session's own. */
export function taskOf(ctx: HistoryContext): HistoryTask {
  return ctx.task ?? { id: `session-${ctx.sessionId}`, goal: "" };
}

const blobPath = (dir: string, hash: string) => join(dir, "blobs", hash);

/**
 * Of `versions` (in their order), those a tool may show or restore: of
 * files no `Read` deny rule covers (`ctx.hidden`). A version keeps what its
 * file held, and its path is a name the rule keeps from the model too.
 */
export function shownVersions(
  ctx: Pick<ToolContext, "workspace" | "hidden">,
  versions: readonly Version[],
): Version[] {
  const hidden = hiddenTest(ctx.hidden ?? [], ctx.workspace);
  return versions.filter((v) => !hidden(v.path));
}

/** Every version recorded for the workspace, oldest first; lines cut short are skipped. */
export function listVersions(
  ctx: Pick<HistoryContext, "workspace" | "waveHome">,
): Promise<Version[]> {
  try {
    return Promise.resolve(
      parseIndex(Deno.readTextFileSync(join(historyDir(ctx), "index.jsonl"))),
    );
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return Promise.resolve([]);
    return Promise.reject(error);
  }
}

function parseIndex(text: string): Version[] {
  const versions: Version[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as Version;
      if (
        typeof v?.id === "string" && typeof v.path === "string" &&
        typeof v.at === "string" && typeof v.existed === "boolean"
      ) versions.push(v);
    } catch { /* a line cut short by a crash */ }
  }
  return versions;
}

async function withLock<T>(
  dir: string,
  exclusive: boolean,
  work: () => Promise<T>,
): Promise<T> {
  Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  using lock = Deno.openSync(join(dir, "lock"), {
    read: true,
    write: true,
    create: true,
  });
  // Taken at once when free (nearly always: only retention takes it
  // exclusively, briefly); otherwise waited for off this thread.
  if (!lock.tryLockSync(exclusive)) await lock.lock(exclusive);
  try {
    return await work();
  } finally {
    try {
      lock.unlockSync();
    } catch { /* closed with the file below all the same */ }
  }
}

/** Options of {@linkcode recordVersion}. */
export interface RecordOptions {
  /** The content hash of `bytes` (`content_hash.ts`), when the caller knows it already. */
  hash?: string;
  /**
   * The file that holds `bytes` now and is about to be replaced by a
   * rename (never written in place), with no other link: its inode becomes
   * the blob by a hard link, so nothing is copied. Where it cannot be
   * linked (another file system), the bytes are copied.
   */
  linkFrom?: string;
}

/** A version just recorded, and whether its blob is a link to the file it was taken from. */
export interface Recorded {
  version: Version;
  /** The blob is the file's own inode: {@linkcode detachBlob} if the file is not replaced after all. */
  linked: boolean;
}

/**
 * Records what `real` holds now, `bytes` (`null`: nothing, the change
 * creates it), before `tool` changes it, in the context's task. The blob is
 * written (atomically) before the index line; then retention runs. Returns
 * the version.
 */
export async function recordVersion(
  ctx: HistoryContext,
  real: string,
  tool: string,
  bytes: Uint8Array | null,
  options: RecordOptions = {},
): Promise<Version> {
  return (await recordLinked(ctx, real, tool, bytes, options)).version;
}

/** {@linkcode recordVersion}, saying whether the blob was linked from `options.linkFrom`. */
export async function recordLinked(
  ctx: HistoryContext,
  real: string,
  tool: string,
  bytes: Uint8Array | null,
  options: RecordOptions = {},
): Promise<Recorded> {
  const dir = historyDir(ctx);
  const hash = bytes === null ? null : options.hash ?? contentHash(bytes);
  const version: Version = {
    id: `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`,
    path: real,
    at: new Date().toISOString(),
    tool,
    task: taskOf(ctx),
    session: ctx.sessionId,
    existed: bytes !== null,
    size: bytes?.length ?? 0,
    hash,
  };
  let linked = false;
  await withLock(dir, false, async () => {
    if (bytes !== null && hash !== null) {
      const { name, had } = blobFor(dir, hash, bytes);
      version.hash = name;
      const blob = blobPath(dir, name);
      if (!had && options.linkFrom) {
        Deno.mkdirSync(join(dir, "blobs"), { recursive: true });
        try {
          Deno.linkSync(options.linkFrom, blob);
          linked = true;
        } catch { /* another file system, or not allowed: copied below */ }
      }
      if (!had && !linked) {
        await atomicWrite(blob, bytes, { createParents: true });
      }
    }
    appendLine(join(dir, "index.jsonl"), version);
  });
  if (pruneDue(ctx, dir, version.size)) {
    await prune(ctx).catch(() => {}); // retention never fails a change
  }
  return { version, linked };
}

/**
 * The blob `bytes` go to: the first of `hash`, `hash-1`, `hash-2`, … that
 * holds exactly these bytes (`had`: stored already) or does not exist. A
 * blob of another size, or of the same size and other bytes, is a
 * collision of the content hash, and is left to its versions.
 */
function blobFor(
  dir: string,
  hash: string,
  bytes: Uint8Array,
): { name: string; had: boolean } {
  for (let n = 0;; n++) {
    const name = n === 0 ? hash : `${hash}-${n}`;
    let size: number;
    try {
      size = Deno.statSync(blobPath(dir, name)).size;
    } catch {
      return { name, had: false }; // not stored yet
    }
    if (
      size === bytes.length &&
      sameBytes(Deno.readFileSync(blobPath(dir, name)), bytes)
    ) return { name, had: true };
  }
}

/** How often retention runs at most, per workspace and thread, unless much was recorded. */
const PRUNE_INTERVAL_MS = 60_000;
/** Per history directory: when retention last ran here, and the bytes recorded since. */
const sincePrune = new Map<string, { at: number; bytes: number }>();

/**
 * Whether retention should run after recording `size` bytes: a minute
 * after it last ran in this thread, or once the bytes recorded since reach
 * a sixteenth of the size budget. Reading the whole index on every change
 * would cost more as history grows.
 */
function pruneDue(ctx: HistoryContext, dir: string, size: number): boolean {
  const limits = ctx.historyLimits ?? DEFAULT_HISTORY_LIMITS;
  const now = Date.now();
  const last = sincePrune.get(dir);
  const bytes = (last?.bytes ?? 0) + size;
  if (
    last && now - last.at < PRUNE_INTERVAL_MS && bytes < limits.maxBytes / 16
  ) {
    sincePrune.set(dir, { at: last.at, bytes });
    return false;
  }
  if (sincePrune.size >= 1024) sincePrune.clear();
  sincePrune.set(dir, { at: now, bytes: 0 });
  return true;
}

/**
 * Makes a linked blob a copy of its own (`bytes`, what it holds): for a
 * version whose file was, after all, not replaced, and may be written in
 * place later.
 */
export async function detachBlob(
  ctx: Pick<HistoryContext, "workspace" | "waveHome">,
  version: Version,
  bytes: Uint8Array,
): Promise<void> {
  if (version.hash) {
    await atomicWrite(blobPath(historyDir(ctx), version.hash), bytes);
  }
}

/** Appends one line, on a line of its own even after a torn one. */
function appendLine(path: string, version: Version): void {
  using index = Deno.openSync(path, {
    read: true,
    append: true,
    create: true,
  });
  const size = index.statSync().size;
  let lead = "";
  if (size > 0) {
    const last = new Uint8Array(1);
    index.seekSync(size - 1, Deno.SeekMode.Start);
    index.readSync(last);
    if (last[0] !== 0x0a) lead = "\n";
  }
  const line = new TextEncoder().encode(lead + JSON.stringify(version) + "\n");
  for (let at = 0; at < line.length;) at += index.writeSync(line.subarray(at));
}

/**
 * Applies the retention budget to the workspace's history: versions older
 * than `maxAgeMs` go, then the oldest until the blobs that remain fit
 * `maxBytes`; blobs no remaining version (nor a rollback in progress)
 * names are deleted. Returns the ids of the versions dropped.
 */
export async function prune(ctx: HistoryContext): Promise<string[]> {
  const limits = ctx.historyLimits ?? DEFAULT_HISTORY_LIMITS;
  const dir = historyDir(ctx);
  return await withLock(dir, true, async () => {
    const versions = await listVersions(ctx);
    const now = Date.now();
    const sizes = new Map<string, number>();
    for (const v of versions) if (v.hash) sizes.set(v.hash, v.size);
    let total = [...sizes.values()].reduce((a, b) => a + b, 0);
    const refs = new Map<string, number>();
    for (const v of versions) {
      if (v.hash) refs.set(v.hash, (refs.get(v.hash) ?? 0) + 1);
    }
    const dropped = new Set<string>();
    for (const v of versions) {
      const old = now - Date.parse(v.at) > limits.maxAgeMs;
      if (!old && total <= limits.maxBytes) break;
      dropped.add(v.id);
      if (v.hash) {
        const left = refs.get(v.hash)! - 1;
        refs.set(v.hash, left);
        if (left === 0) total -= v.size;
      }
    }
    if (dropped.size === 0) return [];
    const kept = versions.filter((v) => !dropped.has(v.id));
    await atomicWrite(
      join(dir, "index.jsonl"),
      kept.map((v) => JSON.stringify(v) + "\n").join(""),
    );
    const named = new Set(kept.map((v) => v.hash));
    for (const journal of readJournals(dir)) {
      for (const entry of journal.files) named.add(entry.before.hash);
    }
    for (const entry of Deno.readDirSync(join(dir, "blobs"))) {
      if (entry.isFile && !named.has(entry.name)) {
        try {
          Deno.removeSync(join(dir, "blobs", entry.name));
        } catch { /* gone already */ }
      }
    }
    return [...dropped];
  });
}

/** The bytes of a version (`null` for a version in which the file did not exist). */
export function versionBytes(
  ctx: Pick<HistoryContext, "workspace" | "waveHome">,
  version: Version,
): Promise<Uint8Array | null> {
  if (!version.existed || !version.hash) return Promise.resolve(null);
  try {
    return Promise.resolve(
      Deno.readFileSync(blobPath(historyDir(ctx), version.hash)),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What a file holds: its bytes, or nothing. */
interface FileState {
  existed: boolean;
  hash: string | null;
}

/** A restore in progress: each file's state before it, to put back after a crash. */
interface Journal {
  id: string;
  files: { path: string; before: FileState }[];
}

/** One file of a {@linkcode restoreFiles} call: its real path and the bytes it gets (`null`: removed). */
export interface RestoreStep {
  real: string;
  bytes: Uint8Array | null;
}

/** A restore that failed, every file put back: which file could not be changed, and why. */
export class RestoreFailed extends Error {
  /** The real path of the file that could not be changed. */
  readonly path: string;
  /** Why (the file system's error). */
  override readonly cause: unknown;
  constructor(path: string, cause: unknown) {
    super(`could not restore ${path}: ${(cause as Error)?.message ?? cause}`);
    this.path = path;
    this.cause = cause;
  }
}

/** Options of {@linkcode restoreFiles}. */
export interface RestoreOptions {
  /** The tool restoring, for the versions recorded. */
  tool: string;
  /** Fault-injection seam for tests: runs before step `index` is applied. */
  beforeStep?: (index: number) => Promise<void> | void;
}

/**
 * Puts several files in the states `steps` give, in one step that either
 * completes or leaves every file as it was. Each file's present state is
 * recorded as a version first (so the restore can be undone too), then a
 * journal naming those states is written atomically, then the files are
 * changed one by one (atomic writes, removals). A failure puts back the
 * files already changed and throws {@linkcode RestoreFailed}; a crash
 * leaves the journal, which
 * {@linkcode recoverRollbacks} undoes. Returns the versions recorded.
 */
export async function restoreFiles(
  ctx: HistoryContext,
  steps: readonly RestoreStep[],
  options: RestoreOptions,
): Promise<Version[]> {
  const dir = historyDir(ctx);
  for (const step of steps) {
    // What a link points at is another file's content, which the version
    // kept of this one would copy (a link to a file a Read rule covers,
    // made since by a command); and history keeps files, not links.
    let link = false;
    try {
      link = Deno.lstatSync(step.real).isSymlink;
    } catch { /* not there: nothing to keep */ }
    if (link) {
      throw new ToolError(
        `${
          displayPath(ctx.workspace, step.real)
        } is a symbolic link now, which file history does not keep, so it was not restored over; remove the link first. Nothing was restored.`,
        { type: "restore_failed" },
      );
    }
  }
  const recorded: Version[] = [];
  for (const step of steps) {
    recorded.push(
      await recordVersion(
        ctx,
        step.real,
        options.tool,
        readOrNull(step.real),
      ),
    );
  }
  const journal: Journal = {
    id: `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`,
    files: recorded.map((v) => ({
      path: v.path,
      before: { existed: v.existed, hash: v.hash },
    })),
  };
  const journalPath = join(dir, "rollbacks", `${journal.id}.json`);
  await atomicWrite(journalPath, JSON.stringify(journal), {
    createParents: true,
  });
  // Held while the restore runs: a recovery in another session waits for it.
  using held = Deno.openSync(journalPath, { read: true });
  await held.lock(true);
  let applied = 0;
  try {
    for (const [i, step] of steps.entries()) {
      await options.beforeStep?.(i);
      await putState(step.real, step.bytes);
      applied = i + 1;
    }
  } catch (error) {
    // Put back what changed; should that fail too, the journal stays for
    // recoverRollbacks to try again.
    if (
      await undoJournal(ctx, journal, applied + 1).then(() => true, () => false)
    ) {
      try {
        Deno.removeSync(journalPath);
      } catch { /* gone already */ }
    }
    throw new RestoreFailed(steps[applied].real, error);
  }
  Deno.removeSync(journalPath);
  return recorded;
}

function readOrNull(real: string): Uint8Array | null {
  try {
    return readFileBytesSync(real);
  } catch (error) {
    // A parent that is a file now: the file is not there either.
    if (
      error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.NotADirectory
    ) return null;
    throw error;
  }
}

async function putState(real: string, bytes: Uint8Array | null) {
  if (bytes === null) {
    try {
      Deno.removeSync(real);
    } catch (error) {
      if (
        !(error instanceof Deno.errors.NotFound) &&
        !(error instanceof Deno.errors.NotADirectory)
      ) throw error;
    }
  } else await atomicWrite(real, bytes, { createParents: true });
}

/** Puts the first `count` files of a journal back in their states before it; throws the first failure after trying every file. */
async function undoJournal(
  ctx: HistoryContext,
  journal: Journal,
  count = journal.files.length,
): Promise<void> {
  let failure: unknown;
  for (const entry of journal.files.slice(0, count)) {
    try {
      const bytes = entry.before.existed && entry.before.hash
        ? Deno.readFileSync(blobPath(historyDir(ctx), entry.before.hash))
        : null;
      await putState(entry.path, bytes);
    } catch (error) {
      failure ??= error; // the others are still put back
    }
  }
  if (failure !== undefined) throw failure;
}

function readJournals(dir: string): Journal[] {
  const journals: Journal[] = [];
  try {
    for (const entry of Deno.readDirSync(join(dir, "rollbacks"))) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      try {
        journals.push(
          JSON.parse(
            Deno.readTextFileSync(join(dir, "rollbacks", entry.name)),
          ),
        );
      } catch { /* removed meanwhile, or written by no one we know */ }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return journals;
}

/**
 * Undoes every restore a crash cut short in the context's workspace: each
 * file its journal names goes back to the state it had before that
 * restore began, and the journal is removed. A restore still running in
 * another session is waited for (its journal is locked), not undone.
 * Returns the real paths put back.
 */
export async function recoverRollbacks(ctx: HistoryContext): Promise<string[]> {
  const dir = join(historyDir(ctx), "rollbacks");
  const restored: string[] = [];
  let names: string[];
  try {
    names = [];
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  for (const name of names) {
    const path = join(dir, name);
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch {
      continue;
    }
    try {
      await file.lock(true);
      // Finished while we waited: its writer removed it.
      let still = true;
      try {
        Deno.statSync(path);
      } catch {
        still = false;
      }
      if (!still) continue;
      const journal = JSON.parse(Deno.readTextFileSync(path)) as Journal;
      await undoJournal(ctx, journal);
      Deno.removeSync(path);
      restored.push(...journal.files.map((f) => f.path));
    } catch {
      /* unreadable: left for a later look */
    } finally {
      file.close();
    }
  }
  return restored;
}

/**
 * The state of every file a task changed before the task began: for each
 * path, the earliest version recorded in the task. Paths in the order the
 * task first changed them.
 */
export function taskStart(
  versions: readonly Version[],
  taskId: string,
): Version[] {
  const first = new Map<string, Version>();
  for (const v of versions) {
    if (v.task?.id === taskId && !first.has(v.path)) first.set(v.path, v);
  }
  return [...first.values()];
}
