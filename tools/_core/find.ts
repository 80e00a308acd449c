/**
 * Finding files by name over `rg --files`, for every dialect: glob
 * patterns, ignored files included or not, `.git/` never, newest first or
 * by path, at most `limit` kept in memory.
 *
 * @module
 */

import { WRITER_NAMES_EXCLUDE_GLOBS } from "../kernel/atomic_write.ts";
import type { ToolContext } from "../kernel/tool.ts";
import { leftOutGlobs, ripgrepScope, runRipgrep } from "./ripgrep.ts";

/** A search by name. */
export interface FileSearch {
  /** The real path of the directory to search. */
  root: string;
  /** Glob patterns (gitignore style: one without a slash matches at any depth). */
  globs: string[];
  /** Include files .gitignore ignores. */
  includeIgnored: boolean;
  /** Directory names to leave out (noise: node_modules, dist …). */
  excludeDirs?: readonly string[];
  /** Newest first, or path order. */
  order: "newest" | "path";
  /** Case-insensitive globs. */
  ignoreCase?: boolean;
  limit: number;
  offset?: number;
  /** Globs that leave paths out whatever the other globs say (wave's state directory; see {@linkcode leftOutGlobs}). */
  leaveOut?: readonly string[];
  /** How deep to descend (1: the root's own files); unlimited when absent. */
  maxDepth?: number;
}

/** Files found: `files` are the page; `total` counts every match. */
export interface FileSearchResult {
  files: string[];
  total: number;
  truncated: boolean;
}

/** ripgrep's arguments for a name search, run in the root (the bench runs rg with exactly these). */
export function findArgs(search: FileSearch): string[] {
  const args = [
    "--no-config",
    "--files",
    "--null",
    "--hidden",
    // A file that vanishes or cannot be read is left out; rg says so on stderr, which is not read.
    "--no-messages",
    "--no-require-git",
    search.order === "newest" ? "--sortr=modified" : "--sort=path",
  ];
  if (search.includeIgnored) args.push("--no-ignore");
  if (search.maxDepth !== undefined) {
    args.push(`--max-depth=${search.maxDepth}`);
  }
  for (const dir of search.excludeDirs ?? []) args.push(`--glob=!${dir}/`);
  for (const glob of search.globs) {
    args.push(search.ignoreCase ? `--iglob=${glob}` : `--glob=${glob}`);
  }
  // Last: of the globs that match a path, ripgrep obeys the last one, so no
  // glob of the caller's (".git*", "*") lets these back in.
  for (
    const glob of [
      "!.git",
      ...WRITER_NAMES_EXCLUDE_GLOBS,
      ...search.leaveOut ?? [],
    ]
  ) {
    args.push(`--glob=${glob}`);
  }
  return args;
}

/**
 * Finds files under `root` whose paths match the globs. Paths are relative
 * to the workspace when inside it.
 */
export async function findFiles(
  ctx: ToolContext,
  search: FileSearch,
): Promise<FileSearchResult> {
  const { cwd, prefix } = await ripgrepScope(ctx, search.root);
  const offset = search.offset ?? 0;
  const files: string[] = [];
  let total = 0;
  const args = findArgs({ ...search, leaveOut: leftOutGlobs(ctx, cwd) });
  await runRipgrep(ctx, args, { cwd }, "paths", (path) => {
    if (total >= offset && files.length < search.limit) {
      files.push(prefix + path);
    }
    total++;
  });
  return { files, total, truncated: total > offset + files.length };
}
