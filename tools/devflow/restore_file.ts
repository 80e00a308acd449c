/**
 * restore_file (toolset `devflow`): undoes a change made by write_file,
 * patch_file or append_file, from file history.
 *
 * @module
 */

import { plural } from "../_core/text.ts";
import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { listVersions, versionBytes } from "../_core/history.ts";
import { commitWrite, openForWrite, removeFile } from "../_core/write_path.ts";
import { DEVFLOW_WRITES, devflowPath, devflowRef } from "./_dialect.ts";

const description =
  `Undoes a change to a file: puts back the content it had before the last write_file, patch_file or append_file of this session (or before the change version_id names). A file that did not exist before is removed.

The content being replaced is itself kept in history, so a restore can be undone too. Returns the version restored and the file's size after.`;

const input = z.object({
  path: z.string().min(1),
  version_id: z.string().min(1).optional().describe(
    "A version from an earlier restore_file or write result; default: the latest",
  ),
}).strict();

export default defineTool({
  name: "restore_file",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "write" }],
  async run(i, ctx) {
    const file = devflowRef(ctx, i.path);
    const { shown } = file;
    const versions = (await listVersions(ctx)).filter((v) =>
      v.path === file.real && v.tool !== "restore_file"
    );
    const version = i.version_id
      ? versions.find((v) => v.id === i.version_id)
      : versions.at(-1);
    if (!version) {
      throw new ToolError(
        i.version_id
          ? `There is no version ${i.version_id} of ${shown} in this session's history.`
          : `${shown} has no recorded changes in this session to undo.`,
        { type: "no_version" },
      );
    }
    const target = await openForWrite(ctx, DEVFLOW_WRITES, file, {
      action: "restore",
    });
    const bytes = await versionBytes(ctx, version);
    if (bytes === null) {
      await removeFile(ctx, DEVFLOW_WRITES, target, "restore_file");
    } else {
      await commitWrite(ctx, DEVFLOW_WRITES, target, bytes, {
        tool: "restore_file",
        createParents: true,
      });
    }
    return {
      content: bytes === null
        ? `Removed ${shown}: it did not exist before ${version.tool} (${version.at}).`
        : `Restored ${shown} to its content before ${version.tool} (${version.at}): ${
          plural(bytes.length, "byte")
        }.`,
      structured: {
        path: devflowPath(i.path),
        restored_version: version.id,
        deleted: bytes === null,
        size: bytes?.length ?? null,
      },
    };
  },
});
