/**
 * Content search over ripgrep, for every dialect: files with matches,
 * matching lines with context, or counts; paginated by `offset` and
 * `limit` in path order, so pages follow one another.
 *
 * ripgrep runs in parallel and its output is sorted here by file (it keeps
 * each file's lines together). A search that produces more than
 * {@linkcode COLLECT_CAP} entries is stopped and run again sorted by
 * ripgrep, which is then stopped as soon as the page is full: memory stays
 * bounded however much matches.
 *
 * Respects .gitignore (even outside a git repository), skips `.git/`, and
 * never searches sensitive files.
 *
 * @module
 */

import { WRITER_NAMES_EXCLUDE_GLOBS } from "../kernel/atomic_write.ts";
import { SENSITIVE_EXCLUDE_GLOBS } from "../kernel/sensitive.ts";
import { resolve } from "../kernel/posix_path.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { SensitiveLinks } from "../kernel/workspace.ts";
import {
  leftOutGlobs,
  type RipgrepRun,
  type RipgrepScope,
  ripgrepScope,
  runRipgrep,
} from "./ripgrep.ts";

/** The most entries collected from a parallel run before falling back to a sorted one. */
export const COLLECT_CAP = 10_000;

/** What to search for, and how to page it. */
export interface ContentSearch {
  pattern: string;
  /** The real path of the file or directory to search. */
  root: string;
  mode: "files" | "content" | "count";
  globs?: string[];
  type?: string;
  ignoreCase?: boolean;
  /** The pattern is a literal string, not a regex. */
  literal?: boolean;
  /** `.` matches newlines and a match may span lines. */
  multiline?: boolean;
  before?: number;
  after?: number;
  /** Entries to skip (lines, files or counts). */
  offset?: number;
  /** Entries to return at most. */
  limit: number;
  /** Search files that .gitignore ignores too. */
  includeIgnored?: boolean;
  /** Longest line shown; longer ones are cut by ripgrep with a preview. */
  maxColumns?: number;
  /** Globs that leave paths out whatever the other globs say (wave's state directory; see {@linkcode leftOutGlobs}). */
  leaveOut?: readonly string[];
  /** How deep to descend (1: the root's own files); unlimited when absent. */
  maxDepth?: number;
}

/** One entry of a result. `line` is 1-based; `context` marks a context line. */
export type SearchEntry =
  | { kind: "file"; path: string }
  | { kind: "count"; path: string; count: number }
  | { kind: "line"; path: string; line: number; text: string; context: boolean }
  /** A file searched on its own that is binary and matches: its lines are not shown. */
  | { kind: "binary"; path: string }
  | { kind: "separator" };

/**
 * The line every dialect shows for a binary file searched on its own that
 * matches (a `binary` entry): its path, and why its lines are not shown.
 */
export function binaryMatchLine(entry: { path: string }): string {
  return `${entry.path}: binary file matches; its lines are not shown (it is not text: a command such as \`strings\` or \`xxd\` shows what is in it)`;
}

/** A page of a search. */
export interface SearchPage {
  entries: SearchEntry[];
  /** More entries exist after this page. */
  truncated: boolean;
  /** Offset applied. */
  offset: number;
}

/** ripgrep's arguments for a search (exposed so the bench can run rg with exactly these). */
export function ripgrepArgs(
  search: ContentSearch,
  target: string | undefined,
  sorted = false,
): string[] {
  const args = [
    "--no-config",
    "--color=never",
    "--hidden",
    // .gitignore counts even in a workspace that is not a git repository.
    "--no-require-git",
    `--max-columns=${search.maxColumns ?? 500}`,
    "--max-columns-preview",
  ];
  if (sorted) args.push("--sort=path");
  if (search.includeIgnored) args.push("--no-ignore");
  if (search.ignoreCase) args.push("--ignore-case");
  if (search.literal) args.push("--fixed-strings");
  if (search.multiline) args.push("--multiline", "--multiline-dotall");
  if (search.maxDepth !== undefined) {
    args.push(`--max-depth=${search.maxDepth}`);
  }
  if (search.type) args.push(`--type=${search.type}`);
  for (const glob of search.globs ?? []) args.push(`--glob=${glob}`);
  // After the caller's globs: in ripgrep the last glob that matches decides,
  // so a glob such as "*" or ".env*" cannot bring back .git/, a secret, a
  // writer's temp file or wave's state.
  for (
    const glob of [
      "!.git",
      ...SENSITIVE_EXCLUDE_GLOBS,
      ...WRITER_NAMES_EXCLUDE_GLOBS,
      ...search.leaveOut ?? [],
    ]
  ) {
    args.push(`--glob=${glob}`);
  }
  if (search.mode === "files") args.push("--files-with-matches", "--null");
  else if (search.mode === "count") {
    args.push("--count", "--with-filename", "--null");
  } else {
    args.push(
      "--line-number",
      "--with-filename",
      "--no-heading",
      "--null",
      "--no-context-separator",
    );
    if (search.before) args.push(`--before-context=${search.before}`);
    if (search.after) args.push(`--after-context=${search.after}`);
  }
  args.push(`--regexp=${search.pattern}`);
  if (target !== undefined) args.push("--", target);
  return args;
}

const CONTENT_LINE = /^(\d+)([:-])(.*)$/s;

/** Parses one output record into an entry, its path prefixed with `prefix`; `undefined` for one it does not know. */
export function parseLine(
  mode: ContentSearch["mode"],
  line: string,
  prefix: string,
): SearchEntry | undefined {
  if (mode === "files") return { kind: "file", path: prefix + line };
  const nul = line.indexOf("\0");
  if (nul === -1) return undefined;
  const path = prefix + line.slice(0, nul);
  const rest = line.slice(nul + 1);
  if (mode === "count") return { kind: "count", path, count: Number(rest) };
  const m = CONTENT_LINE.exec(rest);
  if (!m) return undefined;
  return {
    kind: "line",
    path,
    line: Number(m[1]),
    text: m[3].endsWith("\r") ? m[3].slice(0, -1) : m[3],
    context: m[2] === "-",
  };
}

/**
 * Whether a path of the result (relative to the workspace, or absolute) is
 * a hard link to a sensitive file, as {@linkcode SensitiveLinks} finds
 * them: its lines are left out, as the sensitive file's would be. Each
 * path is judged once. Every content search uses it (this module's and
 * `paged_search.ts`), so none shows what another leaves out.
 */
export function secretLinks(ctx: ToolContext): (path: string) => boolean {
  const links = new SensitiveLinks(ctx.workspace);
  const judged = new Map<string, boolean>();
  return (path) => {
    let secret = judged.get(path);
    if (secret === undefined) {
      secret = links.reason(resolve(ctx.workspace, path)) !== undefined;
      judged.set(path, secret);
    }
    return secret;
  };
}

/** Entries of one file, in ripgrep's order. */
interface FileGroup {
  path: string;
  entries: SearchEntry[];
}

/**
 * Searches file contents. Paths in the result are relative to the workspace
 * when inside it. Throws a {@linkcode ToolError} for a bad pattern or type.
 */
export async function searchContent(
  ctx: ToolContext,
  search: ContentSearch,
): Promise<SearchPage> {
  const offset = search.offset ?? 0;
  const scope = await ripgrepScope(ctx, search.root);
  search = { ...search, leaveOut: leftOutGlobs(ctx, scope.cwd) };
  const wanted = offset + search.limit;
  if (wanted < COLLECT_CAP) {
    const groups = await collectParallel(ctx, search, scope);
    if (groups) return page(flatten(groups, search), offset, search.limit);
  }
  return await sortedPage(ctx, search, scope, offset);
}

/** Every entry of a parallel run, grouped by file; `null` past the cap. */
async function collectParallel(
  ctx: ToolContext,
  search: ContentSearch,
  scope: RipgrepScope,
): Promise<FileGroup[] | null> {
  const groups: FileGroup[] = [];
  let current: FileGroup | undefined;
  let count = 0;
  let overflow = false;
  const secret = secretLinks(ctx);
  const run = await runRipgrep(
    ctx,
    ripgrepArgs(search, scope.target),
    scope,
    search.mode === "files" ? "paths" : "path-lines",
    (line) => {
      const entry = parseLine(search.mode, line, scope.prefix);
      if (!entry || entry.kind === "separator") return true;
      if (secret((entry as { path: string }).path)) return true;
      if (++count > COLLECT_CAP) {
        overflow = true;
        return false;
      }
      const path = (entry as { path: string }).path;
      if (current?.path !== path) {
        current = { path, entries: [] };
        groups.push(current);
      }
      current.entries.push(entry);
      return true;
    },
  );
  checkFailure(run, search);
  if (overflow) return null;
  const binary = binaryEntry(run, scope);
  if (binary) groups.push({ path: binary.path, entries: [binary] });
  groups.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return groups;
}

/**
 * Whether a separator goes between `last` and `entry`: with context lines,
 * wherever lines are not adjacent, as ripgrep would print "--". (ripgrep
 * is told not to: a separator line could not be told from a file name.)
 */
function separates(
  search: ContentSearch,
  last: SearchEntry | undefined,
  entry: SearchEntry,
): boolean {
  return search.mode === "content" && !!(search.before || search.after) &&
    last?.kind === "line" && entry.kind === "line" &&
    (last.path !== entry.path || entry.line !== last.line + 1);
}

/** Entries in file order, with separators. */
function flatten(groups: FileGroup[], search: ContentSearch): SearchEntry[] {
  const out: SearchEntry[] = [];
  let last: SearchEntry | undefined;
  for (const group of groups) {
    for (const entry of group.entries) {
      if (separates(search, last, entry)) out.push({ kind: "separator" });
      out.push(entry);
      last = entry;
    }
  }
  return out;
}

/** One page of entries; separators are not counted and never start or end a page. */
function page(
  entries: SearchEntry[],
  offset: number,
  limit: number,
): SearchPage {
  const out: SearchEntry[] = [];
  let seen = 0;
  let truncated = false;
  for (const entry of entries) {
    if (entry.kind === "separator") {
      if (out.length > 0 && seen > offset) out.push(entry);
      continue;
    }
    if (seen >= offset + limit) {
      truncated = true;
      break;
    }
    if (seen >= offset) out.push(entry);
    seen++;
  }
  while (out.at(-1)?.kind === "separator") out.pop();
  return { entries: out, truncated, offset };
}

/** A page from a run sorted by ripgrep, stopped as soon as the page is full. */
async function sortedPage(
  ctx: ToolContext,
  search: ContentSearch,
  scope: RipgrepScope,
  offset: number,
): Promise<SearchPage> {
  const entries: SearchEntry[] = [];
  let seen = 0;
  let truncated = false;
  const secret = secretLinks(ctx);
  const run = await runRipgrep(
    ctx,
    ripgrepArgs(search, scope.target, true),
    scope,
    search.mode === "files" ? "paths" : "path-lines",
    (line) => {
      const entry = parseLine(search.mode, line, scope.prefix);
      if (!entry) return true;
      if (entry.kind !== "separator" && secret(entry.path)) return true;
      if (seen >= offset + search.limit) {
        truncated = true;
        return false;
      }
      if (seen >= offset) {
        if (separates(search, entries.at(-1), entry)) {
          entries.push({ kind: "separator" });
        }
        entries.push(entry);
      }
      seen++;
      return true;
    },
  );
  checkFailure(run, search);
  const binary = binaryEntry(run, scope);
  // The file's only entry: on the first page.
  if (binary && offset === 0) entries.push(binary);
  return { entries, truncated, offset };
}

/** The entry of a file searched on its own that rg found binary and matching. */
function binaryEntry(
  run: RipgrepRun,
  scope: RipgrepScope,
): Extract<SearchEntry, { kind: "binary" }> | undefined {
  return run.binaryMatch && scope.input
    ? { kind: "binary", path: scope.prefix + scope.input.label }
    : undefined;
}

/**
 * A problem ripgrep met with one file or directory, which it reports and
 * walks on from: one that vanished while it walked (another process
 * rewrites files), or one it may not read.
 */
const PER_FILE_PROBLEM = /\(os error \d+\)$/;
/** ripgrep's two lines for a run whose filters left no file to search. */
const NOTHING_SEARCHED =
  /No files were searched|^Running with --debug will show why/;

/**
 * What ripgrep's stderr says, for a run that exited 2: whether it searched
 * no file at all, and the failures that are not one file's (a file deleted
 * during the walk, or one wave may not read, is no failure: it is simply
 * not in the result).
 */
export function ripgrepProblems(
  stderr: string,
): { nothingSearched: boolean; failures: string[] } {
  const problems = stderr.split("\n").map((line) => line.trim())
    .filter((line) => line !== "");
  return {
    nothingSearched: problems.some((line) =>
      line.includes("No files were searched")
    ),
    failures: problems.filter((line) =>
      !PER_FILE_PROBLEM.test(line) && !NOTHING_SEARCHED.test(line)
    ).map((line) => line.replace(/^rg: /, "")),
  };
}

/**
 * Turns ripgrep's failures into errors; its result stands when all it
 * reported were files it could not search (a file deleted during the walk
 * is not an error: it is simply not in the result).
 */
function checkFailure(
  run: { code: number | null; stderr: string; stopped: boolean },
  search: ContentSearch,
): void {
  if (run.code !== 2 || run.stopped) return;
  const { nothingSearched, failures } = ripgrepProblems(run.stderr);
  if (nothingSearched) {
    const filters = [
      ...(search.globs ?? []).map((g) => `glob ${g}`),
      ...(search.type ? [`type ${search.type}`] : []),
    ];
    throw new ToolError(
      `No file was searched: ${
        filters.length ? filters.join(", ") : "the filters"
      } left nothing to search. Globs match paths below the search path, and sensitive files (.env*, keys, credentials) are never searched; to search elsewhere, set path.`,
      { type: "nothing_searched" },
    );
  }
  if (failures.length === 0) return;
  const message = failures.join("\n");
  throw new ToolError(
    `The search failed: ${message.split("\n").slice(0, 6).join("\n")}`,
    { type: "search_error" },
  );
}
