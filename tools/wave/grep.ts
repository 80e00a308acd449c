/**
 * Grep (toolset `wave`, spec 000): content search with ripgrep, respecting
 * .gitignore, paged, stopping ripgrep as soon as a page is full.
 *
 * @module
 */

import { plural } from "../_core/text.ts";
import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { searchRoot } from "../_core/reader.ts";
import {
  binaryMatchLine,
  searchContent,
  type SearchEntry,
} from "../_core/search.ts";

/** Entries returned when no head_limit is given. */
export const DEFAULT_HEAD_LIMIT = 250;

const description =
  `Searches file contents with ripgrep (regular expressions, Rust syntax: escape literal braces, e.g. "interface\\{\\}").

- Always use Grep for content search; do not run grep or rg in Bash.
- output_mode: "files_with_matches" (default: the paths of matching files), "content" (matching lines, with -n line numbers and -A/-B/-C context), or "count" (matches per file).
- Narrow with glob (e.g. "*.ts", "**/*.{ts,tsx}") or type (e.g. "py", "rust"), and path (a file or directory; default the workspace).
- Respects .gitignore and skips .git/; sensitive files (.env*, keys, credentials) are never searched. To search an ignored directory (node_modules, build output), set path to it.
- Results come in path order, at most head_limit entries (default ${DEFAULT_HEAD_LIMIT}); pass offset to see the next page.
- -i for case-insensitive; multiline: true lets patterns span lines ("." matches newlines).
- Grep does not count as reading a file: Read it before you Edit it.`;

const input = z.object({
  pattern: z.string().min(1).describe("The regular expression to search for"),
  path: z.string().min(1).optional().describe(
    "File or directory to search (default: the workspace)",
  ),
  glob: z.string().min(1).optional().describe(
    'Only files matching this glob, e.g. "*.js" or "*.{ts,tsx}"',
  ),
  type: z.string().min(1).optional().describe(
    'Only files of this ripgrep type, e.g. "js", "py", "rust"',
  ),
  output_mode: z.enum(["files_with_matches", "content", "count"]).default(
    "files_with_matches",
  )
    .describe("What to return (default files_with_matches)"),
  "-i": z.boolean().optional().describe("Case-insensitive"),
  "-n": z.boolean().optional().describe(
    "Line numbers in content mode (default true)",
  ),
  "-A": z.number().int().min(0).optional().describe(
    "Lines of context after each match (content mode)",
  ),
  "-B": z.number().int().min(0).optional().describe(
    "Lines of context before each match (content mode)",
  ),
  "-C": z.number().int().min(0).optional().describe(
    "Lines of context before and after each match (content mode)",
  ),
  multiline: z.boolean().optional().describe(
    'Patterns may span lines and "." matches newlines',
  ),
  head_limit: z.number().int().min(1).optional().describe(
    `The most entries (lines, files or counts) to return (default ${DEFAULT_HEAD_LIMIT})`,
  ),
  offset: z.number().int().min(0).optional().describe(
    "Entries to skip, to page through results",
  ),
}).strict();

type Mode = "files" | "content" | "count";
const MODES: Record<string, Mode> = {
  files_with_matches: "files",
  content: "content",
  count: "count",
};

export default defineTool({
  name: "Grep",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) => i.path ? [{ path: i.path, access: "read" }] : [],
  warmup: [
    { pattern: "line" },
    { pattern: "line 1", path: "notes.txt", output_mode: "content" },
  ],
  async run(i, ctx) {
    const started = performance.now();
    const root = await searchRoot(ctx, i.path, false);
    const mode = MODES[i.output_mode];
    const limit = i.head_limit ?? DEFAULT_HEAD_LIMIT;
    const page = await searchContent(ctx, {
      pattern: i.pattern,
      root: root.real,
      mode,
      globs: i.glob ? splitGlobs(i.glob) : undefined,
      type: i.type,
      ignoreCase: i["-i"],
      multiline: i.multiline,
      before: mode === "content" ? i["-B"] ?? i["-C"] : undefined,
      after: mode === "content" ? i["-A"] ?? i["-C"] : undefined,
      offset: i.offset,
      limit,
    });
    const lines = page.entries.map((e) => render(e, i["-n"] ?? true));
    const matchLines = page.entries.filter((e) =>
      e.kind === "line" && !e.context
    ).length;
    const files =
      new Set(page.entries.flatMap((e) => "path" in e ? [e.path] : [])).size;
    const totalCount = page.entries.reduce(
      (n, e) => n + (e.kind === "count" ? e.count : 0),
      0,
    );
    const structured = {
      type: "grep",
      mode: i.output_mode,
      pattern: i.pattern,
      path: root.abs,
      files,
      matches: mode === "count"
        ? totalCount
        : mode === "content"
        ? matchLines
        : files,
      entries: page.entries.filter((e) => e.kind !== "separator").length,
      offset: page.offset,
      limit,
      truncated: page.truncated,
      durationMs: Math.round(performance.now() - started),
    };
    if (page.entries.length === 0) {
      const paged = (i.offset ?? 0) > 0 ? ` past offset ${i.offset}` : "";
      return {
        content: `No matches found for ${
          JSON.stringify(i.pattern)
        } in ${root.place}${paged}. Grep respects .gitignore, skips .git/ and never searches sensitive files; to search an ignored or other directory, set the path field to it.`,
        structured,
      };
    }
    let text: string;
    if (mode === "files") {
      text = `Found ${plural(files, "file")}\n${lines.join("\n")}`;
    } else if (mode === "count") {
      text = `${lines.join("\n")}\n\nFound ${
        plural(totalCount, "match", "matches")
      } in ${plural(files, "file")}.`;
    } else {
      text = lines.join("\n");
    }
    if (page.truncated) {
      const next = page.offset + structured.entries;
      text +=
        `\n\n(Results cut at ${limit} entries. Call Grep again with offset ${next} for more, or narrow the search.)`;
    }
    return { content: text, structured };
  },
});

/** "*.ts *.tsx" or "*.ts,*.md" → several globs; commas inside braces stay. */
function splitGlobs(glob: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of glob) {
    if (c === "{") depth++;
    if (c === "}") depth--;
    if ((c === "," && depth === 0) || /\s/.test(c)) {
      if (current) out.push(current);
      current = "";
    } else current += c;
  }
  if (current) out.push(current);
  return out;
}

function render(entry: SearchEntry, numbers: boolean): string {
  switch (entry.kind) {
    case "file":
      return entry.path;
    case "count":
      return `${entry.path}:${entry.count}`;
    case "separator":
      return "--";
    case "binary":
      return binaryMatchLine(entry);
    case "line": {
      const sep = entry.context ? "-" : ":";
      return numbers
        ? `${entry.path}${sep}${entry.line}${sep}${entry.text}`
        : `${entry.path}${sep}${entry.text}`;
    }
  }
}
