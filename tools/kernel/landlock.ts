/**
 * Landlock (Linux ≥ 5.13): the kernel's own confinement of a thread to the
 * file hierarchies it was granted. A thread restricted with
 * {@linkcode restrictThread} cannot open, create, list, rename or remove
 * anything outside its rules, whatever symlinks, renames or bind mounts
 * lie on the path: the kernel checks the file the path reaches, at the
 * moment of the access. Threads and processes it starts inherit the
 * restriction; the rest of the process is unaffected.
 *
 * Two limits to know: only the restricted thread is held, so a Deno op
 * that runs on another thread (the async file system ops run on a shared
 * pool) is not; and reading metadata (`stat`, `realpath`, `readlink`) is
 * not an access Landlock governs.
 *
 * The code is plain JavaScript (`_landlock.js`), so that a sandbox worker
 * can restrict itself before it loads anything Deno must transpile; this
 * module is its typed face.
 *
 * @module
 */

export {
  Access,
  EXECUTE,
  fileBoundary,
  landlockAbi,
  READ,
  READ_WRITE,
  restrictThread,
} from "./_landlock.js";

/** One grant: `path` (a file or a directory and all below it) and what may be done there. */
export interface LandlockRule {
  path: string;
  access: bigint;
}

/** How the file tools are held to their roots (see {@linkcode fileBoundary}). */
export type FileBoundary = "landlock" | "paths";
