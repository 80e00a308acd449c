/**
 * read_file (toolset `devflow`, spec 002): a file's text, paged by a
 * 0-based `offset` and a `limit`, with the whole file's line count and size.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { partialRecord, wholeRecord } from "../_core/freshness.ts";
import { isUtf8Text, kindOf } from "../_core/reader.ts";
import {
  estimateTokens,
  formatBytes,
  linesWithEndings,
  plural,
} from "../_core/text.ts";
import { devflowPath, existingTarget } from "./_dialect.ts";
import { readFileBytes } from "../kernel/read_file.ts";

/** The largest file read whole without a `limit`. */
const MAX_WHOLE_BYTES = 256 * 1024;

const description = `Reads a text file, whole or a page of lines.

- path: "/" and "\\" both work; relative to the project, or absolute (outside the project needs the user's approval).
- offset: the first line, counting from 0 (offset 10 is line 11); default 0. limit: how many lines; default: to the end.
- Returns {content, lines, size, path}; lines and size are always the whole file's, whatever the page.
- An offset past the end gives empty content, not an error; a limit past the end reads to the end; an empty file gives {content: "", lines: 0, size: 0}.
- A file that is not UTF-8 text gives {binary: true, content: null, error: "文件非 UTF-8 文本"}; use file_info to learn about it.
- Unlike DevFlow's original, a whole-file read over ${
  formatBytes(MAX_WHOLE_BYTES)
} or over the read budget is refused with a message saying to pass limit, so one read cannot flood the context. To find something in a large file, use search_in_file.`;

const input = z.object({
  path: z.string().min(1).describe('The file: "/" or "\\" separators'),
  offset: z.number().int().min(0).default(0).describe(
    "First line, 0-based (default 0)",
  ),
  limit: z.number().int().min(1).optional().describe(
    "Lines to read (default: to the end)",
  ),
}).strict();

export default defineTool({
  name: "read_file",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "read" }],
  warmup: [{ path: "notes.txt" }],
  async run(i, ctx) {
    const { real, shown, info } = await existingTarget(ctx, i.path);
    const path = devflowPath(i.path);
    const kind = await kindOf(real);
    if (!isUtf8Text(kind)) {
      const structured = {
        binary: true,
        content: null,
        error: "文件非 UTF-8 文本",
        path,
        size: info.size,
      };
      return {
        content: `${shown} is not UTF-8 text (${
          kind.kind === "binary"
            ? kind.name
            : kind.kind === "image"
            ? kind.mediaType
            : kind.encoding
        }, ${
          formatBytes(info.size)
        }); its content is not returned. file_info describes it.`,
        structured,
      };
    }
    if (i.limit === undefined && info.size > MAX_WHOLE_BYTES) {
      throw new ToolError(
        `${shown} is ${formatBytes(info.size)}, over the ${
          formatBytes(MAX_WHOLE_BYTES)
        } read_file returns whole; pass limit (and offset) to read it in pages, or use search_in_file to find what you need.`,
        { type: "too_large", size: info.size },
      );
    }
    const bytes = await readFileBytes(real);
    const text = new TextDecoder("utf-8", { ignoreBOM: false }).decode(bytes);
    const all = linesWithEndings(text);
    const page = all.slice(
      i.offset,
      i.limit === undefined ? undefined : i.offset + i.limit,
    );
    const content = page.join("");
    const tokens = estimateTokens(content);
    if (tokens > ctx.limits.maxReadTokens) {
      throw new ToolError(
        `That is about ${tokens} tokens, over the ${ctx.limits.maxReadTokens}-token read budget; pass a smaller limit (the file has ${
          plural(all.length, "line")
        }), or use search_in_file.`,
        { type: "over_budget", tokens },
      );
    }
    const structured = { content, lines: all.length, size: info.size, path };
    const paged = i.offset > 0 || i.limit !== undefined;
    ctx.readState.record(
      real,
      paged
        ? partialRecord(info, "read_file")
        : await wholeRecord(real, bytes, "read_file", info),
    );
    const note = !paged
      ? ""
      : page.length === 0
      ? `[no lines: offset ${i.offset} is past the end; the file has ${
        plural(all.length, "line")
      }]`
      : `[lines ${i.offset}-${
        i.offset + page.length - 1
      } (0-based) of ${all.length}]`;
    return {
      content: note
        ? `${content}${content && !content.endsWith("\n") ? "\n" : ""}${note}`
        : content,
      structured,
    };
  },
});
