/**
 * POSIX path arithmetic for the flags, which run before `system/init` and
 * so cannot load `node:path` (Node compatibility costs ~12 ms to load).
 *
 * @module
 */

/**
 * `path` joined onto `base` unless it is absolute, with `.`, `..` and
 * repeated slashes resolved. Guarantees an absolute path with no trailing
 * slash (`/` alone for the root); it does not touch the file system, so
 * symlinks are not followed.
 */
export function absolutePath(path: string, base: string): string {
  const joined = path.startsWith("/") ? path : `${base}/${path}`;
  const out: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}

/** A directory as a model is told it: relative to the workspace inside it (`output/`), else absolute. */
export function shownDir(workspace: string, dir: string): string {
  if (dir === workspace) return "./";
  return dir.startsWith(`${workspace}/`)
    ? `${dir.slice(workspace.length + 1)}/`
    : dir;
}
