/**
 * What `Read` deny rules keep from a command under bubblewrap: the files
 * and directories the rules cover, as they are on disk when the call runs,
 * for {@linkcode hideDenied} to mount over. (A search or a listing needs no
 * paths: it is given the rules' globs, `ToolContext.hidden`, and nothing
 * is walked for it.)
 *
 * A rule naming a path is one `lstat`; a rule with a glob is a walk from
 * the part of it before the first `*` or `?` (the workspace and the other
 * roots for a name at any depth, such as `*.env`), without following
 * symbolic links (what a walk found in a directory is kept while the
 * directory's modification time stays what it was, so a walk of an
 * unchanged tree is a `stat` per directory), and a walk that would look at
 * more than its bound (`--max-deny-walk`, {@linkcode MAX_WALKED} by
 * default) refuses the command rather than run it with some covered file
 * in view.
 *
 * @module
 */

import type { BwrapConfinement } from "../tools/kernel/bwrap.ts";
import { isWithin } from "./_sandbox_plan.ts";
import { SYSTEM_DIRS } from "./command_sandbox.ts";
import { globRegExp } from "../tools/kernel/hidden.ts";
import { pathGlobs } from "./tool_rules.ts";

/** The existing files and directories deny rules cover, real paths. */
export interface DeniedPaths {
  /** Directories, each with all it holds. */
  dirs: string[];
  /** Files (and other non-directories). */
  files: string[];
}

/** The most entries the walks of one command look at, unless `--max-deny-walk` says otherwise. */
export const MAX_WALKED = 200_000;

/** Where the rules' paths are looked for. */
export interface DeniedPlace {
  /** The workspace's real path: relative globs start there. */
  workspace: string;
  /** Other roots (`--add-dir`), real paths: a name at any depth is looked for there too. */
  roots?: readonly string[];
  /** The home directory, for rules written `~/…`. */
  home?: string;
}

/**
 * The existing paths the `Read` deny rules with these specifiers cover
 * (`secrets/**`, `*.env`, `//etc/hosts`), outermost only: nothing inside a
 * directory listed is listed again. Returns the message to refuse the call
 * with when the walks would look at more than `maxWalked` entries.
 */
export function deniedPaths(
  specifiers: readonly string[],
  place: DeniedPlace,
  maxWalked = MAX_WALKED,
): DeniedPaths | { refused: string } {
  const found = new Map<string, boolean>(); // real path → is a directory
  let walked = 0;
  const add = (path: string, isDirectory: boolean) => {
    found.set(path, isDirectory);
  };
  for (const specifier of specifiers) {
    for (const { glob, absolute, text } of pathGlobs(specifier, place.home)) {
      const parts = text.split("/").filter((p) => p !== "" && p !== ".");
      const fixed = parts.findIndex((p) => /[*?]/.test(p));
      const literal = parts.slice(0, fixed === -1 ? parts.length : fixed);
      const bases = absolute
        ? [`/${literal.join("/")}`]
        : literal.length === 0 && text.startsWith("**/")
        ? [place.workspace, ...(place.roots ?? [])]
        : [joinPath(place.workspace, literal.join("/"))];
      for (const base of bases) {
        let real: string;
        let info: Deno.FileInfo;
        try {
          real = Deno.realPathSync(base);
          info = Deno.statSync(real);
        } catch {
          continue; // not there (yet)
        }
        /** What the glob is tested on: the path as the permission check sees it. */
        const subject = (path: string) =>
          absolute || !isWithin(path, place.workspace)
            ? path
            : path === place.workspace
            ? ""
            : path.slice(place.workspace.length + 1);
        if (fixed === -1 || glob.test(subject(real))) {
          if (fixed === -1 || real !== place.workspace) {
            add(real, info.isDirectory);
            continue;
          }
        }
        if (!info.isDirectory) continue;
        // A name at any depth (`**/*.env`) is a test of each entry's name.
        const name = /^\*\*\/[^/]+$/.test(text)
          ? globRegExp(text.slice(3))
          : undefined;
        const covered = (path: string, entry: string) =>
          name ? name.test(entry) : glob.test(subject(path));
        const stack = [real];
        const key = `${absolute}\0${text}\0${place.workspace}`;
        while (stack.length > 0) {
          const dir = stack.pop()!;
          const sorted = sortedListing(
            dir,
            key,
            (path, entry) => covered(path, entry.name),
          );
          if (!sorted) continue; // unreadable or gone: nothing of it can be read either
          walked += sorted.count;
          if (walked > maxWalked) {
            return {
              refused:
                `the deny rule Read(${specifier}) has more than ${maxWalked} files and directories to look through for what it covers (from ${base}), so what the command could read past it cannot be hidden from it; a narrower rule (a directory, a name under one) or a higher --max-deny-walk lets commands run (searches and the file tools are not bound by this)`,
            };
          }
          for (const [path, isDirectory] of sorted.hits) add(path, isDirectory);
          stack.push(...sorted.below);
        }
      }
    }
  }
  const dirs = [...found].filter(([, d]) => d).map(([p]) => p);
  const outermost = (path: string) =>
    !dirs.some((dir) => dir !== path && isWithin(path, dir));
  return {
    dirs: dirs.filter(outermost).sort(),
    files: [...found].filter(([p, d]) => !d && outermost(p)).map(([p]) => p)
      .sort(),
  };
}

/**
 * `confinement` with the denied paths hidden: a directory under an empty
 * read-only tmpfs, a file behind `/dev/null` (read-only), so a command
 * reads nothing of them and cannot write there (nothing it writes is
 * lost). A path the sandbox already hides, or that lies in its fresh
 * `/tmp`, `/dev` or `/proc`, needs no mount of its own; the workspace and
 * the other roots themselves are never hidden (a rule covering a whole
 * root refuses every call that names it instead), nor a directory every
 * command needs (`/etc`, `/usr`, `/lib` …, or `/`, which holds them):
 * `Read(//etc/**)` binds the file tools but not commands, while
 * `Read(//etc/ssl/private/**)` binds both.
 */
export function hideDenied(
  confinement: BwrapConfinement,
  denied: DeniedPaths,
  workspace: string,
): BwrapConfinement {
  const shown = [workspace, ...(confinement.showWritable ?? [])];
  const covered = [
    "/tmp",
    "/dev",
    "/proc",
    ...confinement.hideDirs,
    ...(confinement.sealDirs ?? []),
  ];
  const needed = (path: string) =>
    !shown.includes(path) &&
    ![...SYSTEM_DIRS].some((dir) => isWithin(dir, path)) &&
    (shown.some((dir) => isWithin(path, dir)) ||
      !covered.some((dir) => isWithin(path, dir)));
  const dirs = denied.dirs.filter(needed);
  const files = denied.files.filter(needed);
  if (dirs.length === 0 && files.length === 0) return confinement;
  // A command may rename a writable directory that holds a hidden path
  // (`mv app app2`), taking it out of a rule that names it by its place
  // (`Read(app/secrets/**)`), for the next call and every tool to read:
  // each such directory is bound over itself, and a mount point cannot be
  // renamed (the binds go shallowest first, before the hiding mounts).
  const anchors = new Set<string>();
  for (const path of [...dirs, ...files]) {
    const root = shown.find((dir) => dir !== path && isWithin(path, dir));
    if (root === undefined) continue;
    for (
      let dir = parentOf(path);
      dir !== root && isWithin(dir, root);
      dir = parentOf(dir)
    ) {
      if (anchors.has(dir)) break;
      anchors.add(dir);
    }
  }
  return {
    ...confinement,
    sealDirs: [...(confinement.sealDirs ?? []), ...dirs],
    hideFiles: [...confinement.hideFiles, ...files],
    ...(anchors.size > 0
      ? {
        showWritable: [
          ...(confinement.showWritable ?? []),
          ...[...anchors].sort(),
        ],
      }
      : {}),
  };
}

/** What one glob found in a directory: its covered entries, and the directories to walk on. */
interface Sorted {
  /** The directory's modification time when it was listed. */
  mtime: number;
  /** How many entries it had. */
  count: number;
  /** Covered entries: path, and whether it is a directory. */
  hits: [string, boolean][];
  /** Directories not covered, to walk into (symbolic links are not followed). */
  below: string[];
}

/** What each glob found in each directory, while the directory's modification time stays as it was. */
const sortings = new Map<string, Sorted>();
/**
 * How old a directory's modification time must be for what was found in
 * it to be kept: a change within the same clock tick as the listing would
 * leave the time as it was (file times come from a coarse clock), so a
 * directory changed just now is listed again next time (as git does with
 * its index).
 */
const SETTLED_MS = 1_000;
/** The most directories whose findings are kept. */
const MAX_KEPT = 50_000;

/** A directory's entries sorted by one glob (`key`), or undefined when it cannot be read. */
function sortedListing(
  dir: string,
  key: string,
  covered: (path: string, entry: Deno.DirEntry) => boolean,
): Sorted | undefined {
  const id = `${key}\0${dir}`;
  let mtime: number;
  try {
    mtime = Deno.statSync(dir).mtime?.getTime() ?? NaN;
  } catch {
    sortings.delete(id);
    return undefined;
  }
  const kept = sortings.get(id);
  if (kept && kept.mtime === mtime) return kept;
  const sorted: Sorted = { mtime, count: 0, hits: [], below: [] };
  try {
    for (const entry of Deno.readDirSync(dir)) {
      sorted.count++;
      if (entry.isSymlink) continue; // its target is checked where it is
      const path = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (covered(path, entry)) sorted.hits.push([path, entry.isDirectory]);
      else if (entry.isDirectory) sorted.below.push(path);
    }
  } catch {
    sortings.delete(id);
    return undefined;
  }
  if (Date.now() - mtime > SETTLED_MS) {
    if (sortings.size >= MAX_KEPT) sortings.clear();
    sortings.set(id, sorted);
  } else sortings.delete(id);
  return sorted;
}

/** The directory that holds `path` (`/` for a path at the root). */
function parentOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

function joinPath(dir: string, rest: string): string {
  return rest === "" ? dir : dir === "/" ? `/${rest}` : `${dir}/${rest}`;
}
