/**
 * write (toolset `sata`, spec 001 改文件): replaces a whole file (or creates
 * it), atomically, returning a `Change`.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { displayPath } from "../kernel/workspace.ts";
import { diffable, diffTexts } from "../_core/diff.ts";
import {
  decodeText,
  kindOf,
  refuseSpecialFile,
  statOrNull,
} from "../_core/reader.ts";
import { writeAndRecord } from "../_core/writer.ts";
import { changeResult } from "./_change.ts";

const description =
  `Writes a whole file in the workspace: creates it (with missing directories) or overwrites it.

- Returns a Change: Path, Diff (a line diff of what changed), Line (the first changed line of the new file).
- To change one place in a file, use edit instead.
- Paths outside the workspace need the user's approval.`;

const input = z.object({
  Path: z.string().min(1).describe("The file to write"),
  Content: z.string().describe("The complete new content"),
}).strict();

/** The text a file holds now, or `undefined` when it does not exist (or is not text). */
async function currentText(
  real: string,
  shown: string,
): Promise<string | undefined> {
  const info = await statOrNull(real);
  if (!info) return undefined;
  if (info.isDirectory) {
    throw new ToolError(`${shown} is a directory; give a file path.`, {
      type: "is_directory",
    });
  }
  refuseSpecialFile(info, shown);
  const kind = await kindOf(real);
  return kind.kind === "text"
    ? decodeText(await Deno.readFile(real), kind.encoding)
    : undefined;
}

export default defineTool({
  name: "write",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: i.Path, access: "write" }],
  async run(i, ctx) {
    const file = ctx.path(i.Path);
    const shown = displayPath(ctx.workspace, file.abs);
    const oldText = await currentText(file.real, shown);
    const outcome = await writeAndRecord(
      ctx,
      file.real,
      shown,
      new TextEncoder().encode(i.Content),
      {
        createParents: true,
        reader: "write",
      },
    );
    const diff = diffTexts(shown, diffable(oldText ?? ""), diffable(i.Content));
    return changeResult(
      outcome.created ? "Created" : "Wrote",
      shown,
      diff,
      outcome.created,
    );
  },
});
