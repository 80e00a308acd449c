/**
 * What `Read` deny rules keep from a call that reads more than the paths it
 * names: the files and directories the rules cover, as they are on disk
 * when the call runs. A search that names no path (Grep, Glob, sata
 * `grep`/`find`, devflow `search_files`, files `find_files`) leaves them
 * out (`ToolContext.hiddenPaths`, given to ripgrep as exclusions), and a
 * command under bubblewrap finds them empty ({@linkcode hideDenied}).
 *
 * A rule naming a path is one `lstat`; a rule with a glob is a walk from
 * the part of it before the first `*` or `?` (the workspace and the other
 * roots for a name at any depth, such as `*.env`), without following
 * symbolic links, and a walk that would look at more than
 * {@linkcode MAX_WALKED} entries refuses the call rather than run it with
 * some covered file left in view.
 *
 * @module
 */

import type { BwrapConfinement } from "../tools/kernel/bwrap.ts";
import { isWithin } from "./_sandbox_plan.ts";
import { pathGlobs } from "./tool_rules.ts";

/** The existing files and directories deny rules cover, real paths. */
export interface DeniedPaths {
  /** Directories, each with all it holds. */
  dirs: string[];
  /** Files (and other non-directories). */
  files: string[];
}

/** The most entries the walks of one call look at. */
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
        const stack = [real];
        while (stack.length > 0) {
          const dir = stack.pop()!;
          let entries: Deno.DirEntry[];
          try {
            entries = [...Deno.readDirSync(dir)];
          } catch {
            continue; // unreadable or gone: nothing of it can be read either
          }
          walked += entries.length;
          if (walked > maxWalked) {
            return {
              refused:
                `the deny rule Read(${specifier}) has more than ${maxWalked} files and directories to look through for what it covers (from ${base}), so what a search or a command could read past it cannot be known; a narrower rule (a directory, a name under one) lets it run`,
            };
          }
          for (const entry of entries) {
            if (entry.isSymlink) continue; // its target is checked where it is
            const path = dir === "/"
              ? `/${entry.name}`
              : `${dir}/${entry.name}`;
            if (glob.test(subject(path))) add(path, entry.isDirectory);
            else if (entry.isDirectory) stack.push(path);
          }
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
 * root refuses every call that names it instead).
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
    !shown.includes(path) && path !== "/" &&
    (shown.some((dir) => isWithin(path, dir)) ||
      !covered.some((dir) => isWithin(path, dir)));
  const dirs = denied.dirs.filter(needed);
  const files = denied.files.filter(needed);
  if (dirs.length === 0 && files.length === 0) return confinement;
  return {
    ...confinement,
    sealDirs: [...(confinement.sealDirs ?? []), ...dirs],
    hideFiles: [...confinement.hideFiles, ...files],
  };
}

function joinPath(dir: string, rest: string): string {
  return rest === "" ? dir : dir === "/" ? `/${rest}` : `${dir}/${rest}`;
}
