/**
 * Content search that counts everything and pages in path order, for tools
 * whose pages say "a-b of N" and never cut a result short: every match of
 * every file is counted, so a page knows the total and the next offset.
 * Results come as one row per file (its count and first matching lines) or
 * one row per matching line (with context lines, which are not counted);
 * several queries are merged, each line once.
 *
 * ripgrep runs in parallel (its default engine: RE2 syntax, linear time)
 * and its output is sorted here by path. Memory stays bounded: past
 * `textCap` lines, texts are dropped and only line numbers kept, and the
 * page's files are searched again for their text.
 *
 * Respects .gitignore (even outside a git repository), skips `.git/`, and
 * never searches sensitive files (the arguments of `search.ts`), nor shows
 * hard links to them (its `secretLinks`).
 *
 * @module
 */

import { basename, resolve } from "../kernel/posix_path.ts";
import { type GlobMatcher, globMatcher } from "./glob_matcher.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import {
  leftOutGlobs,
  ripgrepScope,
  runRipgrep,
  STDIN_TARGET,
} from "./ripgrep.ts";
import {
  parseLine,
  ripgrepArgs,
  ripgrepProblems,
  secretLinks,
} from "./search.ts";
import { sha256 } from "./sha256.ts";

/** A matching line longer than this many bytes is cut. */
export const MAX_MATCH_LINE_BYTES = 512;
/** How many matching line numbers a file row carries. */
export const FIRST_LINES = 5;
/** Lines whose text is kept while a search runs; past it, only their numbers. */
export const TEXT_CAP = 20_000;

/** One query: a regex over the files below a root. */
export interface PagedQuery {
  /** The real path of the directory (or file) to search. */
  root: string;
  /** The regex (RE2 syntax). */
  pattern: string;
  /**
   * A glob the files' paths (relative to `root`) must match, gitignore
   * style: one without a slash matches names at any depth. Unlike a
   * ripgrep `--glob`, it never brings back a file or directory that
   * .gitignore, `.git/` or the sensitive-file rules leave out.
   */
  filePattern?: string;
  /** How deep to descend (1: the root's own files); unlimited when absent. */
  maxDepth?: number;
}

/** A search: its queries, what rows it gives, and which page. */
export interface PagedSearch {
  queries: PagedQuery[];
  /** One row per matching file, or one per matching line. */
  output: "files" | "content";
  /** The regex runs over whole files: `.` crosses line ends, and every line a match covers is reported. */
  multiline?: boolean;
  /** Lines of context before and after each matching line (content output). */
  context?: number;
  /** Rows to skip (files, or matching lines). */
  offset: number;
  /** Rows to return at most. */
  limit: number;
  /** Lines whose text is kept while collecting (default {@linkcode TEXT_CAP}). */
  textCap?: number;
}

/** A matching file: how many lines match, and the first {@linkcode FIRST_LINES} of them (1-based). */
export interface FileRow {
  path: string;
  count: number;
  lines: number[];
}

/** A line: a match, or (`context: true`) a line around one. `cut`: it was longer than {@linkcode MAX_MATCH_LINE_BYTES}. */
export interface LineRow {
  path: string;
  line: number;
  text: string;
  context?: true;
  cut?: true;
}

/** What every page says of where it is. */
export interface PageSpan {
  /** Every row the search has (files, or matching lines). */
  total: number;
  /** The offset this page starts at. */
  offset: number;
  /** How many counted rows the page holds (context lines are not counted). */
  count: number;
  /** The offset of the next page, when there is one. */
  next?: number;
  /** The indexes of the queries for which ripgrep searched no file at all (their file pattern or depth left nothing). */
  nothingSearched: number[];
}

/** A page of a search. */
export type PagedResult =
  | PageSpan & { output: "files"; rows: FileRow[] }
  | PageSpan & { output: "content"; rows: LineRow[] };

/**
 * A short id of what a search's rows are (its queries, output and
 * multiline, not its page): two searches with the same id page the same
 * rows, so an offset from one is valid for the other.
 */
export function searchId(search: PagedSearch): string {
  const what = search.queries.map((q) => [
    q.root,
    q.pattern,
    q.filePattern ?? null,
    q.maxDepth ?? null,
  ]);
  return sha256(
    new TextEncoder().encode(
      JSON.stringify([what, search.output, !!search.multiline]),
    ),
  ).slice(0, 8);
}

/** The ripgrep file type a name pattern becomes (`--type-add`). */
const NAME_TYPE = "wavefilepattern";

/**
 * Whether a file pattern goes to ripgrep as a file type: a pattern with
 * no slash (ripgrep matches a type on file names only, so it cannot
 * bring in an ignored directory as a `--glob` that matches the directory
 * would). Others are matched here, on each path.
 */
function isNamePattern(pattern: string): boolean {
  return !/[/:]/.test(pattern) && !pattern.startsWith("!");
}

/** ripgrep's arguments for one query (the bench runs rg with exactly these); a `target` replaces the query's root. */
export function pagedArgs(
  query: PagedQuery,
  search: Pick<PagedSearch, "output" | "multiline" | "context">,
  target: string | undefined,
  leaveOut: readonly string[] = [],
): string[] {
  const context = search.output === "content" ? search.context : undefined;
  const args = ripgrepArgs({
    pattern: query.pattern,
    root: query.root,
    mode: "content",
    multiline: search.multiline,
    before: context,
    after: context,
    maxColumns: MAX_MATCH_LINE_BYTES,
    maxDepth: query.maxDepth,
    limit: 0,
    leaveOut,
  }, undefined);
  if (query.filePattern && isNamePattern(query.filePattern)) {
    args.push(
      `--type-add=${NAME_TYPE}:${query.filePattern}`,
      `--type=${NAME_TYPE}`,
    );
  }
  if (target !== undefined) args.push("--", target);
  return args;
}

/** The paths (as ripgrep prints them, relative to where it runs) a query keeps, when its file pattern is matched here. */
async function pathFilter(
  query: PagedQuery,
  target: string | undefined,
): Promise<GlobMatcher | undefined> {
  const pattern = query.filePattern;
  if (!pattern) return undefined;
  if (target !== undefined) {
    // One file: its name is what a pattern can match.
    const matches = await globMatcher(pattern, { dot: true, basename: true });
    return (path) => matches(basename(path));
  }
  if (isNamePattern(pattern)) return undefined;
  return await globMatcher(pattern, { dot: true });
}

/** A line's text, and whether it is a match (not context). */
interface Held {
  text: string;
  match: boolean;
}

/** One file's matches across the queries. */
interface FileMatches {
  path: string;
  /** Matching lines, ascending, each once. */
  lines: number[];
  /** The queries that matched it. */
  queries: Set<number>;
  /** Texts by line (matches and context), while they are kept. */
  held?: Map<number, Held>;
}

/**
 * Runs a search and returns one page of it. Paths are relative to the
 * workspace when inside it. Throws a {@linkcode ToolError} for a pattern
 * ripgrep's default engine rejects (saying RE2 syntax is expected), for
 * another failure of ripgrep, and on interrupt.
 */
export async function pagedSearch(
  ctx: ToolContext,
  search: PagedSearch,
): Promise<PagedResult> {
  const content = search.output === "content";
  const cap = search.textCap ?? TEXT_CAP;
  const files = new Map<string, FileMatches>();
  const nothingSearched: number[] = [];
  let heldCount = 0;
  let holding = content;
  const secret = secretLinks(ctx);

  for (const [index, query] of search.queries.entries()) {
    const scope = await ripgrepScope(ctx, query.root);
    const keep = await pathFilter(query, scope.target);
    const found: FileMatches[] = [];
    let current: FileMatches | undefined;
    let skipped: string | undefined;
    const run = await runRipgrep(
      ctx,
      pagedArgs(query, search, scope.target, leftOutGlobs(ctx, scope.cwd)),
      scope,
      "path-lines",
      (record) => {
        const entry = parseLine("content", record, scope.prefix);
        if (entry?.kind !== "line" || entry.path === skipped) return;
        if (current?.path !== entry.path) {
          if (
            (keep && !keep(entry.path.slice(scope.prefix.length))) ||
            secret(entry.path)
          ) {
            skipped = entry.path;
            return;
          }
          current = { path: entry.path, lines: [], queries: new Set([index]) };
          if (holding) current.held = new Map();
          found.push(current);
        }
        if (!entry.context) addLine(current.lines, entry.line);
        if (holding) {
          const had = current.held?.get(entry.line);
          if (!had) heldCount++;
          if (!had || (!had.match && !entry.context)) {
            current.held?.set(entry.line, {
              text: entry.text,
              match: !entry.context,
            });
          }
          if (heldCount > cap) {
            holding = false;
            for (const f of [...files.values(), ...found]) f.held = undefined;
          }
        }
      },
    );
    checkRun(run, query);
    if (run.code === 2 && found.length === 0) nothingSearched.push(index);
    for (const file of found) merge(files, file);
  }

  const sorted = [...files.values()].filter((f) => f.lines.length > 0)
    .sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  if (!content) {
    const rows = sorted.slice(search.offset, search.offset + search.limit)
      .map((f) => ({
        path: f.path,
        count: f.lines.length,
        lines: f.lines.slice(0, FIRST_LINES),
      }));
    return {
      output: "files",
      rows,
      ...span(sorted.length, search, rows.length, nothingSearched),
    };
  }

  // The page's matching lines, file by file.
  const picked: { file: FileMatches; lines: number[] }[] = [];
  let seen = 0;
  let total = 0;
  for (const file of sorted) {
    const from = Math.max(search.offset - seen, 0);
    const to = Math.min(search.offset + search.limit - seen, file.lines.length);
    if (from < to) picked.push({ file, lines: file.lines.slice(from, to) });
    seen += file.lines.length;
    total += file.lines.length;
  }
  if (!holding && picked.length > 0) await refetch(ctx, search, picked);
  const rows: LineRow[] = [];
  let count = 0;
  for (const { file, lines } of picked) {
    rows.push(...pageLines(file, lines, search.context ?? 0));
    count += lines.length;
  }
  return {
    output: "content",
    rows,
    ...span(total, search, count, nothingSearched),
  };
}

/** Adds a line number to an ascending list, once. */
function addLine(lines: number[], line: number): void {
  const last = lines.at(-1);
  if (last === line) return;
  lines.push(line);
  if (last !== undefined && line < last) {
    // Not expected of ripgrep; kept right all the same.
    const unique = [...new Set(lines)].sort((a, b) => a - b);
    lines.splice(0, lines.length, ...unique);
  }
}

/** Merges a file found by one query into what the earlier queries found. */
function merge(files: Map<string, FileMatches>, file: FileMatches): void {
  const had = files.get(file.path);
  if (!had) {
    files.set(file.path, file);
    return;
  }
  had.lines = [...new Set([...had.lines, ...file.lines])].sort((a, b) => a - b);
  for (const q of file.queries) had.queries.add(q);
  if (had.held && file.held) {
    for (const [line, held] of file.held) {
      const old = had.held.get(line);
      if (!old || (!old.match && held.match)) had.held.set(line, held);
    }
  } else had.held = undefined;
}

/** How many of a page's files {@linkcode refetch} searches at once. */
const REFETCH_RUNS = 4;

/**
 * Searches the page's files again for the text of their lines (texts were
 * dropped past the cap), each on its own and fed to ripgrep by wave (see
 * `RipgrepInput`): a file swapped for a named pipe since the first run is
 * refused, never waited on.
 */
async function refetch(
  ctx: ToolContext,
  search: PagedSearch,
  picked: { file: FileMatches }[],
): Promise<void> {
  const byPath = new Map(picked.map(({ file }) => [file.path, file]));
  for (const file of byPath.values()) file.held = new Map();
  for (const [index, query] of search.queries.entries()) {
    const files = [...byPath.values()].filter((f) => f.queries.has(index));
    // A few at once: one rg per file, each mostly waiting on its start.
    let next = 0;
    const worker = async () => {
      for (let file = files[next++]; file; file = files[next++]) {
        const held = file.held!;
        const run = await runRipgrep(
          ctx,
          pagedArgs(query, search, STDIN_TARGET),
          {
            cwd: ctx.workspace,
            input: {
              path: resolve(ctx.workspace, file.path),
              label: file.path,
            },
          },
          "path-lines",
          (record) => {
            const entry = parseLine("content", record, "");
            if (entry?.kind !== "line") return;
            const old = held.get(entry.line);
            if (!old || (!old.match && !entry.context)) {
              held.set(entry.line, { text: entry.text, match: !entry.context });
            }
          },
        );
        checkRun(run, query);
      }
    };
    await Promise.all(Array.from({ length: REFETCH_RUNS }, worker));
  }
}

/** The rows of one file's page lines: each match, and the context lines within `context` of one. */
function pageLines(
  file: FileMatches,
  lines: number[],
  context: number,
): LineRow[] {
  const held = file.held ?? new Map<number, Held>();
  const wanted = new Set(lines);
  const near = (line: number) => {
    for (let d = 1; d <= context; d++) {
      if (wanted.has(line - d) || wanted.has(line + d)) return true;
    }
    return false;
  };
  const rows: LineRow[] = [];
  const numbers = [...held.keys()].sort((a, b) => a - b);
  for (const line of numbers) {
    const h = held.get(line)!;
    const isPageMatch = wanted.has(line);
    // A match of another page is not context: it is left to its page.
    if (!isPageMatch && (h.match || !near(line))) continue;
    const { text, cut } = cutMatchLine(h.text);
    const row: LineRow = { path: file.path, line, text };
    if (!isPageMatch) row.context = true;
    if (cut) row.cut = true;
    rows.push(row);
  }
  return rows;
}

/** The marker ripgrep's `--max-columns-preview` puts after a cut line. */
const RG_CUT = " [... omitted end of long line]";

/**
 * A line as a page shows it: at most {@linkcode MAX_MATCH_LINE_BYTES} bytes
 * of UTF-8 (cut on a character boundary), and whether it was cut.
 * ripgrep's own preview marker is taken off.
 */
export function cutMatchLine(text: string): { text: string; cut: boolean } {
  const encoder = new TextEncoder();
  let bytes = encoder.encode(text);
  let cut = false;
  if (
    text.endsWith(RG_CUT) &&
    bytes.length - RG_CUT.length >= MAX_MATCH_LINE_BYTES
  ) {
    text = text.slice(0, -RG_CUT.length);
    bytes = encoder.encode(text);
    cut = true;
  }
  if (bytes.length <= MAX_MATCH_LINE_BYTES) return { text, cut };
  let end = MAX_MATCH_LINE_BYTES;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), cut: true };
}

function span(
  total: number,
  search: PagedSearch,
  count: number,
  nothingSearched: number[],
): PageSpan {
  const end = search.offset + count;
  return {
    total,
    offset: search.offset,
    count,
    next: count > 0 && end < total ? end : undefined,
    nothingSearched,
  };
}

/** Turns a failed run into a {@linkcode ToolError}; a run that searched nothing is not one. */
function checkRun(
  run: { code: number | null; stderr: string },
  query: PagedQuery,
): void {
  if (run.code !== 2) return;
  // Nothing searched is said on the page; one file's problem is no failure.
  const message = ripgrepProblems(run.stderr).failures.join("\n");
  if (message === "") return;
  if (message.startsWith("regex parse error")) {
    const why = message.split("\n").find((l) => l.startsWith("error: "))
      ?.slice("error: ".length) ?? message.split("\n")[0];
    throw new ToolError(
      `The pattern ${
        JSON.stringify(query.pattern)
      } is not valid RE2 syntax: ${why}. The search expects RE2 syntax (ripgrep's default regex engine, which runs in linear time): no backreferences (\\1) and no look-around ((?=…), (?!…), (?<=…), (?<!…)). Rewrite the pattern without them, for example by matching a wider line and reading around it.`,
      { type: "regex_syntax", pattern: query.pattern, detail: why },
    );
  }
  throw new ToolError(
    `The search failed: ${message.split("\n").slice(0, 6).join("\n")}`,
    { type: "search_error" },
  );
}
