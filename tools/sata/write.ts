/**
 * write (toolset `sata`, spec 001 改文件): replaces a whole file (or creates
 * it), atomically, returning a `Change`.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { diffable, diffTexts } from "../_core/diff.ts";
import { fileRef } from "../_core/reader.ts";
import { writeWhole } from "../_core/write_path.ts";
import { changeResult } from "./_change.ts";
import { SATA_WRITES } from "./_dialect.ts";

const description =
  `Writes a whole file in the workspace: creates it (with missing directories) or overwrites it.

- Returns a Change: Path, Diff (a line diff of what changed), Line (the first changed line of the new file).
- To change one place in a file, use edit instead.
- Paths outside the workspace need the user's approval.
- If you read the file and it has changed on disk since, write refuses it: read it again first.`;

const input = z.object({
  Path: z.string().min(1).describe("The file to write"),
  Content: z.string().describe("The complete new content"),
}).strict();

export default defineTool({
  name: "write",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: i.Path, access: "write" }],
  warmup: [{ Path: "main.ts", Content: "export {};\n" }],
  async run(i, ctx) {
    const { outcome, oldText, shown } = await writeWhole(
      ctx,
      SATA_WRITES,
      fileRef(ctx, i.Path),
      new TextEncoder().encode(i.Content),
      { action: "write", tool: "write", oldText: true },
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
