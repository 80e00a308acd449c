/**
 * Write (toolset `wave`, spec 000): creates a file, or replaces one read in
 * this session, atomically.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { fileRef } from "../_core/reader.ts";
import { describeWholeWrite, writeWhole } from "../_core/write_path.ts";
import { WAVE_WRITES } from "./_dialect.ts";

const description =
  `Writes a whole file: creates it (and missing parent directories), or replaces it.

- Replacing an existing file needs a Read of it in this session first, and fails if it changed on disk since; read it again then.
- For changes to part of a file, prefer Edit: it sends only the change.
- The write is atomic: readers never see a half-written file, and a failed write leaves the old file as it was.
- Do not create documentation or README files unless asked.`;

const input = z.object({
  file_path: z.string().min(1).describe(
    "The file to write: absolute, or relative to the workspace",
  ),
  content: z.string().describe("The complete new content of the file"),
}).strict();

export default defineTool({
  name: "Write",
  description,
  input,
  scopes: { read: true, write: true },
  buffers: true,
  paths: (i) => [{ path: i.file_path, access: "write" }],
  warmup: [{ file_path: "main.ts", content: "export {};\n" }],
  async run(i, ctx) {
    const file = fileRef(ctx, i.file_path);
    const { outcome, oldText, shown } = await writeWhole(
      ctx,
      WAVE_WRITES,
      file,
      new TextEncoder().encode(i.content),
      { action: "overwrite", tool: "Write", oldText: true },
    );
    const { text, lines, diff } = describeWholeWrite(
      shown,
      i.content,
      oldText,
      outcome,
      "Updated",
    );
    return {
      content: text,
      structured: {
        type: outcome.created ? "create" : "update",
        path: file.abs,
        bytes: outcome.bytesWritten,
        previousBytes: outcome.previousSize ?? null,
        lines,
        diff: diff?.unified ?? null,
        firstChangedLine: diff?.firstChangedLine ?? null,
      },
    };
  },
});
