/**
 * read (toolset `sata`, spec 001 读文件): a file's text from a 1-based line,
 * at most `Limit` lines, cut and marked `Truncated` when too long for a
 * model.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { MAX_VIEW_CHARS } from "../_core/capture.ts";
import { partialRecord, wholeRecord } from "../_core/freshness.ts";
import {
  decodeText,
  fileRef,
  kindOf,
  readLineWindow,
  requireUtf8Text,
  statForRead,
  textLines,
} from "../_core/reader.ts";
import { readDirectory } from "./_dialect.ts";
import { readFileBytes } from "../kernel/read_file.ts";

/** The largest file a whole read takes in one piece, so the session records its content for later writes. */
const MAX_WHOLE_BYTES = 4 * MAX_VIEW_CHARS;

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
  warmup: [{ Path: "notes.txt" }],
  async run(i, ctx) {
    const file = fileRef(ctx, i.Path);
    const { shown } = file;
    const info = await statForRead(
      file.real,
      ctx,
      shown,
      readDirectory(shown),
    );
    requireUtf8Text(await kindOf(file.real), shown, {
      binary: "read returns text only.",
      encoding: "read returns UTF-8 text only.",
    });
    const start = Math.max(0, i.Offset - 1);
    // A whole read of a small file takes its bytes in one piece, so the
    // record can hold their hash; otherwise the lines stream.
    let bytes: Uint8Array | undefined;
    let lines: string[];
    let totalLines: number;
    if (start === 0 && !i.Limit && info.size <= MAX_WHOLE_BYTES) {
      bytes = await readFileBytes(file.real);
      lines = textLines(decodeText(bytes, "utf-8"));
      totalLines = lines.length;
    } else {
      // The view holds at most MAX_VIEW_CHARS characters, a line costing at
      // least one: one line and one character more than that tell a cut.
      ({ lines, totalLines } = await readLineWindow(
        file.real,
        start,
        Math.min(i.Limit || Infinity, MAX_VIEW_CHARS + 1),
        MAX_VIEW_CHARS + 1,
      ));
    }
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
    ctx.readState.record(
      file.real,
      bytes && !cut
        ? await wholeRecord(file.real, bytes, "read", info)
        : partialRecord(info, "read"),
    );
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
