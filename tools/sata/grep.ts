/**
 * grep (toolset `sata`, spec 001 浏览): matches of a pattern in file
 * contents, as `{Path, Line, Text}`, optionally within `Path`.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { searchRoot } from "../_core/reader.ts";
import { binaryMatchLine, searchContent } from "../_core/search.ts";

/** The most matches returned. */
const MAX_MATCHES = 200;

const description =
  `Searches file contents in the workspace for a regular expression (ripgrep syntax).

- Path narrows the search to a directory or file (default: the whole workspace).
- Returns matches with Path, Line (1-based) and Text; at most ${MAX_MATCHES}, in path order.
- Respects .gitignore, skips .git/, never searches sensitive files (.env, keys).`;

const input = z.object({
  Pattern: z.string().min(1).describe("The regular expression to search for"),
  Path: z.string().min(1).optional().describe(
    "A directory or file to search within",
  ),
}).strict();

export default defineTool({
  name: "grep",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) => i.Path ? [{ path: i.Path, access: "read" }] : [],
  warmup: [{ Pattern: "line" }],
  async run(i, ctx) {
    const root = await searchRoot(ctx, i.Path, false);
    const page = await searchContent(ctx, {
      pattern: i.Pattern,
      root: root.real,
      mode: "content",
      limit: MAX_MATCHES,
    });
    const matches = page.entries.flatMap((e) =>
      e.kind === "line" && !e.context
        ? [{ Path: e.path, Line: e.line, Text: e.text }]
        : []
    );
    const lines = matches.map((m) => `${m.Path}:${m.Line}:${m.Text}`);
    if (page.truncated) {
      lines.push(
        `[Truncated: the first ${MAX_MATCHES} matches are shown; narrow Pattern or Path.]`,
      );
    }
    const binary = page.entries.find((e) => e.kind === "binary");
    return {
      content: matches.length
        ? lines.join("\n")
        : binary
        ? binaryMatchLine(binary)
        : `No matches for ${JSON.stringify(i.Pattern)} in ${root.shown}.`,
      structured: { Matches: matches, Truncated: page.truncated },
    };
  },
});
