/**
 * What the `files` dialect's tools (spec 004) share: the name its reads
 * are recorded under, and its words for a path inside `.git/`. Private to
 * the `files` toolset.
 *
 * @module
 */

import { relative } from "../kernel/posix_path.ts";
import { ToolError } from "../kernel/tool.ts";
import { isInside } from "../kernel/workspace.ts";
import { missingFile, type SearchRoot } from "../_core/reader.ts";
import type { WriteRules } from "../_core/write_path.ts";

/** The toolset's read tool: what its reads are recorded as, and what its messages tell a model to call. */
export const FILES_READER = "read_files";

/**
 * Spec 004 edit_file: a patch, and a write over an existing file, need a
 * read_files read of it in this session with the file unchanged since; a
 * new file needs none. Every change is kept in file history.
 */
export const FILES_WRITES: WriteRules = {
  requireRead: "existing",
  history: true,
  readTool: FILES_READER,
  directory: (shown) => `${shown} is a directory; give a file path.`,
  missing: (file, ctx) => missingFile(file.real, ctx, file.shown),
};

/**
 * edit_file's remove: moving a file aside into history needs no read (it
 * can be restored), but a file read in this session that changed on disk
 * since is still refused as stale.
 */
export const FILES_REMOVES: WriteRules = {
  ...FILES_WRITES,
  requireRead: "never",
};

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
