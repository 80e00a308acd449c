/**
 * Edit (toolset `wave`, spec 000): exact string replacement in a file read
 * in this session, keeping its line endings, BOM and mode.
 *
 * @module
 */

import { plural } from "../_core/text.ts";
import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { diffOrWhy } from "../_core/diff.ts";
import { editBytes } from "../_core/edit.ts";
import { fileRef, kindOf, requireUtf8Text } from "../_core/reader.ts";
import {
  commitWrite,
  currentBytes,
  openForWrite,
} from "../_core/write_path.ts";
import { WAVE_WRITES } from "./_dialect.ts";

const description = `Replaces exact text in a file.

- Read the file first in this session: Edit refuses a file it has not read, or one that changed on disk since (read it again then). Grep does not count as reading.
- old_string must match the file exactly, including indentation; copy it from Read's output without the line-number prefix. Line endings need not match: \\n in old_string matches \\r\\n in the file, and the file keeps its own.
- Use the smallest old_string that is clearly unique: usually 2-4 adjacent lines. Long old_strings (whole functions, long template text) are where copying mistakes happen.
- If old_string occurs more than once, Edit fails with the count: add surrounding lines to make it unique, or set replace_all to true to change every occurrence (for renaming a variable, say).
- If old_string is not found, the error quotes what you sent; read the file again and copy the text exactly.
- To create a new file, or rewrite one completely, use Write.`;

const input = z.object({
  file_path: z.string().min(1).describe(
    "The file to change: absolute, or relative to the workspace",
  ),
  old_string: z.string().describe("The exact text to replace"),
  new_string: z.string().describe(
    "The text to put in its place (must differ from old_string)",
  ),
  replace_all: z.boolean().default(false).describe(
    "Replace every occurrence of old_string (default false)",
  ),
}).strict();

export default defineTool({
  name: "Edit",
  description,
  input,
  scopes: { read: true, write: true },
  buffers: true,
  paths: (i) => [{ path: i.file_path, access: "write" }],
  warmup: [
    {
      file_path: "notes.txt",
      old_string: "line 1\n",
      new_string: "line one\n",
    },
  ],
  async run(i, ctx) {
    const file = fileRef(ctx, i.file_path);
    const target = await openForWrite(ctx, WAVE_WRITES, file, {
      action: "edit",
      mustExist: true,
    });
    const shown = target.shown;
    requireUtf8Text(await kindOf(file.real), shown, {
      binary: "Edit changes text files only.",
      encoding:
        "Edit changes UTF-8 files only, so it would re-encode it. Convert it (iconv in Bash) or rewrite it with Write.",
    });
    const edited = editBytes(await currentBytes(target), {
      oldString: i.old_string,
      newString: i.new_string,
      replaceAll: i.replace_all,
    }, shown);
    await commitWrite(ctx, WAVE_WRITES, target, edited.content, {
      tool: "Edit",
      whileFlushing: edited.diff,
    });
    const diff = edited.diff();
    const { count } = edited;
    return {
      content: `Edited ${shown}: ${
        plural(count, "replacement")
      }, first change at line ${diff.firstChangedLine ?? 1}.\n${
        diffOrWhy(diff)
      }`,
      structured: {
        type: "edit",
        path: file.abs,
        replacements: count,
        firstChangedLine: diff.firstChangedLine,
        linesAdded: diff.added,
        linesRemoved: diff.removed,
        diff: diff.unified,
        hunks: diff.hunks,
        wordDiffs: diff.wordDiffs,
        diffComplete: diff.complete,
      },
    };
  },
});
