/**
 * The atomic writer: every file wave writes, in the workspace or under
 * `WAVE_HOME`, goes through {@linkcode atomicWrite} (spec 000 "原子写").
 *
 * Its second names, beside the target in the same directory:
 * `.NAME.XXXXXXXX.wave-tmp` (the new bytes, until the rename) and
 * `.NAME.XXXXXXXX.wave-old` (a large replaced file, until it is freed),
 * `XXXXXXXX` being 8 random hex digits and NAME the target's name (cut to
 * fit the file system's 255 bytes). A writer holds an exclusive `flock` on
 * its temp file until the rename is done, and the kernel drops that lock
 * when the writer dies, even by `kill -9`: a temp file no process holds is
 * a leftover, which {@linkcode sweepLeftovers} removes.
 *
 * @module
 */

import { basename, dirname, join } from "./posix_path.ts";
import { pinWritten } from "./checked_files.ts";
import { nodeFs } from "./regular_file.ts";

/** The steps a test can make fail. The default is the real file system. */
export interface AtomicFs {
  /** Default: `file.writeSync(chunk)` (see {@linkcode atomicWrite}). */
  write(file: Deno.FsFile, chunk: Uint8Array): Promise<number>;
  /** Default: `Deno.renameSync`. */
  rename(from: string, to: string): Promise<void>;
  /** Default: `Deno.linkSync`. */
  link?(from: string, to: string): Promise<void>;
}

const realFs: AtomicFs = {
  // Synchronous: an asynchronous write hops to Deno's blocking pool and
  // back once per chunk, and the calling thread waits for it all the same
  // (a 10 MB patch's 101 chunks took 8–9 ms that way, 3 ms like this).
  write: (file, chunk) => Promise.resolve(file.writeSync(chunk)),
  rename: (from, to) => Promise.resolve(Deno.renameSync(from, to)),
};

/** Options of {@linkcode atomicWrite}. */
export interface AtomicWriteOptions {
  /** File mode for the result. Default: the existing file's mode, else 0o666 less the umask. */
  mode?: number;
  /** Create missing parent directories first. */
  createParents?: boolean;
  /** Fault-injection seam for tests. */
  fs?: AtomicFs;
  /**
   * Work to run while the data is flushed to disk (the fsync is the slowest
   * step of a large write): hashing, diffing. It runs only on a write that
   * got as far as the flush.
   */
  whileFlushing?: () => void;
  /**
   * Work that must be done after the new bytes are on disk and before they
   * replace the target (file history records the old content there). If it
   * throws, the target keeps its old bytes and the error is rethrown.
   */
  beforeRename?: () => Promise<void>;
}

/** What an atomic write replaced. */
export interface AtomicWriteResult {
  /** Whether a file existed at the path before. */
  existed: boolean;
  /** Its size before, when it existed. */
  previousSize?: number;
  /**
   * Settles when the replaced file is freed. A large one is freed in the
   * background (see {@linkcode RELEASE_IN_BACKGROUND}); never rejects.
   */
  released: Promise<void>;
}

/**
 * Writes `data` (text, bytes, or byte chunks written in order) to `path`
 * so that no reader ever sees a partial file: the bytes go to a temp file
 * in the same directory, are fsynced, and the temp file is renamed over the
 * target.
 *
 * Guarantees: on success the target holds exactly `data` with the existing
 * file's mode (or `options.mode`); on any failure (permission, read-only
 * directory, full disk, a failing rename) the target keeps its old bytes,
 * the temp file is removed, and the error is rethrown.
 *
 * @example
 * ```ts
 * import { atomicWrite } from "@wave/wave";
 *
 * const dir = await Deno.makeTempDir();
 * const result = await atomicWrite(`${dir}/notes.txt`, "first\n");
 * console.assert(result.existed === false);
 * await atomicWrite(`${dir}/notes.txt`, [new TextEncoder().encode("second\n")]);
 * console.assert(Deno.readTextFileSync(`${dir}/notes.txt`) === "second\n");
 * ```
 */
export async function atomicWrite(
  path: string,
  data: Uint8Array | string | readonly Uint8Array[],
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteResult> {
  const fs = options.fs ?? realFs;
  const chunks = typeof data === "string"
    ? [new TextEncoder().encode(data)]
    : data instanceof Uint8Array
    ? [data]
    : data;
  const dir = dirname(path);
  if (options.createParents) {
    try {
      Deno.mkdirSync(dir, { recursive: true });
    } catch (error) {
      // mkdir -p meets a file where a directory should be.
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new Deno.errors.NotADirectory(`a parent of ${path} is a file`);
      }
      throw error;
    }
  }

  // The file system calls of a write are synchronous: on a confined
  // worker they run on the thread Landlock holds, and each asynchronous
  // one would cost a hop to Deno's pool and back.
  let previous: Deno.FileInfo | undefined;
  try {
    previous = Deno.statSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (previous?.isDirectory) {
    throw new Deno.errors.IsADirectory(`a directory: ${path}`);
  }
  if (previous && !previous.isFile) {
    // A named pipe, socket or device: never replaced by a regular file.
    throw new NotRegularFile(path);
  }
  const mode = options.mode ??
    (previous?.mode !== null && previous?.mode !== undefined
      ? previous.mode & 0o7777
      : undefined);

  await sweepNow(dir);
  const { file, temp, suffix } = createTemp(path, mode ?? 0o666);
  let open = true;
  let released = Promise.resolve();
  try {
    for (const bytes of coalesce(chunks)) {
      let offset = 0;
      while (offset < bytes.length) {
        const n = await fs.write(file, bytes.subarray(offset));
        if (n <= 0) throw new Error(`short write to ${temp}`);
        offset += n;
      }
    }
    const flushed = file.sync();
    try {
      options.whileFlushing?.();
    } finally {
      await flushed;
    }
    // open()'s mode is narrowed by the umask; an existing file's mode is kept exactly.
    if (mode !== undefined) chmodOwn(temp, file, mode);
    await options.beforeRename?.();
    // A file with another name (file history's blob of it) is not freed
    // by the rename: nothing to keep.
    const keeper = previous && previous.size >= RELEASE_IN_BACKGROUND &&
        onlyName(path)
      ? await keepAlive(path, secondName(path, suffix, OLD_SUFFIX), fs)
      : undefined;
    try {
      await fs.rename(temp, path);
    } finally {
      released = keeper ? removeQuietly(keeper) : Promise.resolve();
    }
    // What the call reads there next is what it wrote.
    pinWritten(path, file.statSync());
    // Closed only now: the lock said "a live writer" until the rename.
    file.close();
    open = false;
  } catch (error) {
    if (open) {
      try {
        file.close();
      } catch { /* already closed */ }
    }
    try {
      Deno.removeSync(temp);
    } catch { /* gone already, or the directory refuses: nothing more to do */ }
    throw error;
  }
  return {
    existed: previous !== undefined,
    previousSize: previous?.size,
    released,
  };
}

/**
 * Gives the temp file `file`, created at `temp`, the mode `mode`: through
 * a descriptor of the very file (opened without following a link, and
 * checked to be it), not by its name. A process that swaps the name for a
 * link between the write and the chmod (a command in the workspace can)
 * would otherwise have the chmod follow it to any file of the user's,
 * which Landlock does not govern. Throws when the name no longer names
 * the file: the write is abandoned.
 */
function chmodOwn(temp: string, file: Deno.FsFile, mode: number): void {
  const fs = nodeFs();
  const { O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = fs.constants;
  const own = file.statSync();
  const isOwn = (found: { ino: number | null; dev: number }) =>
    found.ino === own.ino && found.dev === own.dev;
  let fd: number | undefined;
  for (const access of [O_RDONLY, O_WRONLY]) {
    try {
      fd = fs.openSync(temp, access | O_NOFOLLOW | O_NONBLOCK);
      break;
    } catch (error) {
      const { code } = error as { code?: string };
      if (code === "ELOOP" || code === "ENOENT") throw replaced(temp);
      // A mode that lets the owner read nothing: opened to write instead.
      if (code !== "EACCES") throw error;
    }
  }
  if (fd === undefined) {
    // Neither: the owner may do neither. The name is checked, then used.
    const named = Deno.lstatSync(temp);
    if (named.isSymlink || !isOwn(named)) throw replaced(temp);
    Deno.chmodSync(temp, mode);
    return;
  }
  try {
    if (!isOwn(fs.fstatSync(fd))) throw replaced(temp);
    fs.fchmodSync(fd, mode);
  } finally {
    fs.closeSync(fd);
  }
}

/** The error of a write whose temp file another process replaced. */
function replaced(temp: string): Error {
  return new Error(
    `the temp file ${temp} was replaced by another process while it was written, so the write was abandoned; try again`,
  );
}

/** The end of a temp file's name. */
const TEMP_SUFFIX = ".wave-tmp";
/** The end of a kept old file's name. */
const OLD_SUFFIX = ".wave-old";
/** A name the atomic writer gives (see the module's doc). */
const LEFTOVER_NAME = /^\..+\.[0-9a-f]{8}\.wave-(tmp|old)$/s;

/**
 * Whether `name` (a base name) is one of the atomic writer's second names,
 * `.NAME.XXXXXXXX.wave-tmp` or `.NAME.XXXXXXXX.wave-old`.
 */
export function isWriterName(name: string): boolean {
  return LEFTOVER_NAME.test(name);
}

/**
 * ripgrep globs that leave the atomic writer's second names out of a
 * search or a listing. They must come after any glob of the caller's: in
 * ripgrep the last glob that matches a path decides.
 */
export const WRITER_NAMES_EXCLUDE_GLOBS: readonly string[] = [
  "!.*.wave-tmp",
  "!.*.wave-old",
];

/** The longest file name Linux file systems take, in bytes. */
const NAME_MAX = 255;

/** `.NAME.SUFFIX.wave-…` beside `path`, NAME cut (at a character) so the whole fits NAME_MAX bytes. */
function secondName(path: string, suffix: string, end: string): string {
  const encoder = new TextEncoder();
  const room = NAME_MAX - encoder.encode(`..${suffix}${end}`).length;
  let name = basename(path);
  while (encoder.encode(name).length > room) {
    name = [...name].slice(0, -1).join("");
  }
  return join(dirname(path), `.${name}.${suffix}${end}`);
}

/**
 * Creates the temp file for `path` and takes its lock. A sweep that got
 * the file between its creation and the lock has removed it: then another
 * name is tried. Where the file system has no locks the file is used
 * unlocked (a sweep there cannot take the lock either, so leaves it).
 */
function createTemp(
  path: string,
  mode: number,
): { file: Deno.FsFile; temp: string; suffix: string } {
  for (let attempt = 0;; attempt++) {
    const suffix = crypto.randomUUID().slice(0, 8);
    const temp = secondName(path, suffix, TEMP_SUFFIX);
    const file = Deno.openSync(temp, { write: true, createNew: true, mode });
    try {
      // A new name: only a sweep's momentary tryLock can hold it.
      file.lockSync(true);
    } catch {
      return { file, temp, suffix };
    }
    if (attempt >= 8 || !sweptAway(file, temp)) {
      return { file, temp, suffix };
    }
    file.close();
  }
}

/**
 * Whether `path` no longer names the open `file`: a sweep removed it (and
 * perhaps another writer took the name). A name that cannot be looked at
 * (the call was granted the target, not its directory) is taken as still
 * the file's: the writer goes on with it rather than leave it behind.
 */
function sweptAway(file: Deno.FsFile, path: string): boolean {
  try {
    const opened = file.statSync();
    const named = Deno.lstatSync(path);
    return opened.ino !== named.ino || opened.dev !== named.dev;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}

/** Whether `path` still names the open `file`. */
async function sameFile(file: Deno.FsFile, path: string): Promise<boolean> {
  try {
    const [opened, named] = await Promise.all([file.stat(), Deno.lstat(path)]);
    return opened.ino === named.ino && opened.dev === named.dev;
  } catch {
    return false;
  }
}

/** How long after a sweep of a directory the writer sweeps it again, at the soonest. */
const SWEEP_INTERVAL_MS = 60_000;
/** When each directory was last swept by this thread's writes. */
const swept = new Map<string, number>();

/** Sweeps `dir` before a write there, unless this thread did in the last minute; never fails the write. */
async function sweepNow(dir: string): Promise<void> {
  const now = Date.now();
  if (now - (swept.get(dir) ?? -Infinity) < SWEEP_INTERVAL_MS) return;
  if (swept.size >= 1024) swept.clear();
  swept.set(dir, now);
  try {
    await sweepLeftovers(dir);
  } catch { /* unreadable, gone: the write reports what matters */ }
}

/**
 * Removes the atomic writer's leftovers in `dir` (not below it): every
 * `.NAME.XXXXXXXX.wave-tmp` that no live process holds locked (its writer
 * died before the rename), and every `.NAME.XXXXXXXX.wave-old` (a writer
 * that dies keeps it forever; one that lives loses nothing by its going:
 * its rename then frees the old file itself). Returns the names removed.
 *
 * Guarantees: a temp file whose writer is alive, in this process or
 * another, is never removed; only regular files with these names are
 * touched; a name that cannot be inspected or removed is left as it is;
 * a temp file is lstat'ed before it is opened (anything but a regular
 * file is left), and opened so that a FIFO swapped in meanwhile cannot
 * make the sweep wait (see {@linkcode openRegular}).
 *
 * @example
 * ```ts
 * import { sweepLeftovers } from "@wave/wave";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/.a.txt.0123abcd.wave-tmp`, "half a wri");
 * console.assert((await sweepLeftovers(dir)).length === 1);
 * ```
 */
export async function sweepLeftovers(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (!entry.isFile || !isWriterName(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.name.endsWith(OLD_SUFFIX)) {
      try {
        Deno.removeSync(path);
        removed.push(entry.name);
      } catch { /* gone already, or not ours to remove */ }
      continue;
    }
    if (await removeIfUnlocked(path)) removed.push(entry.name);
  }
  return removed;
}

/** Removes a temp file when no process holds its lock; whether it did. */
async function removeIfUnlocked(path: string): Promise<boolean> {
  let seen: Deno.FileInfo;
  try {
    seen = await Deno.lstat(path);
  } catch {
    return false;
  }
  // A FIFO, a device, a link under a leftover's name is never opened.
  if (!seen.isFile) return false;
  const file = await openRegular(path, seen);
  if (!file) return false;
  try {
    if (!(await file.tryLock(true))) return false;
    // Still this file under this name (not renamed into place meanwhile).
    if (!(await sameFile(file, path))) return false;
    Deno.removeSync(path);
    return true;
  } catch {
    return false;
  } finally {
    file.close();
  }
}

/** How long a sweep waits for a read-only open, the one that a FIFO could block, before it leaves the name. */
export const READ_ONLY_OPEN_MS = 1000;

/**
 * Opens the regular file at `path` that `seen` (its lstat) describes, for
 * its lock, without ever waiting on what replaced it meanwhile: the file,
 * or `undefined` when it cannot be opened or what was opened is not that
 * regular file. Exported for its tests.
 *
 * Guarantees: the open is for reading and writing, which on a FIFO swapped
 * in after the lstat returns at once (Linux, macOS) rather than waiting
 * for a writer; only when that is refused (a read-only leftover, a writer
 * that had given it its final mode) is a read-only open tried, and it is
 * waited for {@linkcode READ_ONLY_OPEN_MS} at most (an open left waiting
 * then holds one thread of the runtime's pool until something opens the
 * FIFO, or the process exits).
 */
export async function openRegular(
  path: string,
  seen: Deno.FileInfo,
): Promise<Deno.FsFile | undefined> {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path, { read: true, write: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.PermissionDenied)) return undefined;
    file = await boundedReadOnlyOpen(path);
  }
  if (!file) return undefined;
  try {
    const opened = await file.stat();
    if (opened.isFile && opened.ino === seen.ino && opened.dev === seen.dev) {
      return file;
    }
  } catch { /* closed below */ }
  file.close();
  return undefined;
}

/** A read-only open of `path`, given up after {@linkcode READ_ONLY_OPEN_MS} (a late file is closed when it comes). */
async function boundedReadOnlyOpen(
  path: string,
): Promise<Deno.FsFile | undefined> {
  // The one open that stays asynchronous, off a confined worker's thread
  // (tools/kernel/landlock.ts): a FIFO could hold it forever. It opens
  // only a name of the writer's own, read-only, and what it opened is
  // compared with what was seen before it is used.
  const opening = Deno.open(path, { read: true }).catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), READ_ONLY_OPEN_MS);
  });
  const first = await Promise.race([opening, late]);
  clearTimeout(timer);
  if (first !== "late") return first;
  opening.then((file) => file?.close(), () => {});
  return undefined;
}

/** Runs of small chunks are gathered into writes of up to this size, not one write per chunk. */
const GATHER_BYTES = 1 << 20;
/**
 * Chunks from this size are written as they are: copying one costs more
 * than the write call it would save (a fresh buffer's pages are faulted in
 * as it is filled).
 */
const WRITE_AS_IS_BYTES = 64 * 1024;

/**
 * The chunks to write, in order, with runs of small ones copied together
 * (a replace_all makes two chunks per match, and a write per chunk costs
 * an operation each). Large chunks pass through uncopied.
 */
function* coalesce(chunks: readonly Uint8Array[]): Generator<Uint8Array> {
  let run: Uint8Array[] = [];
  let size = 0;
  function* flush(): Generator<Uint8Array> {
    if (run.length === 1) yield run[0];
    else if (run.length > 1) {
      const gathered = new Uint8Array(size);
      let at = 0;
      for (const chunk of run) {
        gathered.set(chunk, at);
        at += chunk.length;
      }
      yield gathered;
    }
    run = [];
    size = 0;
  }
  for (const chunk of chunks) {
    if (chunk.length >= WRITE_AS_IS_BYTES) {
      yield* flush();
      yield chunk;
      continue;
    }
    if (size + chunk.length > GATHER_BYTES) yield* flush();
    run.push(chunk);
    size += chunk.length;
  }
  yield* flush();
}

/**
 * The size from which a replaced file is freed in the background. Dropping
 * a file's last name frees its blocks and page cache on the spot (about
 * 1 ms per MB on ext4); inside the rename, that time would be the
 * caller's.
 */
export const RELEASE_IN_BACKGROUND = 1 << 20;

/** Whether the file at `path` has no other name (a hard link); true when it cannot be told. */
function onlyName(path: string): boolean {
  try {
    return (Deno.statSync(path).nlink ?? 1) <= 1;
  } catch {
    return true;
  }
}

/**
 * Gives the file at `path` a second name, `keeper`, so the rename that
 * replaces it does not free it. Returns the name, or `undefined` when the
 * file system refuses a link: the rename then frees the file as usual.
 */
async function keepAlive(
  path: string,
  keeper: string,
  fs: AtomicFs,
): Promise<string | undefined> {
  try {
    if (fs.link) await fs.link(path, keeper);
    else Deno.linkSync(path, keeper);
    return keeper;
  } catch {
    return undefined;
  }
}

/**
 * Removes `path` off the caller's thread (Deno runs it on a blocking
 * thread, which Landlock does not hold): only ever a `.wave-old` name of
 * this writer's, with its random part, so no swap can make it name
 * another file.
 */
async function removeQuietly(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch { /* the directory went away, or is read-only now */ }
}

/** The path holds a named pipe, socket or device, which wave does not replace. */
export class NotRegularFile extends Error {
  constructor(path: string) {
    super(`not a regular file: ${path}`);
    this.name = "NotRegularFile";
  }
}

/** Turns a file-system error into a sentence a model can act on. */
export function describeFsError(error: unknown, path: string): string {
  if (error instanceof Deno.errors.PermissionDenied) {
    return `permission denied: ${path} (the file or its directory is not writable)`;
  }
  if (error instanceof Deno.errors.NotCapable) {
    return `the sandbox refused access to ${path}`;
  }
  if (error instanceof Deno.errors.NotFound) {
    return `no such file or directory: ${path}`;
  }
  if (error instanceof Deno.errors.IsADirectory) {
    return `${path} is a directory`;
  }
  if (error instanceof NotRegularFile) {
    return `${path} is a named pipe, socket or device, not a regular file`;
  }
  if (error instanceof Deno.errors.NotADirectory) {
    return `a parent of ${path} is not a directory`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOSPC|No space left/i.test(message)) {
    return `the disk is full; nothing was written to ${path}`;
  }
  if (/EROFS|Read-only file system/i.test(message)) {
    return `the file system is read-only: ${path}`;
  }
  return `${message} (${path})`;
}
