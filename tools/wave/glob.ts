/**
 * Glob (toolset `wave`, spec 000): files by name pattern, newest first,
 * including files .gitignore ignores, never anything under `.git/`.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { findFiles } from "../_core/find.ts";
import { relativePattern } from "../_core/glob_pattern.ts";
import { searchRoot } from "../_core/reader.ts";

const description =
  `Finds files by name with a glob pattern, such as "**/*.ts" or "src/**/test_*.py".

- Returns matching paths, most recently modified first, at most limit (default 100).
- Includes files that .gitignore ignores (build output, dependencies), but never anything under .git/.
- A pattern without a slash matches file names at any depth ("*.md" finds every Markdown file).
- path narrows the search to a directory (default: the workspace); a pattern with a slash is relative to it.
- To search file contents, use Grep.`;

const input = z.object({
  pattern: z.string().min(1).describe(
    "The glob pattern to match file paths against",
  ),
  path: z.string().min(1).optional().describe(
    "The directory to search in (default: the workspace)",
  ),
  limit: z.number().int().min(1).max(10_000).default(100).describe(
    "The most paths to return (default 100)",
  ),
}).strict();

export default defineTool({
  name: "Glob",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) => i.path ? [{ path: i.path, access: "read" }] : [],
  warmup: [{ pattern: "**/*.ts" }],
  async run(i, ctx) {
    const started = performance.now();
    const root = await searchRoot(ctx, i.path, true);
    const found = await findFiles(ctx, {
      root: root.real,
      globs: [relativePattern(i.pattern, root, "path")],
      includeIgnored: true,
      order: "newest",
      limit: i.limit,
    });
    const durationMs = Math.round(performance.now() - started);
    const structured = {
      type: "glob",
      pattern: i.pattern,
      path: root.abs,
      files: found.files,
      count: found.files.length,
      total: found.total,
      truncated: found.truncated,
      durationMs,
    };
    if (found.total === 0) {
      return {
        content: `No files found matching ${i.pattern} in ${root.place}.`,
        structured,
      };
    }
    let text = found.files.join("\n");
    if (found.truncated) {
      text +=
        `\n(Showing the ${found.files.length} most recently modified of ${found.total} files. Use a more specific pattern or path to see others.)`;
    }
    return { content: text, structured };
  },
});
