/**
 * Paths as the session shows and finds them, with nothing that loads
 * Node's compatibility layer (it costs ~12-16 ms; the start of the core,
 * core_start.ts, runs before the first worker starts). Path arithmetic is
 * tools/kernel/posix_path.ts.
 *
 * @module
 */

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
