/**
 * edit (toolset `sata`, spec 001 改文件): replaces the one occurrence of
 * `Old` with `New`; fails when `Old` is missing or not unique, never
 * editing the wrong place.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { editBytes } from "../_core/edit.ts";
import { fileRef, kindOf, requireUtf8Text } from "../_core/reader.ts";
import {
  commitWrite,
  currentBytes,
  openForWrite,
} from "../_core/write_path.ts";
import { changeResult } from "./_change.ts";
import { SATA_WRITES } from "./_dialect.ts";

const description =
  `Replaces one passage of a file: Old must occur exactly once and is replaced by New.

- If Old is not found, or found more than once, nothing is changed and the error says which; add surrounding text to Old to make it unique.
- Line endings need not match: \\n in Old matches \\r\\n in the file, and the file keeps its own.
- Returns a Change: Path, Diff, Line (the first changed line of the new file).
- If you read the file and it has changed on disk since, edit refuses it: read it again first.`;

const input = z.object({
  Path: z.string().min(1).describe("The file to change"),
  Old: z.string().min(1).describe(
    "The exact text to replace; it must occur once",
  ),
  New: z.string().describe("The text to put in its place"),
}).strict();

export default defineTool({
  name: "edit",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: i.Path, access: "write" }],
  warmup: [{ Path: "notes.txt", Old: "line 2\n", New: "line two\n" }],
  async run(i, ctx) {
    const target = await openForWrite(ctx, SATA_WRITES, fileRef(ctx, i.Path), {
      action: "edit",
      mustExist: true,
    });
    requireUtf8Text(await kindOf(target.real), target.shown, {
      binary: "edit changes text files only.",
      encoding: "edit changes UTF-8 text files only.",
    });
    const edited = editBytes(await currentBytes(target), {
      oldString: i.Old,
      newString: i.New,
    }, target.shown);
    await commitWrite(ctx, SATA_WRITES, target, edited.content, {
      tool: "edit",
      whileFlushing: edited.diff,
    });
    return changeResult("Edited", target.shown, edited.diff(), false);
  },
});
