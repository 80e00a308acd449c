/**
 * Glob matching with picomatch's semantics, for the dialects that match
 * paths against a pattern themselves (sata `find`, devflow `search_files`,
 * the `files` toolset's searches).
 *
 * picomatch is a CommonJS package, and the first CommonJS package or
 * `node:` module a thread loads brings Deno's Node compatibility layer
 * with it (15–25 ms of that thread and a megabyte or more of its heap; see
 * kernel/posix_path.ts). The main thread loads every tool module for its
 * definition and never matches a path, so picomatch is imported on first
 * use only: in the sandbox worker that runs the call (where `prepare` has
 * loaded the layer already), never on the main thread.
 *
 * @module
 */

/** picomatch's options this project passes (see its README). */
export interface GlobOptions {
  /** Wildcards match names that begin with a dot. */
  dot?: boolean;
  /** A pattern without a slash matches a path's last name. */
  basename?: boolean;
}

/** Whether a path (relative, `/`-separated) matches. */
export type GlobMatcher = (path: string) => boolean;

let picomatch:
  | ((pattern: string, options: GlobOptions) => (path: string) => unknown)
  | undefined;

/**
 * The matcher of `pattern`, as picomatch builds it with `options`. The
 * first call imports picomatch; a pattern picomatch cannot parse rejects
 * with its error, as picomatch throws it.
 */
export async function globMatcher(
  pattern: string,
  options: GlobOptions,
): Promise<GlobMatcher> {
  picomatch ??= (await import("picomatch")).default;
  const matches = picomatch!(pattern, options);
  // One argument only: picomatch's second (returnObject) would turn the
  // boolean into an object, as `paths.filter(matcher)` would pass it.
  return (path) => matches(path) === true;
}
