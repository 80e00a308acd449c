/**
 * find (toolset `sata`, spec 001 浏览): files (and directories) by name or
 * wildcard.
 *
 * @module
 */

import * as posix from "../kernel/posix_path.ts";
import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { findFiles } from "../_core/find.ts";
import { globMatcher } from "../_core/glob_matcher.ts";
import { searchRoot } from "../_core/reader.ts";

/** The most entries returned. */
const MAX_ENTRIES = 500;

const description =
  `Finds files and directories in the workspace by name: an exact name ("package.json") or a wildcard ("*.test.ts", "config.*").

- Path narrows the search to a directory (default: the workspace).
- A Name with a slash matches paths ("src/**/*.go").
- Returns entries with Path and IsDir, in path order; at most ${MAX_ENTRIES}.
- Files that .gitignore ignores are left out; .git/ always is.`;

const input = z.object({
  Name: z.string().min(1).describe("A file name, or a wildcard pattern"),
  Path: z.string().min(1).optional().describe("The directory to search in"),
}).strict();

export default defineTool({
  name: "find",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) => i.Path ? [{ path: i.Path, access: "read" }] : [],
  warmup: [{ Name: "*.ts" }],
  async run(i, ctx) {
    const root = await searchRoot(ctx, i.Path, true);
    const glob = i.Name.includes("/") ? i.Name : `**/${i.Name}`;
    // Every file, then match names here: directories have no line of their own in rg --files.
    const all = await findFiles(ctx, {
      root: root.real,
      globs: [],
      includeIgnored: false,
      order: "path",
      limit: Number.MAX_SAFE_INTEGER,
    });
    const matcher = await globMatcher(glob, { dot: true });
    const found = new Map<string, boolean>();
    for (const file of all.files) {
      if (matcher(file)) found.set(file, false);
      for (
        let dir = posix.dirname(file);
        dir !== "." && dir !== "/";
        dir = posix.dirname(dir)
      ) {
        if (found.has(dir)) break;
        if (matcher(dir)) found.set(dir, true);
      }
    }
    const entries = [...found].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
      .map(([Path, IsDir]) => ({ Path, IsDir }));
    const truncated = entries.length > MAX_ENTRIES;
    const shown = entries.slice(0, MAX_ENTRIES);
    const lines = shown.map((e) => e.IsDir ? `${e.Path}/` : e.Path);
    if (truncated) {
      lines.push(
        `[Truncated: ${entries.length} entries; the first ${MAX_ENTRIES} are shown.]`,
      );
    }
    return {
      content: shown.length
        ? lines.join("\n")
        : `Nothing named ${i.Name} in ${root.shown}.`,
      structured: { Entries: shown, Truncated: truncated },
    };
  },
});
