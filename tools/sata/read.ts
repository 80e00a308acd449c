/**
 * read (toolset `sata`, spec 001 读文件): a file's text from a 1-based line,
 * at most `Limit` lines, cut and marked `Truncated` when too long for a
 * model.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { displayPath } from "../kernel/workspace.ts";
import { MAX_VIEW_CHARS } from "../_core/capture.ts";
import {
  binaryError,
  kindOf,
  readLineWindow,
  statForRead,
} from "../_core/reader.ts";

const description = `Reads a file in the workspace and returns its text.

- Path: relative to the workspace, or absolute (outside the workspace needs the user's approval).
- Offset: the line to start at, counting from 1 (0 or absent: from the start). Limit: the most lines to return (0 or absent: no limit).
- Text longer than ${MAX_VIEW_CHARS} characters is cut at a line and marked Truncated; read on from the next Offset.
- Binary files are refused.`;

const input = z.object({
  Path: z.string().min(1).describe("The file to read"),
  Offset: z.number().int().min(0).default(0).describe(
    "First line, counting from 1; 0 means the start",
  ),
  Limit: z.number().int().min(0).default(0).describe(
    "Most lines to return; 0 means no limit",
  ),
}).strict();

export default defineTool({
  name: "read",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [{ path: i.Path, access: "read" }],
  async run(i, ctx) {
    const file = ctx.path(i.Path);
    const shown = displayPath(ctx.workspace, file.abs);
    await statForRead(file.real, ctx.workspace, shown);
    const kind = await kindOf(file.real);
    if (kind.kind === "binary" || kind.kind === "image") {
      throw binaryError(
        shown,
        kind.kind === "binary" ? kind.name : kind.mediaType,
        "read returns text only.",
      );
    }
    if (kind.kind === "text" && kind.encoding !== "utf-8") {
      throw new ToolError(
        `${shown} is ${kind.encoding.toUpperCase()} text; read returns UTF-8 text only.`,
      );
    }
    const start = Math.max(0, i.Offset - 1);
    const { lines, totalLines } = await readLineWindow(
      file.real,
      start,
      i.Limit || Number.MAX_SAFE_INTEGER,
    );
    const kept: string[] = [];
    let size = 0;
    for (const line of lines) {
      if (size + line.length + 1 > MAX_VIEW_CHARS && kept.length > 0) break;
      kept.push(
        line.length > MAX_VIEW_CHARS ? line.slice(0, MAX_VIEW_CHARS) : line,
      );
      size += line.length + 1;
    }
    const cut = kept.length < lines.length ||
      kept.some((l, k) => l !== lines[k]);
    const content = kept.join("\n") + (kept.length ? "\n" : "");
    const view = { Path: shown, Content: content, Truncated: cut };
    const next = start + kept.length + 1;
    return {
      content: cut
        ? `${content}[Truncated: lines ${start + 1}-${
          start + kept.length
        } of ${totalLines} shown; read on with Offset ${next}.]`
        : content,
      structured: view,
    };
  },
});
