/**
 * list_directory (toolset `devflow`, spec 002): a directory's entries, one
 * level or recursively to a depth, noise directories skipped on request.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { listDirectory, NOISE_DIRS } from "../_core/listing.ts";
import { devflowPath, devflowRef, noDirectory } from "./_dialect.ts";
import { statOrNull } from "../kernel/stat.ts";

/** The most entries returned; `truncated` says when more exist. */
const MAX_ENTRIES = 2000;

const description =
  `Lists a directory: entries {name, type ("directory" or "file"), size, depth}, directories first, then files, by name.

- recursive: also list subdirectories (default false); names are then paths relative to the listed directory, and depth counts levels (0 = the directory's own entries).
- max_depth: with recursive, the deepest level listed (0 = only the directory's own entries; 3 is a good project overview).
- skip_noise_dirs: leave out ${
    NOISE_DIRS.slice(0, 8).join(", ")
  } and similar (default false).
- At most ${MAX_ENTRIES} entries; truncated is true when more exist.
- To find files by name, use search_files.`;

const input = z.object({
  path: z.string().min(1).describe('The directory: "/" or "\\" separators'),
  recursive: z.boolean().default(false),
  max_depth: z.number().int().min(0).optional().describe(
    "With recursive: the deepest level (0 = top level only)",
  ),
  skip_noise_dirs: z.boolean().default(false).describe(
    "Leave out node_modules, .git, dist, build, .venv, __pycache__ …",
  ),
}).strict();

export default defineTool({
  name: "list_directory",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "read" }],
  warmup: [{ path: "." }],
  async run(i, ctx) {
    const { real, shown } = devflowRef(ctx, i.path);
    const info = await statOrNull(real);
    if (!info) throw noDirectory(shown);
    if (!info.isDirectory) {
      throw new ToolError(`${shown} is a file, not a directory.`, {
        type: "not_a_directory",
      });
    }
    const listing = await listDirectory(ctx, real, {
      recursive: i.recursive,
      maxDepth: i.max_depth,
      skipNoise: i.skip_noise_dirs,
      maxEntries: MAX_ENTRIES,
    });
    const entries = listing.entries.map((e) => ({
      name: e.name,
      type: e.isDir ? "directory" as const : "file" as const,
      size: e.size,
      depth: e.depth,
    }));
    const lines = entries.map((e) =>
      `${"  ".repeat(e.depth)}${e.name}${
        e.type === "directory" ? "/" : ` (${e.size} B)`
      }`
    );
    if (listing.truncated) {
      lines.push(`[truncated: the first ${MAX_ENTRIES} entries are shown]`);
    }
    return {
      content: lines.length ? lines.join("\n") : `${shown} is empty.`,
      structured: { entries, truncated: listing.truncated },
    };
  },
});
