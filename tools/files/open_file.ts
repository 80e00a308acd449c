/**
 * open_file (toolset `files`, spec 004): opens a file with the default
 * application of the person's machine (a video plays, an image shows, a
 * PDF opens), in place of `run_command open/xdg-open`, which the command
 * sandbox cannot reach. How is `--open-with`'s: the parent, the system's
 * opener, or not at all. At most 10 seconds.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { displayPath } from "../kernel/workspace.ts";
import { statForRead } from "../_core/reader.ts";

/** The longest open_file waits (spec 004: 10 seconds). */
export const OPEN_TIMEOUT_MS = 10_000;

const description =
  `Opens a file with the default application of the user's machine: a video plays, an image shows, a PDF opens in its reader. Use it instead of running open or xdg-open in a command (the command sandbox cannot reach the user's desktop).

- path: absolute, or relative to the workspace.
- Waits at most 10 seconds. The application it starts is the user's and stays open.
- Where files cannot be opened (no display), it says so: tell the user where the file is instead.`;

const input = z.object({
  path: z.string().min(1).describe("The file to open"),
}).strict();

export default defineTool({
  name: "open_file",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [{ path: i.path, access: "read" }],
  async run(i, ctx) {
    const file = ctx.path(i.path);
    const shown = displayPath(ctx.workspace, file.abs);
    await statForRead(
      file.real,
      ctx,
      shown,
      `${shown} is a directory; open_file opens files.`,
    );
    if (ctx.openWith === "none") {
      throw new ToolError(
        `open_file cannot open files in this session: wave runs without a display (--open-with none). Tell the user where the file is: ${file.abs}`,
        { type: "open_disabled" },
      );
    }
    let how: string;
    try {
      how = await ctx.openFile(file.real, OPEN_TIMEOUT_MS);
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      throw new ToolError(
        `Could not open ${shown}: ${
          error.message.replace(/\.$/, "")
        }. Tell the user where the file is: ${file.abs}`,
        error.structured,
      );
    }
    return {
      content: `Opened ${shown} (${how}).`,
      structured: { path: file.abs, open_with: ctx.openWith, how },
    };
  },
});
