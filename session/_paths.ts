/**
 * POSIX path arithmetic for code that runs before Node's compatibility
 * layer loads (it costs ~12-16 ms): the flags, before `system/init`, and the
 * start of the core (core_start.ts), before the first worker starts.
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

/**
 * The path a `file:` URL names (percent-escapes decoded), as `node:url`'s
 * `fileURLToPath` gives it on Linux, for modules that start before Node's
 * compatibility layer loads.
 */
export function pathOfFileUrl(url: string | URL): string {
  const parsed = new URL(url);
  if (parsed.protocol !== "file:") {
    throw new TypeError(`not a file URL: ${url}`);
  }
  return decodeURIComponent(parsed.pathname);
}

/** The directory an absolute `path` is in (`/` for the root and what is directly in it), as `node:path`'s `dirname` gives it. */
export function parentDir(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  return cut <= 0 ? "/" : trimmed.slice(0, cut);
}
