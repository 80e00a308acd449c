/**
 * edit (toolset `sata`, spec 001 改文件): replaces the one occurrence of
 * `Old` with `New`; fails when `Old` is missing or not unique, never
 * editing the wrong place.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { displayPath } from "../kernel/workspace.ts";
import { diffable, diffTexts } from "../_core/diff.ts";
import { applyReplacement } from "../_core/matcher.ts";
import {
  binaryError,
  decodeText,
  kindOf,
  statForRead,
} from "../_core/reader.ts";
import { writeAndRecord } from "../_core/writer.ts";
import { changeResult } from "./_change.ts";

const description =
  `Replaces one passage of a file: Old must occur exactly once and is replaced by New.

- If Old is not found, or found more than once, nothing is changed and the error says which; add surrounding text to Old to make it unique.
- Line endings need not match: \\n in Old matches \\r\\n in the file, and the file keeps its own.
- Returns a Change: Path, Diff, Line (the first changed line of the new file).`;

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
  async run(i, ctx) {
    const file = ctx.path(i.Path);
    const shown = displayPath(ctx.workspace, file.abs);
    await statForRead(file.real, ctx.workspace, shown);
    const kind = await kindOf(file.real);
    if (kind.kind === "binary") {
      throw binaryError(shown, kind.name, "edit changes text files only.");
    }
    if (kind.kind !== "text" || kind.encoding !== "utf-8") {
      throw new ToolError(
        `${shown} is not UTF-8 text; edit changes UTF-8 text files only.`,
        {
          type: "unsupported_encoding",
        },
      );
    }
    const original = decodeText(await Deno.readFile(file.real), "utf-8");
    const { text } = applyReplacement(original, {
      oldString: i.Old,
      newString: i.New,
    }, shown);
    await writeAndRecord(
      ctx,
      file.real,
      shown,
      new TextEncoder().encode(text),
      { reader: "edit" },
    );
    return changeResult(
      "Edited",
      shown,
      diffTexts(shown, diffable(original), diffable(text)),
      false,
    );
  },
});
