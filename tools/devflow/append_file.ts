/**
 * append_file (toolset `devflow`, F-FILE-04): adds to the end of a file,
 * atomically, creating it if needed.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { formatBytes } from "../_core/text.ts";
import {
  commitWrite,
  currentBytes,
  openForWrite,
} from "../_core/write_path.ts";
import {
  contentBytes,
  DEVFLOW_WRITES,
  devflowPath,
  devflowRef,
} from "./_dialect.ts";

const description =
  `Appends content to the end of a file, creating it (and missing directories) if needed.

- Nothing is added between the old end and the new content: include a leading newline if the file does not end with one.
- encoding: "utf8" (default) or "base64" for binary data.
- Atomic: readers see the file before or after, never half-appended. The old content is kept in file history.
- Returns {old_size (null for a new file), bytes_written, new_size}.
- If you read the file and it has changed on disk since, the append is refused: read_file it again first.`;

const input = z.object({
  path: z.string().min(1),
  content: z.string(),
  encoding: z.enum(["utf8", "base64"]).default("utf8"),
}).strict();

export default defineTool({
  name: "append_file",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "write" }],
  warmup: [{ path: "notes.txt", content: "line 41\n" }],
  async run(i, ctx) {
    const added = contentBytes(i.content, i.encoding);
    const target = await openForWrite(
      ctx,
      DEVFLOW_WRITES,
      devflowRef(ctx, i.path),
      { action: "append to" },
    );
    const { shown, info } = target;
    const old = await currentBytes(target);
    const outcome = await commitWrite(
      ctx,
      DEVFLOW_WRITES,
      target,
      [old, added],
      { tool: "append_file", createParents: true },
    );
    const structured = {
      old_size: info ? old.length : null,
      bytes_written: added.length,
      new_size: outcome.bytesWritten,
      path: devflowPath(i.path),
    };
    return {
      content: `${info ? "Appended" : "Created"} ${shown}: ${
        formatBytes(added.length)
      } added, now ${formatBytes(outcome.bytesWritten)}.`,
      structured,
    };
  },
});
