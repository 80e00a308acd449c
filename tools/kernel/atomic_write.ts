/**
 * The atomic writer: every file wave writes, in the workspace or under
 * `WAVE_HOME`, goes through {@linkcode atomicWrite} (spec 000 "原子写").
 *
 * @module
 */

import { basename, dirname, join } from "node:path";

/** The steps a test can make fail. The default is the real file system. */
export interface AtomicFs {
  /** Default: `file.write(chunk)`. */
  write(file: Deno.FsFile, chunk: Uint8Array): Promise<number>;
  /** Default: `Deno.rename`. */
  rename(from: string, to: string): Promise<void>;
  /** Default: `Deno.link`. */
  link?(from: string, to: string): Promise<void>;
}

const realFs: AtomicFs = {
  write: (file, chunk) => file.write(chunk),
  rename: (from, to) => Deno.rename(from, to),
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
      await Deno.mkdir(dir, { recursive: true });
    } catch (error) {
      // mkdir -p meets a file where a directory should be.
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new Deno.errors.NotADirectory(`a parent of ${path} is a file`);
      }
      throw error;
    }
  }

  let previous: Deno.FileInfo | undefined;
  try {
    previous = await Deno.stat(path);
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

  const suffix = crypto.randomUUID().slice(0, 8);
  const temp = join(dir, `.${basename(path)}.${suffix}.wave-tmp`);
  const file = await Deno.open(temp, {
    write: true,
    createNew: true,
    mode: mode ?? 0o666,
  });
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
    file.close();
    open = false;
    // open()'s mode is narrowed by the umask; an existing file's mode is kept exactly.
    if (mode !== undefined) await Deno.chmod(temp, mode);
    const keeper = previous && previous.size >= RELEASE_IN_BACKGROUND
      ? await keepAlive(
        path,
        join(dir, `.${basename(path)}.${suffix}.wave-old`),
        fs,
      )
      : undefined;
    try {
      await fs.rename(temp, path);
    } finally {
      released = keeper ? removeQuietly(keeper) : Promise.resolve();
    }
  } catch (error) {
    if (open) {
      try {
        file.close();
      } catch { /* already closed */ }
    }
    try {
      await Deno.remove(temp);
    } catch { /* gone already, or the directory refuses: nothing more to do */ }
    throw error;
  }
  return {
    existed: previous !== undefined,
    previousSize: previous?.size,
    released,
  };
}

/** Runs of small chunks are gathered into writes of up to this size, not one write per chunk. */
const GATHER_BYTES = 1 << 20;

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
    if (chunk.length >= GATHER_BYTES / 4) {
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
    await (fs.link ?? Deno.link)(path, keeper);
    return keeper;
  } catch {
    return undefined;
  }
}

/** Removes `path` off the caller's thread (Deno runs it on a blocking thread). */
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
