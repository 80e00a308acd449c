/**
 * Landlock (Linux ≥ 5.13): the kernel's own confinement of a thread to the
 * file hierarchies it was granted. A thread restricted with
 * {@linkcode restrictThread} cannot open, create, list, rename or remove
 * anything outside its rules, whatever symlinks, renames or bind mounts
 * lie on the path: the kernel checks the file the path reaches, at the
 * moment of the access. Threads and processes it starts inherit the
 * restriction; the rest of the process is unaffected.
 *
 * Two limits to know: a thread made before the restriction is not held,
 * so a Deno op that runs on one (the asynchronous file system ops run on
 * the runtime's blocking pool) is not, which is why a sandbox worker
 * restricts itself before it loads any code (session/_tool_worker_entry.js);
 * and metadata is no access Landlock governs, neither reading it (`stat`,
 * `realpath`, `readlink`) nor changing it (`chmod`, `chown`, `utime`).
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
