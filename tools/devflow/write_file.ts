/**
 * write_file (toolset `devflow`, spec 002): creates or overwrites a file,
 * atomically and with its old content kept in file history.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { formatBytes } from "../_core/text.ts";
import { writeWhole } from "../_core/write_path.ts";
import {
  contentBytes,
  DEVFLOW_WRITES,
  devflowPath,
  devflowRef,
} from "./_dialect.ts";

const description =
  `Creates a file or overwrites it with content; missing parent directories are created.

- Returns {old_size (null for a new file), bytes_written}. Text is written byte for byte as given (emoji, quotes, backslashes, CJK); content "" makes an empty file.
- encoding: "utf8" (default) or "base64" for binary data (images, archives): content is then base64 and its decoded bytes are written. This replaces DevFlow's printf workaround.
- The write is atomic, and the old content is kept in file history: restore_file undoes an overwrite.
- To change part of a file use patch_file; to add to its end, append_file.
- If you read the file and it has changed on disk since, the write is refused: read_file it again first.`;

const input = z.object({
  path: z.string().min(1).describe('The file: "/" or "\\" separators'),
  content: z.string().describe(
    "The new content (text, or base64 with encoding base64)",
  ),
  encoding: z.enum(["utf8", "base64"]).default("utf8").describe(
    '"utf8" (default) or "base64"',
  ),
}).strict();

export default defineTool({
  name: "write_file",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "write" }],
  warmup: [{ path: "main.ts", content: "export {};\n" }],
  async run(i, ctx) {
    const bytes = contentBytes(i.content, i.encoding);
    const { outcome, shown } = await writeWhole(
      ctx,
      DEVFLOW_WRITES,
      devflowRef(ctx, i.path),
      bytes,
      { action: "overwrite", tool: "write_file" },
    );
    const oldSize = outcome.created ? null : outcome.previousSize ?? null;
    return {
      content: oldSize === null
        ? `Created ${shown} (${formatBytes(outcome.bytesWritten)}).`
        : `Overwrote ${shown}: ${
          formatBytes(outcome.bytesWritten)
        } written, was ${formatBytes(oldSize)}.`,
      structured: {
        old_size: oldSize,
        bytes_written: outcome.bytesWritten,
        path: devflowPath(i.path),
      },
    };
  },
});
