/**
 * The atomic writer: every file wave writes, in the workspace or under
 * `WAVE_HOME`, goes through {@linkcode atomicWrite} (spec 000 "原子写").
 *
 * @module
 */

import { basename, dirname, join } from "node:path";

/** The two steps a test can make fail. The default is the real file system. */
export interface AtomicFs {
  write(file: Deno.FsFile, chunk: Uint8Array): Promise<number>;
  rename(from: string, to: string): Promise<void>;
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
  if (options.createParents) await Deno.mkdir(dir, { recursive: true });

  let previous: Deno.FileInfo | undefined;
  try {
    previous = await Deno.stat(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (previous && !previous.isFile) {
    throw new Deno.errors.IsADirectory(`not a regular file: ${path}`);
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
  try {
    for (const bytes of chunks) {
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
    await fs.rename(temp, path);
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
  return { existed: previous !== undefined, previousSize: previous?.size };
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
