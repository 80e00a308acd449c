/**
 * search_in_file (toolset `devflow`, F-FILE-01): finds text in a file or
 * the files of a directory, with line numbers, without paging through it
 * with read_file.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { binaryMatchLine, searchContent } from "../_core/search.ts";
import { devflowPath, existingTarget } from "./_dialect.ts";

const description =
  `Searches the content of a file, or of every file under a directory, and returns the matching lines with their line numbers.

- pattern: literal text by default; regex: true for a regular expression (Rust syntax).
- case_sensitive: default true.
- context: lines before and after each match (default 0).
- max_results: the most matching lines (default 100, at most 1000); truncated says when there were more.
- Under a directory, .gitignore'd files, .git/ and sensitive files (.env, keys) are skipped.
- Use it instead of reading a large file page by page.`;

const input = z.object({
  path: z.string().min(1).describe("A file, or a directory to search under"),
  pattern: z.string().min(1).describe(
    "The text (or, with regex, the regular expression) to find",
  ),
  regex: z.boolean().default(false),
  case_sensitive: z.boolean().default(true),
  context: z.number().int().min(0).max(20).default(0),
  max_results: z.number().int().min(1).max(1000).default(100),
}).strict();

export default defineTool({
  name: "search_in_file",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) => [{ path: devflowPath(i.path), access: "read" }],
  warmup: [{ path: "notes.txt", pattern: "line 1" }],
  async run(i, ctx) {
    const { real, shown } = await existingTarget(ctx, i.path, true);
    const page = await searchContent(ctx, {
      pattern: i.pattern,
      root: real,
      mode: "content",
      literal: !i.regex,
      ignoreCase: !i.case_sensitive,
      before: i.context,
      after: i.context,
      limit: i.max_results,
    });
    const lines = page.entries.flatMap((e) => e.kind === "line" ? [e] : []);
    const matches = lines.filter((e) => !e.context).map((e) => ({
      path: e.path,
      line: e.line,
      text: e.text,
    }));
    const structured = {
      matches,
      ...(i.context
        ? {
          context: lines.filter((e) => e.context).map((e) => ({
            path: e.path,
            line: e.line,
            text: e.text,
          })),
        }
        : {}),
      truncated: page.truncated,
    };
    const text = page.entries.map((e) =>
      e.kind === "separator"
        ? "--"
        : e.kind === "line"
        ? `${e.path}:${e.line}${e.context ? "-" : ":"}${e.text}`
        : ""
    ).join("\n");
    const binary = page.entries.find((e) => e.kind === "binary");
    return {
      content: binary ? binaryMatchLine(binary) : matches.length
        ? text +
          (page.truncated
            ? `\n[truncated: the first ${i.max_results} results are shown]`
            : "")
        : `No match for ${JSON.stringify(i.pattern)} in ${shown}.`,
      structured,
    };
  },
});
