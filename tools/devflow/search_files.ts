/**
 * search_files (toolset `devflow`, F-FILE-05): files by name, a glob or a
 * piece of the name, anywhere below a directory, noise directories skipped.
 *
 * @module
 */

import * as posix from "../kernel/posix_path.ts";
import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { findFiles } from "../_core/find.ts";
import { globMatcher } from "../_core/glob_matcher.ts";
import { NOISE_DIRS } from "../_core/listing.ts";
import { searchRoot } from "../_core/reader.ts";
import { devflowPath } from "./_dialect.ts";

const description =
  `Finds files by name anywhere below a directory (default: the project).

- pattern: a glob ("*.ts", "src/**/test_*.py", "config.{json,yaml}") or, without glob characters, a piece of the file name ("readme" finds README.md; case-insensitive).
- Skips node_modules, .git, dist, build, .venv, __pycache__ and similar.
- Returns {files, truncated}, in path order, at most max_results (default 200).`;

const input = z.object({
  pattern: z.string().min(1),
  path: z.string().min(1).optional(),
  max_results: z.number().int().min(1).max(5000).default(200),
}).strict();

export default defineTool({
  name: "search_files",
  description,
  input,
  scopes: { read: true, run: ["rg"] },
  mode: "ask",
  paths: (i) => i.path ? [{ path: devflowPath(i.path), access: "read" }] : [],
  warmup: [{ pattern: "*.ts" }],
  async run(i, ctx) {
    const root = await searchRoot(
      ctx,
      i.path ? devflowPath(i.path) : undefined,
      true,
    );
    const glob = /[*?[{]/.test(i.pattern);
    const matches = glob
      ? await globMatcher(
        i.pattern.includes("/") ? i.pattern : `**/${i.pattern}`,
        { dot: true },
      )
      : (path: string) =>
        posix.basename(path).toLowerCase().includes(i.pattern.toLowerCase());
    const all = await findFiles(ctx, {
      root: root.real,
      globs: [],
      includeIgnored: true,
      excludeDirs: NOISE_DIRS,
      order: "path",
      limit: Number.MAX_SAFE_INTEGER,
    });
    const prefix = root.shown === "." ? "" : `${root.shown}/`;
    const found = all.files.filter((f) =>
      matches(f.startsWith(prefix) ? f.slice(prefix.length) : f)
    );
    const files = found.slice(0, i.max_results);
    const truncated = found.length > files.length;
    return {
      content: files.length
        ? files.join("\n") +
          (truncated
            ? `\n[truncated: ${found.length} files match; the first ${files.length} are shown]`
            : "")
        : `No file matching ${JSON.stringify(i.pattern)} under ${root.shown}.`,
      structured: { files, truncated },
    };
  },
});
