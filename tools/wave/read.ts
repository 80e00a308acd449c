/**
 * Read (toolset `wave`, spec 000): a file's text with line numbers, an
 * image for a multimodal model, or a notebook's cells.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import {
  defineTool,
  type InputOf,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../kernel/tool.ts";
import { displayPath, type ResolvedPath } from "../kernel/workspace.ts";
import type { FileKind } from "../_core/file_type.ts";
import { partialRecord, wholeRecord } from "../_core/freshness.ts";
import { bufferRecord, type BufferText, bufferText } from "../_core/buffers.ts";
import { imageBlock } from "../_core/image.ts";
import { renderNotebook } from "../_core/notebook.ts";
import {
  binaryError,
  decodeText,
  kindOf,
  readLineWindow,
  statForRead,
  textLines,
} from "../_core/reader.ts";
import {
  cutLine,
  estimateTokens,
  formatBytes,
  MAX_LINE_CHARS,
  numberLine,
  plural,
} from "../_core/text.ts";
import { readFileBytes } from "../kernel/read_file.ts";

/** The largest file Read takes whole, without an explicit `limit`. */
export const MAX_WHOLE_READ_BYTES = 256 * 1024;
/** Lines returned when no `limit` is given. */
export const DEFAULT_LIMIT = 2000;

const description = `Reads a file from the local file system.

- file_path: an absolute path, or a path relative to the workspace.
- By default reads up to ${DEFAULT_LIMIT} lines from the start. For long files pass offset (the 1-based line to start at) and limit (how many lines).
- Text comes back like \`cat -n\`: each line prefixed with its number and a tab. The number is not part of the file: leave it out of old_string when you Edit.
- Lines longer than 2000 characters are cut, with a marker saying how much was left out.
- Files over 256 KB need an explicit limit (read them in parts), and one read may not exceed the token budget; use Grep to find the part you need first.
- Reads images (PNG, JPEG, GIF, WebP) so you can see them, and Jupyter notebooks (.ipynb) with every cell and its outputs.
- PDF, Office documents, archives and other binary files are refused; convert them with a command in Bash if you need their text.
- If the file has not changed since you last read the same part of it, you get a short "unchanged" reply instead of the content: the earlier result is still current.
- Read a file before you Edit or Write over it.`;

const input = z.object({
  file_path: z.string().min(1).describe(
    "The file to read: absolute, or relative to the workspace",
  ),
  offset: z.number().int().min(1).optional().describe(
    "The line to start reading at, 1-based. Only for files too long to read at once",
  ),
  limit: z.number().int().min(1).optional().describe(
    `How many lines to read (default ${DEFAULT_LIMIT})`,
  ),
}).strict();

type Input = InputOf<typeof input>;

export default defineTool({
  name: "Read",
  description,
  input,
  scopes: { read: true },
  buffers: true,
  paths: (i) => [{ path: i.file_path, access: "read" }],
  warmup: [{ file_path: "notes.txt" }, { file_path: "main.ts" }],
  async run(i, ctx) {
    const file = ctx.path(i.file_path);
    const shown = displayPath(ctx.workspace, file.abs);
    const info = await statForRead(
      file.real,
      ctx,
      shown,
      `${shown} is a directory, not a file; list it with Glob (pattern "*" and path "${shown}") or with ls in Bash.`,
    );
    const range = { offset: i.offset ?? 1, limit: i.limit ?? DEFAULT_LIMIT };

    const last = ctx.readState.get(file.real);
    if (
      !last?.buffer &&
      last?.reader === "Read" && last.range?.offset === range.offset &&
      last.range?.limit === range.limit &&
      last.mtimeMs === (info.mtime?.getTime() ?? 0) &&
      last.size === info.size
    ) {
      return unchanged(shown, range, file.abs);
    }

    const kind = await kindOf(file.real);
    switch (kind.kind) {
      case "binary":
        throw binaryError(
          shown,
          kind.name,
          "Read handles text, images (PNG, JPEG, GIF, WebP) and notebooks (.ipynb); to get text out of this format, use a converter in Bash (for example pdftotext for a PDF).",
        );
      case "image":
        return await readImage(file, shown, kind.mediaType, info, range, ctx);
      case "notebook":
        return await readNotebook(file, shown, info, range, ctx);
      case "text": {
        // An editor that serves its buffers has the text (unsaved changes
        // included); images and notebooks are read from the disk.
        const buffer = await bufferText(ctx, file.real);
        if (!buffer) {
          return await readText(file, shown, kind, info, i, range, ctx);
        }
        if (
          last?.buffer && last.reader === "Read" && last.hash === buffer.hash &&
          last.range?.offset === range.offset &&
          last.range?.limit === range.limit
        ) return unchanged(shown, range, file.abs);
        return await readText(file, shown, kind, info, i, range, ctx, buffer);
      }
    }
  },
});

function unchanged(
  shown: string,
  range: { offset: number; limit: number },
  abs: string,
): ToolResult {
  return {
    content:
      `File unchanged since your last Read of ${shown} (lines from ${range.offset}, limit ${range.limit}): that result is still current; refer to it instead of reading again.`,
    structured: { type: "file_unchanged", path: abs },
  };
}

async function readImage(
  file: ResolvedPath,
  shown: string,
  mediaType: Extract<FileKind, { kind: "image" }>["mediaType"],
  info: Deno.FileInfo,
  range: { offset: number; limit: number },
  ctx: ToolContext,
): Promise<ToolResult> {
  const bytes = await readFileBytes(file.real);
  const image = await imageBlock(bytes, mediaType, shown);
  ctx.readState.record(file.real, {
    ...wholeRecord(file.real, bytes, "Read", info),
    range,
  });
  return {
    content: [
      image.block,
      {
        type: "text",
        text: `${shown}: ${mediaType}, ${image.width}×${image.height} px, ${
          formatBytes(info.size)
        }`,
      },
    ],
    structured: {
      type: "image",
      path: file.abs,
      mediaType,
      width: image.width,
      height: image.height,
      bytes: info.size,
    },
  };
}

async function readNotebook(
  file: ResolvedPath,
  shown: string,
  info: Deno.FileInfo,
  range: { offset: number; limit: number },
  ctx: ToolContext,
): Promise<ToolResult> {
  const bytes = await readFileBytes(file.real);
  const view = renderNotebook(decodeText(bytes, "utf-8"), shown);
  const text = view.blocks.map((b) => b.type === "text" ? b.text : "").join("");
  const tokens = estimateTokens(text);
  if (tokens > ctx.limits.maxReadTokens) {
    throw overBudget(shown, tokens, ctx.limits.maxReadTokens, info.size);
  }
  ctx.readState.record(file.real, {
    ...wholeRecord(file.real, bytes, "Read", info),
    range,
  });
  return {
    content: view.blocks,
    structured: {
      type: "notebook",
      path: file.abs,
      cells: view.cells,
      language: view.language,
      images: view.images,
      bytes: info.size,
    },
  };
}

function overBudget(
  shown: string,
  tokens: number,
  budget: number,
  size: number,
): ToolError {
  return new ToolError(
    `${shown} is too large to read at once: about ${tokens} tokens (${
      formatBytes(size)
    }), over the ${budget}-token budget of one Read. Read it in parts with offset and limit, or search it with Grep (or jq for JSON) for the part you need.`,
    { type: "over_token_budget", tokens, budget },
  );
}

async function readText(
  file: ResolvedPath,
  shown: string,
  kind: Extract<FileKind, { kind: "text" }>,
  info: Deno.FileInfo,
  i: Input,
  range: { offset: number; limit: number },
  ctx: ToolContext,
  buffer?: BufferText,
): Promise<ToolResult> {
  const ranged = i.offset !== undefined || i.limit !== undefined;
  const size = buffer?.bytes.length ?? info.size;
  if (i.limit === undefined && size > MAX_WHOLE_READ_BYTES) {
    throw new ToolError(
      `${shown} is ${formatBytes(size)} (${size} bytes), over the ${
        formatBytes(MAX_WHOLE_READ_BYTES)
      } that Read takes without a limit. Read it in parts with offset and limit (e.g. offset 1, limit 500), or use Grep to find the lines you need.`,
      { type: "file_too_large", bytes: size, max: MAX_WHOLE_READ_BYTES },
    );
  }
  const start = range.offset - 1;
  let lines: string[];
  let omitted: number[] = [];
  let totalLines: number;
  let bytes: Uint8Array | undefined;
  if (buffer) {
    const all = textLines(buffer.text);
    totalLines = all.length;
    lines = all.slice(start, start + range.limit);
  } else if (info.size > MAX_WHOLE_READ_BYTES && kind.encoding === "utf-8") {
    // Only with an explicit limit: stream the window, memory stays flat
    // (a long line keeps only the head that is shown).
    ({ lines, omitted, totalLines } = await readLineWindow(
      file.real,
      start,
      range.limit,
      MAX_LINE_CHARS,
    ));
  } else {
    bytes = await readFileBytes(file.real);
    const all = textLines(decodeText(bytes, kind.encoding));
    totalLines = all.length;
    lines = all.slice(start, start + range.limit);
  }

  // What the model saw came from the editor: the whole buffer's hash is
  // what a later change is checked against, however much of it was shown.
  const record = () =>
    buffer ? { ...bufferRecord(buffer, "Read", info), range } : undefined;
  if (totalLines === 0) {
    const fromBuffer = record();
    if (fromBuffer) ctx.readState.record(file.real, fromBuffer);
    else if (bytes) {
      ctx.readState.record(file.real, {
        ...wholeRecord(file.real, bytes, "Read", info),
        range,
      });
    }
    return {
      content: `${shown} exists but is empty (0 lines, ${formatBytes(size)}).`,
      structured: {
        type: "text",
        path: file.abs,
        totalLines: 0,
        startLine: 1,
        numLines: 0,
        bytes: size,
        truncated: false,
      },
    };
  }
  if (start >= totalLines) {
    throw new ToolError(
      `offset ${range.offset} is past the end of ${shown}, which has ${
        plural(totalLines, "line")
      }. Use an offset from 1 to ${totalLines}.`,
      { type: "offset_past_end", totalLines },
    );
  }

  let cutCount = 0;
  const numbered = lines.map((line, k) => {
    const cut = cutLine(line, MAX_LINE_CHARS, omitted[k]);
    if (cut.cut) cutCount++;
    return numberLine(range.offset + k, cut.text);
  });
  let text = numbered.join("\n");
  const end = range.offset + lines.length - 1;
  const more = end < totalLines;
  if (more) {
    text +=
      `\n\n(Showing lines ${range.offset}-${end} of ${totalLines}. Call Read with offset ${
        end + 1
      } to continue.)`;
  }
  const tokens = estimateTokens(text);
  if (tokens > ctx.limits.maxReadTokens) {
    throw overBudget(shown, tokens, ctx.limits.maxReadTokens, size);
  }

  ctx.readState.record(
    file.real,
    record() ??
      (ranged || !bytes
        ? { ...partialRecord(info, "Read"), range }
        : { ...wholeRecord(file.real, bytes, "Read", info), range }),
  );
  return {
    content: text,
    structured: {
      type: "text",
      path: file.abs,
      totalLines,
      startLine: range.offset,
      numLines: lines.length,
      bytes: size,
      truncated: more || cutCount > 0,
      linesCut: cutCount,
    },
  };
}
