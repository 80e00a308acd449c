/**
 * patch_file (toolset `devflow`, F-FILE-02): changes part of a file without
 * rewriting it from the model: replace unique text, or a range of lines.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { diffForModel } from "../_core/diff.ts";
import { editBytes, type Edited, editedText } from "../_core/edit.ts";
import { decodeText, kindOf, requireUtf8Text } from "../_core/reader.ts";
import { layoutOf, linesWithEndings, plural } from "../_core/text.ts";
import {
  commitWrite,
  currentBytes,
  openForWrite,
} from "../_core/write_path.ts";
import { DEVFLOW_WRITES, devflowPath, devflowRef } from "./_dialect.ts";

const description = `Changes part of a file in place, in one of two ways:

- old_text → new_text: old_text must occur exactly once (or set replace_all); otherwise nothing changes and the error says how often it occurs. Line endings need not match (\\n matches \\r\\n; the file keeps its own).
- start_line, end_line → new_text: replaces lines start_line..end_line (1-based, inclusive) with new_text. To insert before a line without replacing any, give end_line = start_line - 1.
- Returns the diff and the first changed line. The old content is kept in file history (restore_file undoes it).
- If you read the file and it has changed on disk since, the patch is refused: read_file it again first.`;

const input = z.object({
  path: z.string().min(1),
  new_text: z.string().describe("The replacement"),
  old_text: z.string().min(1).optional().describe("The exact text to replace"),
  replace_all: z.boolean().default(false).describe(
    "With old_text: replace every occurrence",
  ),
  start_line: z.number().int().min(1).optional().describe(
    "First line to replace, 1-based",
  ),
  end_line: z.number().int().min(0).optional().describe(
    "Last line to replace, inclusive",
  ),
}).strict().refine(
  (i) => (i.old_text !== undefined) !== (i.start_line !== undefined),
  {
    message: "give either old_text, or start_line and end_line",
  },
).refine((i) => (i.start_line === undefined) === (i.end_line === undefined), {
  message: "start_line and end_line go together",
});

/** Replaces lines `start`..`end` (1-based, inclusive; `end = start - 1` inserts) with `replacement`. */
function replaceLines(
  text: string,
  start: number,
  end: number,
  replacement: string,
  shown: string,
): string {
  const eol = layoutOf(text).eol;
  const lines = linesWithEndings(text);
  if (end < start - 1) {
    throw new ToolError(`end_line ${end} is before start_line ${start}.`, {
      type: "bad_range",
    });
  }
  if (start > lines.length + 1 || end > lines.length) {
    throw new ToolError(
      `${shown} has ${
        plural(lines.length, "line")
      }; the range ${start}-${end} is past its end.`,
      {
        type: "bad_range",
      },
    );
  }
  let inserted = replacement.replace(/\r?\n/g, eol);
  const followed = end < lines.length ||
    (lines.at(-1)?.endsWith("\n") ?? false);
  if (
    inserted && !inserted.endsWith(eol) && (followed || start <= lines.length)
  ) inserted += eol;
  return lines.slice(0, start - 1).join("") + inserted +
    lines.slice(end).join("");
}

export default defineTool({
  name: "patch_file",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "write" }],
  warmup: [{
    path: "notes.txt",
    old_text: "line 3\n",
    new_text: "line three\n",
  }],
  async run(i, ctx) {
    const target = await openForWrite(
      ctx,
      DEVFLOW_WRITES,
      devflowRef(ctx, i.path),
      { action: "patch", mustExist: true },
    );
    const { shown } = target;
    requireUtf8Text(await kindOf(target.real), shown, {
      binary: "patch_file changes text files only.",
      encoding: "patch_file changes UTF-8 text files only.",
    });
    const bytes = await currentBytes(target);
    let edited: Edited;
    if (i.old_text !== undefined) {
      edited = editBytes(bytes, {
        oldString: i.old_text,
        newString: i.new_text,
        replaceAll: i.replace_all,
      }, shown);
    } else {
      const original = decodeText(bytes, "utf-8");
      edited = editedText(
        shown,
        original,
        replaceLines(original, i.start_line!, i.end_line!, i.new_text, shown),
        i.end_line! - i.start_line! + 1,
      );
    }
    const outcome = await commitWrite(
      ctx,
      DEVFLOW_WRITES,
      target,
      edited.content,
      { tool: "patch_file", whileFlushing: edited.diff },
    );
    const diff = edited.diff();
    return {
      content: `Patched ${shown}${
        diff.firstChangedLine
          ? `, first change at line ${diff.firstChangedLine}`
          : " (no change)"
      }.\n${diffForModel(diff.unified)}`,
      structured: {
        path: devflowPath(i.path),
        replaced: edited.count,
        first_changed_line: diff.firstChangedLine,
        diff: diff.unified,
        old_size: bytes.length,
        new_size: outcome.bytesWritten,
      },
    };
  },
});
