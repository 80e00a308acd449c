/**
 * What the `files` dialect's tools (spec 004) share: the name its reads
 * are recorded under, and its words for a path inside `.git/`. Private to
 * the `files` toolset.
 *
 * @module
 */

import { relative } from "node:path";
import { ToolError } from "../kernel/tool.ts";
import { isInside } from "../kernel/workspace.ts";
import type { SearchRoot } from "../_core/reader.ts";

/** The toolset's read tool: what its reads are recorded as, and what its messages tell a model to call. */
export const FILES_READER = "read_files";

/**
 * Refuses a directory inside `.git/` (spec 004 find_files: no mode ever
 * lists or searches there). Judged on the path below the workspace (or the
 * whole path outside it), as given and as it really is.
 */
export function refuseGitDir(root: SearchRoot, workspace: string): void {
  for (const path of [root.abs, root.real]) {
    const below = isInside(workspace, path) ? relative(workspace, path) : path;
    if (below.split("/").includes(".git")) {
      throw new ToolError(
        `find_files never lists or searches inside .git/ (${root.shown} is in it): those are git's own files. Use a directory of the work tree.`,
        { type: "git_dir" },
      );
    }
  }
}
