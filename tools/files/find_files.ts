/**
 * find_files (toolset `files`, spec 004): a directory's entries (list),
 * files by name (glob), or file contents by RE2 regex (search), for one or
 * more queries whose results are merged.
 *
 * @module
 */

import { resolve } from "../kernel/posix_path.ts";
import { z } from "../kernel/zod.ts";
import {
  defineTool,
  type InputOf,
  type ToolContext,
  ToolError,
} from "../kernel/tool.ts";
import { findFiles } from "../_core/find.ts";
import { hasLiteral, relativePattern } from "../_core/glob_pattern.ts";
import { listDirectory, type ListEntry } from "../_core/listing.ts";
import {
  type FileRow,
  type LineRow,
  type PagedQuery,
  type PagedSearch,
  pagedSearch,
  searchId,
} from "../_core/paged_search.ts";
import { type SearchRoot, searchRoot } from "../_core/reader.ts";
import { plural } from "../_core/text.ts";
import { refuseGitDir } from "./_dialect.ts";

/** The most output list and glob give, in bytes (spec 004: 128 KiB). */
export const MAX_LISTING_BYTES = 128 * 1024;
/** Rows a search page holds when no limit is given. */
export const DEFAULT_SEARCH_LIMIT = 256;
/** Entries list and glob keep per query: more than 128 KiB of lines could ever show. */
const MAX_KEPT = MAX_LISTING_BYTES / 2;

const description =
  `Finds files: lists a directory, matches file names with a glob, or searches file contents with a regex.

- queries: one or more {dir, pattern, file_pattern, recursive}; their results are merged, each path (or line) once. dir: a directory, absolute or relative to the workspace (default: the workspace).
- mode "list": the entries of dir in alphabetical order, directories marked with a trailing "/" (recursive: true descends; default false). Shows entries as they are, ignored files included.
- mode "glob": files whose paths match pattern (e.g. "**/*.ts", "src/**/test_*.py"; without a slash it matches names at any depth), newest first. Includes files .gitignore ignores. A pattern made only of wildcards ("**/*", "*") is refused: use list for that.
- list and glob stop at 128 KiB of output in all; the end says how many entries were dropped.
- mode "search": pattern is an RE2 regex (no backreferences, no look-around), file_pattern an optional glob the file names must match. Respects .gitignore; sensitive files (.env*, keys) are never searched.
  - output "files" (default): one row per matching file, {"path", "count", "lines"}: count matching lines, lines the first five line numbers, ready for read_files' around.
  - output "content": one row per matching line, {"path", "line", "text"}; context adds lines before and after, marked "context": true and not counted. A line over 512 bytes is cut ("cut": true).
  - multiline: true matches the regex against whole files ("." crosses line ends) and reports every line a match covers.
  - Paged, never cut: offset/limit (default ${DEFAULT_SEARCH_LIMIT}) page through; each page ends with [files a-b of N; next offset=…, search_id=…] (or [lines …]), or says it is the last page. To go on, call again with the same queries and output, that offset and that search_id; a different search must start from offset 0.
- Without mode: pattern and file_pattern → search; pattern only → glob; neither → list.
- No mode ever lists or searches inside .git/. find_files does not count as reading a file: read_files it before you edit it.`;

const query = z.object({
  dir: z.string().min(1).optional().describe(
    "The directory, absolute or relative to the workspace (default: the workspace)",
  ),
  pattern: z.string().min(1).optional().describe(
    'glob: the file-name pattern ("**/*.ts"); search: the RE2 regex',
  ),
  file_pattern: z.string().min(1).optional().describe(
    'search: only files whose paths match this glob ("*.ts")',
  ),
  recursive: z.boolean().optional().describe(
    "Descend into subdirectories (default: false for list, true for glob and search)",
  ),
}).strict();

const input = z.object({
  queries: z.array(query).min(1).max(32).describe(
    "What to find; the results of several queries are merged",
  ),
  mode: z.enum(["list", "glob", "search"]).optional().describe(
    "list, glob or search (default: inferred from the queries)",
  ),
  output: z.enum(["files", "content"]).optional().describe(
    "search: one row per file (default) or per matching line",
  ),
  multiline: z.boolean().optional().describe(
    'search: match across lines ("." matches newlines)',
  ),
  context: z.number().int().min(0).max(100).optional().describe(
    "search, content output: lines of context before and after each match",
  ),
  offset: z.number().int().min(0).optional().describe(
    "search: rows to skip (the next offset a page footer gives)",
  ),
  limit: z.number().int().min(1).max(10_000).optional().describe(
    `search: rows per page (default ${DEFAULT_SEARCH_LIMIT})`,
  ),
  search_id: z.string().min(1).optional().describe(
    "search, offset > 0: the search_id the page footer gives",
  ),
}).strict();

type Input = InputOf<typeof input>;

const SEARCH_ONLY = [
  "output",
  "multiline",
  "context",
  "offset",
  "limit",
  "search_id",
] as const;
type Query = InputOf<typeof query>;
type Mode = "list" | "glob" | "search";

export default defineTool({
  name: "find_files",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) =>
    i.queries.flatMap((q) => q.dir ? [{ path: q.dir, access: "read" }] : []),
  warmup: [
    { queries: [{ pattern: "**/*.ts" }] },
    { queries: [{ pattern: "line 1" }], mode: "search", output: "content" },
  ],
  async run(i, ctx) {
    const mode = modeOf(i);
    if (mode !== "search") {
      const stray = SEARCH_ONLY.filter((k) => i[k] !== undefined);
      if (stray.length > 0) {
        throw new ToolError(
          `${stray.join(", ")} ${
            stray.length === 1 ? "is" : "are"
          } for mode search only; mode ${mode} gives every entry, up to 128 KiB of output. Leave ${
            stray.length === 1 ? "it" : "them"
          } out, or narrow dir or pattern.`,
          { type: "invalid_field" },
        );
      }
    }
    if (mode === "list") return await list(i.queries, ctx);
    if (mode === "glob") return await glob(i.queries, ctx);
    return await search(i, ctx);
  },
});

/** The mode: given, or inferred from every query (which must agree). */
function modeOf(i: Input): Mode {
  const inferred = i.queries.map((q): Mode =>
    q.pattern && q.file_pattern ? "search" : q.pattern ? "glob" : "list"
  );
  if (i.mode === undefined) {
    const other = inferred.findIndex((m) => m !== inferred[0]);
    if (other !== -1) {
      throw new ToolError(
        `queries[0] means ${inferred[0]} but queries[${other}] means ${
          inferred[other]
        } (pattern and file_pattern → search, pattern only → glob, neither → list). Queries of one call share a mode: give mode, or make separate calls.`,
        { type: "mixed_modes" },
      );
    }
    return inferred[0];
  }
  for (const [k, q] of i.queries.entries()) {
    const why = i.mode === "list"
      ? q.pattern || q.file_pattern
        ? "mode list takes dir and recursive only; to match names use mode glob, to search contents mode search"
        : undefined
      : i.mode === "glob"
      ? q.pattern && q.file_pattern
        ? "mode glob takes one name pattern: give pattern only (file_pattern is for mode search)"
        : !q.pattern && !q.file_pattern
        ? 'mode glob needs pattern, a file-name glob such as "**/*.ts"'
        : undefined
      : !q.pattern
      ? "mode search needs pattern, the RE2 regex to search for"
      : undefined;
    if (why) {
      throw new ToolError(`queries[${k}]: ${why}.`, { type: "invalid_query" });
    }
  }
  return i.mode;
}

/** The directory a list or glob query names (the workspace by default), checked. */
async function directory(
  ctx: ToolContext,
  dir: string | undefined,
): Promise<SearchRoot> {
  const root = await searchRoot(ctx, dir, false);
  refuseGitDir(root, ctx.workspace);
  if (!(await Deno.stat(root.real)).isDirectory) {
    throw new ToolError(
      `${root.shown} is a file, not a directory; dir must be a directory. To read the file, use read_files.`,
      { type: "not_a_directory" },
    );
  }
  return root;
}

/** Code-unit order of paths, segment by segment: a directory's entries right after it. */
function treeOrder(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  for (let k = 0; k < Math.min(as.length, bs.length); k++) {
    if (as[k] !== bs[k]) return as[k] < bs[k] ? -1 : 1;
  }
  return as.length - bs.length;
}

/** Lines up to {@linkcode MAX_LISTING_BYTES}; the end says how many were dropped. */
function capped(
  lines: string[],
  dropped: number,
  noun: string,
  nouns: string,
): { text: string; shown: number; dropped: number } {
  const encoder = new TextEncoder();
  let bytes = 0;
  let shown = 0;
  for (const line of lines) {
    const size = encoder.encode(line).length + 1;
    if (bytes + size > MAX_LISTING_BYTES) break;
    bytes += size;
    shown++;
  }
  const gone = dropped + lines.length - shown;
  let text = lines.slice(0, shown).join("\n");
  if (gone > 0) {
    text += `\n[output limit of 128 KiB reached: ${
      plural(gone, `more ${noun}`, `more ${nouns}`)
    } dropped; narrow dir or pattern to see them]`;
  }
  return { text, shown, dropped: gone };
}

async function list(queries: Query[], ctx: ToolContext) {
  const found = new Map<string, ListEntry>();
  let beyond = 0;
  const places: string[] = [];
  for (const q of queries) {
    const root = await directory(ctx, q.dir);
    places.push(root.shown);
    const listing = await listDirectory(ctx, root.real, {
      recursive: q.recursive ?? false,
      maxEntries: MAX_KEPT,
      order: "name",
      opaque: [".git"],
      countAll: true,
    });
    beyond += listing.total - listing.entries.length;
    for (const e of listing.entries) found.set(e.path, e);
  }
  const entries = [...found.values()].sort((a, b) => treeOrder(a.path, b.path));
  const lines = entries.map((e) => e.isDir ? `${e.path}/` : e.path);
  const out = capped(lines, beyond, "entry", "entries");
  const structured = {
    type: "find_files",
    mode: "list",
    entries: entries.slice(0, out.shown).map((e) => ({
      path: e.path,
      type: e.isDir ? "dir" : "file",
      ...(e.isDir ? {} : { size: e.size }),
    })),
    total: entries.length + beyond,
    dropped: out.dropped,
  };
  if (entries.length === 0) {
    return { content: `${places.join(", ")}: empty directory.`, structured };
  }
  return { content: out.text, structured };
}

async function glob(queries: Query[], ctx: ToolContext) {
  const seen = new Set<string>();
  let beyond = 0;
  const patterns: string[] = [];
  for (const q of queries) {
    const given = (q.pattern ?? q.file_pattern)!;
    const root = await directory(ctx, q.dir);
    const pattern = relativePattern(given, root, "dir");
    if (!hasLiteral(pattern)) {
      throw new ToolError(
        `The glob pattern ${
          JSON.stringify(given)
        } has no literal character, so it would match every file: all-wildcard globs are refused. Put part of the names in it (e.g. "**/*.ts", "src/**/test_*"), or use mode list (recursive: true) to see a directory's entries.`,
        { type: "all_wildcard_glob", pattern: given },
      );
    }
    patterns.push(
      root.shown === "." ? given : `${given} in ${root.shown}`,
    );
    const found = await findFiles(ctx, {
      root: root.real,
      globs: [pattern],
      includeIgnored: true,
      order: "newest",
      limit: queries.length > 1 ? Number.MAX_SAFE_INTEGER : MAX_KEPT,
      maxDepth: q.recursive === false ? 1 : undefined,
    });
    beyond += found.total - found.files.length;
    for (const file of found.files) seen.add(file);
  }
  let files = [...seen];
  if (queries.length > 1) files = await newestFirst(ctx.workspace, files);
  const out = capped(files, beyond, "file", "files");
  const structured = {
    type: "find_files",
    mode: "glob",
    files: files.slice(0, out.shown),
    total: files.length + beyond,
    dropped: out.dropped,
  };
  if (files.length === 0) {
    return {
      content: `No files match ${
        patterns.join(", ")
      }. (glob includes ignored files; only .git/ is never looked in.)`,
      structured,
    };
  }
  return { content: out.text, structured };
}

/** Paths (relative to the workspace, or absolute) newest first, by path where equal. */
async function newestFirst(
  workspace: string,
  paths: string[],
): Promise<string[]> {
  const times = new Map<string, number>();
  for (let k = 0; k < paths.length; k += 256) {
    await Promise.all(
      paths.slice(k, k + 256).map(async (p) => {
        const info = await Deno.stat(resolve(workspace, p)).catch(() => null);
        times.set(p, info?.mtime?.getTime() ?? 0);
      }),
    );
  }
  return paths.sort((a, b) =>
    times.get(b)! - times.get(a)! || (a < b ? -1 : a > b ? 1 : 0)
  );
}

async function search(i: Input, ctx: ToolContext) {
  const queries: PagedQuery[] = [];
  const places: string[] = [];
  for (const q of i.queries) {
    const root = await searchRoot(ctx, q.dir, false);
    refuseGitDir(root, ctx.workspace);
    queries.push({
      root: root.real,
      pattern: q.pattern!,
      filePattern: q.file_pattern
        ? relativePattern(q.file_pattern, root, "dir")
        : undefined,
      maxDepth: q.recursive === false ? 1 : undefined,
    });
    places.push(
      `${JSON.stringify(q.pattern)} in ${root.place}${
        q.file_pattern ? ` (files matching ${q.file_pattern})` : ""
      }`,
    );
  }
  const output = i.output ?? "files";
  const offset = i.offset ?? 0;
  const limit = i.limit ?? DEFAULT_SEARCH_LIMIT;
  const request: PagedSearch = {
    queries,
    output,
    multiline: i.multiline,
    context: i.context,
    offset,
    limit,
  };
  const id = searchId(request);
  if (offset > 0 && i.search_id !== id) {
    throw new ToolError(
      i.search_id === undefined
        ? `offset ${offset} continues a search, but no search_id says which. Pass the search_id from the footer of the page before (with the same queries and output), or start again from offset 0.`
        : `offset ${offset} continues the search ${i.search_id}, but this call's queries or output differ from it, so that offset does not count this search's rows. Start again from offset 0 with these queries and output, and follow the page footers from there.`,
      { type: "search_changed", search_id: id },
    );
  }
  const page = await pagedSearch(ctx, request);
  const noun = output === "files" ? "file" : "line";
  if (page.total > 0 && offset >= page.total) {
    throw new ToolError(
      `offset ${offset} is past the end: the search has ${
        plural(page.total, noun)
      }. Use an offset below ${page.total}.`,
      { type: "offset_past_end", total: page.total },
    );
  }
  const structured = {
    type: "find_files",
    mode: "search",
    output,
    rows: page.rows,
    total: page.total,
    offset,
    limit,
    next_offset: page.next ?? null,
    search_id: id,
  };
  if (page.total === 0) {
    const empty = page.nothingSearched.map((k) =>
      ` No file was searched for queries[${k}]: its dir, file_pattern or recursive: false left none.`
    ).join("");
    return {
      content: `No matches for ${
        places.join("; ")
      }.${empty} (search respects .gitignore and never looks in .git/ or sensitive files; glob mode lists ignored files.)\n[0 ${noun}s; last page]`,
      structured,
    };
  }
  const rows = (page.rows as (FileRow | LineRow)[]).map((row) =>
    JSON.stringify(row)
  );
  const range = `${noun}s ${offset + 1}-${
    offset + page.count
  } of ${page.total}`;
  rows.push(
    page.next !== undefined
      ? `[${range}; next offset=${page.next}, search_id=${id}]`
      : `[${range}; last page]`,
  );
  return { content: rows.join("\n"), structured };
}
