/**
 * Stat calls that answer `null` where nothing is, for the resolver and
 * every tool: one place decides what "nothing there" means.
 *
 * @module
 */

/**
 * Whether a file-system error means nothing is at the path: it does not
 * exist, or one of its parents is a file (so nothing can be below it).
 */
export function isAbsent(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.NotADirectory;
}

/** Stats a path, following symlinks; `null` when nothing is there (see {@linkcode isAbsent}). Other errors are thrown. */
export function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  // Synchronous underneath: a stat is quick, and an asynchronous one costs
  // a hop to Deno's pool and back (and, on a confined worker, runs off the
  // thread Landlock holds).
  try {
    return Promise.resolve(Deno.statSync(path));
  } catch (error) {
    if (isAbsent(error)) return Promise.resolve(null);
    return Promise.reject(error);
  }
}

/** A file's identity on its file system (`device:inode`): equal for two names of one file, and for nothing else. */
export function fileIdentity(
  info: { dev: number; ino: number | null },
): string {
  return `${info.dev}:${info.ino}`;
}

/** Stats a path without following a final symlink, synchronously; `null` when nothing is there. Other errors are thrown. */
export function lstatOrNullSync(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (isAbsent(error)) return null;
    throw error;
  }
}
