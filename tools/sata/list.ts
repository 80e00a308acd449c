/**
 * list (toolset `sata`, spec 001 浏览): the entries of one directory.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { listDirectory } from "../_core/listing.ts";
import { searchRoot } from "../_core/reader.ts";

/** The most entries returned. */
const MAX_ENTRIES = 1000;

const description =
  `Lists the entries of a directory in the workspace (not recursive).

- Path: the directory (default: the workspace).
- Returns entries with Path and IsDir, directories first, then by name; at most ${MAX_ENTRIES}.
- To find files by name anywhere below, use find; to search contents, grep.`;

const input = z.object({
  Path: z.string().min(1).optional().describe(
    "The directory to list (default: the workspace)",
  ),
}).strict();

export default defineTool({
  name: "list",
  description,
  input,
  scopes: { read: true },
  paths: (i) => i.Path ? [{ path: i.Path, access: "read" }] : [],
  warmup: [{}],
  async run(i, ctx) {
    const root = await searchRoot(ctx, i.Path, true);
    const listing = await listDirectory(ctx, root.real, {
      maxEntries: MAX_ENTRIES,
    });
    const entries = listing.entries.map((e) => ({
      Path: e.path,
      IsDir: e.isDir,
    }));
    const lines = entries.map((e) => e.IsDir ? `${e.Path}/` : e.Path);
    if (listing.truncated) {
      lines.push(`[Truncated: the first ${MAX_ENTRIES} entries are shown.]`);
    }
    return {
      content: lines.length ? lines.join("\n") : `${root.shown} is empty.`,
      structured: { Entries: entries, Truncated: listing.truncated },
    };
  },
});
