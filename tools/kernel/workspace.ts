/**
 * The workspace resolver: the one place a path a model or parent gives
 * becomes a path wave acts on (docs/design.md "The sandbox", layer 1).
 *
 * A path is made absolute against the workspace and normalized, then its
 * real location is found by following symlinks from the nearest existing
 * ancestor, dangling links and chains included. Whether it is outside the
 * workspace is judged on that real location, so `..`, absolute paths and
 * symlinks (to files or directories, relative or absolute) cannot leave
 * the workspace unnoticed.
 *
 * @module
 */

import {
  dirname,
  isAbsolute,
  join,
  relative,
  resolve,
  sep,
} from "./posix_path.ts";
import { readFileBytesSync } from "./read_file.ts";
import { sensitiveReason } from "./sensitive.ts";
import { fileIdentity, isAbsent, lstatOrNullSync } from "./stat.ts";
import { ToolError } from "./tool_error.ts";

/** A path after resolution. Tools act on `real`; they show `abs` or `display`. */
export interface ResolvedPath {
  /** The path as given. */
  raw: string;
  /** Absolute and normalized, symlinks not followed. */
  abs: string;
  /** Where it really lands: every symlink followed, even a dangling one. */
  real: string;
  /** The real location is not the workspace or below it. */
  outside: boolean;
  /** Why the path is a sensitive file, when it is one. */
  sensitive?: string;
  /**
   * What `real` named when it was judged: its identity (`device:inode`, of
   * a link itself, `lstat`), or {@linkcode NOTHING_THERE}; absent when it
   * could not be looked at. A call's opens are held to it (checked_files.ts).
   */
  identity?: string;
}

/** {@linkcode ResolvedPath.identity} of a path where nothing was. */
export const NOTHING_THERE = "nothing";

/** How many symlinks one resolution follows before it gives up (as Linux's ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * Whether `path` is `root` or below it. Both must be absolute and
 * normalized; a sibling that shares a prefix (`/ws2` for `/ws`) is not below.
 *
 * @example
 * ```ts
 * import { isInside } from "@wave/wave";
 *
 * console.assert(isInside("/ws", "/ws/src/a.ts"));
 * console.assert(!isInside("/ws", "/ws2/a.ts"));
 * ```
 */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * The real location of an absolute path: `realpath` where the path exists,
 * and otherwise the real path of its nearest existing ancestor with the rest
 * appended, following a dangling symlink at that ancestor to where it points.
 *
 * Throws `Deno.errors.NotCapable` when the caller may not read where the path
 * leads (a sandbox worker looking outside), and `ToolError` on a symlink loop.
 */
export function realPathOf(abs: string): string {
  let path = abs;
  for (let hops = 0; hops <= MAX_LINK_HOPS; hops++) {
    try {
      return Deno.realPathSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.FilesystemLoop) break;
      if (!isAbsent(error)) throw error;
    }
    // Walk up to the nearest ancestor that exists (as a link or otherwise).
    let existing = path;
    const rest: string[] = [];
    let info = lstatOrNullSync(existing);
    while (info === null) {
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest.unshift(existing.slice(parent.length).replace(/^\//, ""));
      existing = parent;
      info = lstatOrNullSync(existing);
    }
    if (!info.isSymlink) {
      // A regular ancestor: realpath works on it; the rest does not exist yet.
      return join(Deno.realPathSync(existing), ...rest);
    }
    // A dangling symlink: follow it by hand and resolve again.
    const target = Deno.readLinkSync(existing);
    path = join(resolve(dirname(existing), target), ...rest);
  }
  throw new ToolError(`too many levels of symbolic links: ${abs}`);
}

/** Reads a small text file for content checks; `undefined` when it cannot. */
function readSmallText(path: string): string | undefined {
  try {
    const info = Deno.statSync(path);
    if (!info.isFile || info.size > 64 * 1024) return undefined;
    return new TextDecoder().decode(readFileBytesSync(path));
  } catch {
    return undefined;
  }
}

/** Directories of the workspace's top whose files are all, or some, secret: looked in for hard links. */
const SECRET_DIRS = [".ssh", ".gnupg", ".aws", ".docker", ".kube"];

/**
 * The sensitive files of a few directories, by identity (device and inode),
 * each directory read once: what tells a hard link to a secret from an
 * ordinary file.
 *
 * A hard link is judged against the sensitive files of the workspace's top,
 * of the secret directories there (`.ssh/`, `.aws/` …), and of the file's
 * own directory: a listing of two or three directories, and only for a file
 * with more than one link. A link to a sensitive file elsewhere in the
 * workspace is not found, and one to a file outside cannot be told from a
 * file inside at all.
 */
export class SensitiveLinks {
  readonly #root: string;
  readonly #byDir = new Map<string, Map<string, string>>();

  /** For the workspace `root` (real, absolute). */
  constructor(root: string) {
    this.#root = root;
  }

  /**
   * Why the file at `real` (a real path, every link followed; `judged`, its
   * `lstat` when the caller has one) is a
   * sensitive file under another name, or `undefined`: it is when it has
   * more than one link and shares its identity with a sensitive file found
   * as the class says.
   */
  reason(real: string, judged?: Deno.FileInfo | null): string | undefined {
    let info: Deno.FileInfo;
    try {
      // The resolver's lstat, when it has one: the identity judged is the
      // one its call's opens are held to.
      info = judged?.isFile ? judged : Deno.statSync(real);
    } catch {
      return undefined;
    }
    if (!info.isFile || (info.nlink ?? 1) < 2) return undefined;
    const name = this.#otherSecret(fileIdentity(info), real);
    return name === undefined
      ? undefined
      : `sensitive file (a hard link to ${displayPath(this.#root, name)})`;
  }

  /**
   * Whether a file opened for `real` (its descriptor's device and inode)
   * is another file, a sensitive one: the file checked was swapped, after
   * the check, for a link (symbolic or hard) to a sensitive file found as
   * the class says. Judged on what was opened, so no swap after the open
   * changes the answer.
   */
  openedOtherSecret(
    opened: { dev: number; ino: number },
    real: string,
  ): boolean {
    return this.#otherSecret(fileIdentity(opened), real) !== undefined;
  }

  /** The sensitive file other than `real` whose identity is `key`, if any. */
  #otherSecret(key: string, real: string): string | undefined {
    const dirs = new Set([
      this.#root,
      ...SECRET_DIRS.map((dir) => join(this.#root, dir)),
      dirname(real),
    ]);
    for (const dir of dirs) {
      const name = this.#secretsOf(dir).get(key);
      if (name !== undefined && name !== real) return name;
    }
    return undefined;
  }

  /** The sensitive regular files directly in `dir`, by identity. */
  #secretsOf(dir: string): Map<string, string> {
    let secrets = this.#byDir.get(dir);
    if (secrets) return secrets;
    secrets = new Map();
    this.#byDir.set(dir, secrets);
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (!entry.isFile) continue;
        const path = join(dir, entry.name);
        if (sensitiveReason(path, readSmallText) === undefined) continue;
        try {
          secrets.set(fileIdentity(Deno.lstatSync(path)), path);
        } catch { /* gone meanwhile */ }
      }
    } catch { /* no such directory, or not ours to read */ }
    return secrets;
  }
}

/**
 * Resolves `raw` against the workspace `root` (a real, absolute directory).
 *
 * Guarantees: `real` is what the kernel would open for `abs`; `outside` is
 * true exactly when `real` is not under `root` (nor under one of
 * `alsoInside`, wave's own directories such as the session's spill files);
 * `sensitive` is set when either the given name or the real target is a
 * sensitive file, when the file is a hard link to a sensitive file (as
 * {@linkcode SensitiveLinks} finds them), and when the path lies in wave's
 * state directory `waveHome` (transcripts, task lists: a tool may read
 * there only what `alsoInside` names). A path the caller may not even
 * inspect counts as outside.
 *
 * @example
 * ```ts
 * import { resolveInWorkspace } from "@wave/wave";
 *
 * const root = Deno.realPathSync(Deno.makeTempDirSync());
 * console.assert(!resolveInWorkspace(root, "src/main.ts").outside);
 * console.assert(resolveInWorkspace(root, "../elsewhere").outside);
 * console.assert(resolveInWorkspace(root, ".env").sensitive !== undefined);
 * ```
 */
export function resolveInWorkspace(
  root: string,
  raw: string,
  home?: string,
  alsoInside: readonly string[] = [],
  waveHome?: string,
): ResolvedPath {
  if (raw.includes("\0")) {
    throw new ToolError(`path contains a NUL byte: ${JSON.stringify(raw)}`);
  }
  let expanded = raw;
  if (home && (raw === "~" || raw.startsWith("~/"))) {
    expanded = home + raw.slice(1);
  }
  const abs = isAbsolute(expanded)
    ? resolve(expanded)
    : resolve(root, expanded);
  let real: string;
  let outside: boolean;
  let judged: Deno.FileInfo | null | undefined;
  try {
    real = realPathOf(abs);
    outside = !isInside(root, real) &&
      !alsoInside.some((dir) => isInside(dir, real));
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (!(error instanceof Deno.errors.NotCapable)) {
      // A name too long, a directory that may not be searched: where the
      // path leads cannot be known, so it is not used.
      const reason = error instanceof Error
        ? error.message.replace(/: realpath .*$/s, "")
        : String(error);
      throw new ToolError(
        `cannot resolve the path ${clipPath(raw)}: ${reason}`,
        { type: "bad_path" },
      );
    }
    real = abs;
    outside = true;
  }
  // Right after the resolution: what is judged below, and what the call's
  // opens must find (a link swapped in since is itself here). An outside
  // path too: one the parent approves is held to what it approved.
  try {
    judged = lstatOrNullSync(real);
  } catch {
    judged = undefined; // not ours to look at
  }
  const ours = alsoInside.some((dir) => isInside(dir, real));
  const sensitive = sensitiveReason(abs, readSmallText) ??
    (real !== abs ? sensitiveReason(real, readSmallText) : undefined) ??
    (waveHome !== undefined && !ours &&
        (isInside(waveHome, real) || isInside(waveHome, abs)) &&
        !(isInside(waveHome, root) && isInside(root, real))
      ? "wave's own state (WAVE_HOME)"
      : undefined) ??
    (outside ? undefined : new SensitiveLinks(root).reason(real, judged));
  const identity = judged === undefined
    ? undefined
    : judged === null
    ? NOTHING_THERE
    : fileIdentity(judged);
  return {
    raw,
    abs,
    real,
    outside,
    sensitive,
    ...identity === undefined ? {} : { identity },
  };
}

/** A path quoted for a message, cut to 200 characters. */
function clipPath(raw: string): string {
  return JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);
}

/** The path relative to the workspace when inside it, else the absolute path: for messages. */
export function displayPath(root: string, path: string): string {
  if (!isInside(root, path)) return path;
  return relative(root, path) || ".";
}

/**
 * `text` with the paths under `root` it names shown as
 * {@linkcode displayPath} shows them: for the messages of the kernel's file
 * refusals, which know a file only by its real path.
 */
export function displayPathsIn(root: string, text: string): string {
  return text.replaceAll(`${root}/`, "");
}
