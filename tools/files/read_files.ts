/**
 * read_files (toolset `files`, spec 004): one or more files in one call,
 * in order: text as numbered rows (a window, or the lines around given
 * line numbers), images as content blocks, documents by page, slide or row,
 * audio and video as the numbered lines of their transcript
 * (`ctx.transcribe`, the session's speech-to-text model).
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import type { ReadRecord } from "../kernel/read_state.ts";
import {
  type ContentBlock,
  defineTool,
  type InputOf,
  type ToolContext,
  ToolError,
} from "../kernel/tool.ts";
import { displayPath, displayPathsIn } from "../kernel/workspace.ts";
import {
  mediaKindOf,
  renderDocumentPart,
  transcriptLines,
} from "../_core/document_part.ts";
import {
  documentKindOfName,
  readDocument,
  UNIT_OF,
} from "../_core/documents/mod.ts";
import { partialRecord, wholeRecord } from "../_core/freshness.ts";
import { imageBlock } from "../_core/image.ts";
import { aroundSpans, type LineSpan } from "../_core/line_spans.ts";
import {
  binaryError,
  decodeText,
  kindOf,
  readLineWindow,
  statForRead,
  textLines,
} from "../_core/reader.ts";
import { cutLine, estimateTokens, formatBytes, plural } from "../_core/text.ts";
import { FILES_READER } from "./_dialect.ts";
import { readFileBytes } from "../kernel/read_file.ts";

/** Lines (or document parts) one file gives when no limit is given. */
export const DEFAULT_LIMIT = 2048;
/** Lines of context on each side of an `around` line when no context is given. */
export const DEFAULT_CONTEXT = 20;
/** The largest image file read (spec 004: 10 MiB). */
export const MAX_IMAGE_FILE_BYTES = 10 * 1024 * 1024;
/** Text files up to this size are read whole (hashed for freshness); larger ones are streamed. */
const WHOLE_TEXT_BYTES = 8 * 1024 * 1024;

const description =
  `Reads one or more files in one call: text, images (PNG, JPEG, GIF, WebP), documents (PDF, DOCX, PPTX, CSV/TSV), and audio and video (MP3, WAV, M4A, FLAC, Ogg, MP4, WebM, MOV, MKV …) as their transcript.

- files: [{path, offset, limit, around, context}]; a path is absolute or relative to the workspace. The same path may appear more than once; results come back in order, each under a "==> path <==" line.
- Text comes back as "<row>\\t<line>": the row number is added by the reader and is not in the file. Strip the number and the tab before you use a line as an edit_file anchor.
- offset is the 1-based line to start at, limit how many lines (default ${DEFAULT_LIMIT}). A read that stops early ends with [lines a-b of N; call again with offset=… for more]: use that offset.
- around: 1-based line numbers of a text file (e.g. the lines find_files gives); each comes with context lines on each side (default ${DEFAULT_CONTEXT}, 0 = only that line). Overlapping windows merge, and a skipped stretch shows as a "..." line. offset and limit are ignored then.
- Documents page by offset/limit: PDF by page, PPTX by slide, CSV/TSV by row. A document over 1 MiB needs offset/limit; an image over 10 MiB is refused.
- Audio and video come back as the transcript a speech-to-text model made, in numbered lines paged by offset/limit like text. A long recording takes a while the first time; paging through it again is quick.
- Sensitive files (SSH keys, *.pem, *.key, .env*) always need the user's confirmation.
- Read a file before you edit it: edits check that it has not changed since.`;

const file = z.object({
  path: z.string().min(1).describe(
    "The file: absolute, or relative to the workspace",
  ),
  offset: z.number().int().min(1).optional().describe(
    "The 1-based line (or page, slide, row) to start at",
  ),
  limit: z.number().int().min(1).optional().describe(
    `How many lines (or pages, slides, rows) to read (default ${DEFAULT_LIMIT})`,
  ),
  around: z.array(z.number().int().min(1)).min(1).max(1000).optional()
    .describe("1-based line numbers of a text file to read around"),
  context: z.number().int().min(0).max(1000).optional().describe(
    `Lines on each side of each around line (default ${DEFAULT_CONTEXT}; 0 = that line only)`,
  ),
}).strict();

const input = z.object({
  files: z.array(file).min(1).max(100).describe(
    "The files to read, in order",
  ),
}).strict();

type FileInput = InputOf<typeof file>;

/** One file's result: what the model sees, and its metadata. */
interface Part {
  blocks: ContentBlock[];
  structured: Record<string, unknown>;
  failed?: boolean;
}

export default defineTool({
  name: "read_files",
  description,
  input,
  scopes: { read: true },
  sensitive: "always_ask",
  paths: (i) => i.files.map((f) => ({ path: f.path, access: "read" })),
  warmup: [{ files: [{ path: "notes.txt" }, { path: "main.ts" }] }],
  async run(i, ctx) {
    const parts: Part[] = [];
    const records = new Map<string, ReadRecord>();
    for (const f of i.files) {
      if (ctx.signal.aborted) {
        throw new ToolError("read_files was interrupted.", {
          type: "interrupted",
        });
      }
      try {
        parts.push(await readOne(f, ctx, records));
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        const message = displayPathsIn(ctx.workspace, error.message);
        parts.push({
          blocks: [{
            type: "text",
            text: `==> ${f.path} <==\nError: ${message}`,
          }],
          structured: {
            type: "error",
            path: f.path,
            error: message,
            detail: error.structured ?? null,
          },
          failed: true,
        });
      }
    }
    for (const [real, record] of records) ctx.readState.record(real, record);
    return {
      content: joinParts(parts),
      isError: parts.every((p) => p.failed),
      structured: { type: "read_files", files: parts.map((p) => p.structured) },
    };
  },
});

/** The parts in order: one string when all are text, else text and image blocks (adjacent texts joined by a blank line). */
function joinParts(parts: Part[]): string | ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const part of parts) {
    for (const block of part.blocks) {
      const last = blocks.at(-1);
      if (block.type === "text" && last?.type === "text") {
        last.text += `\n\n${block.text}`;
      } else blocks.push({ ...block });
    }
  }
  if (blocks.every((b) => b.type === "text")) {
    return blocks.map((b) => (b as { text: string }).text).join("\n\n");
  }
  return blocks;
}

/** Keeps the strongest record of a file read more than once in a call: a whole read over a partial one. */
function keep(
  records: Map<string, ReadRecord>,
  real: string,
  record: ReadRecord,
): void {
  const had = records.get(real);
  if (!had || record.whole || !had.whole) records.set(real, record);
}

async function readOne(
  f: FileInput,
  ctx: ToolContext,
  records: Map<string, ReadRecord>,
): Promise<Part> {
  const resolved = ctx.path(f.path);
  const shown = displayPath(ctx.workspace, resolved.abs);
  const real = resolved.real;
  const info = await statForRead(
    real,
    ctx,
    shown,
    `${shown} is a directory, not a file; list it with find_files (mode "list", dir "${shown}").`,
  );
  const head = `==> ${shown} <==`;
  const document = documentKindOfName(resolved.abs);
  const media = mediaKindOf(resolved.abs);
  const kind = document || media ? undefined : await kindOf(real);
  const plainText = kind?.kind === "text" || kind?.kind === "notebook";
  if (f.around && !plainText) {
    throw new ToolError(
      `around takes line numbers of a plain text file, and ${shown} is not one${
        document
          ? `: read it with offset/limit (in ${UNIT_OF[document]}s)`
          : media
          ? ": read its transcript with offset/limit (in lines)"
          : ""
      }.`,
      { type: "around_not_text" },
    );
  }
  if (document) {
    const ranged = f.offset !== undefined || f.limit !== undefined;
    const part = await readDocument(
      real,
      shown,
      document,
      ranged
        ? { offset: f.offset ?? 1, limit: f.limit ?? DEFAULT_LIMIT }
        : undefined,
      ctx.signal,
    );
    const whole = part.first === 1 &&
      part.first + part.parts.length - 1 >= part.total;
    keep(
      records,
      real,
      whole && !ranged
        ? wholeRecord(real, await readFileBytes(real), FILES_READER, info)
        : partialRecord(info, FILES_READER),
    );
    return {
      blocks: [{ type: "text", text: `${head}\n${renderDocumentPart(part)}` }],
      structured: {
        type: "document",
        path: resolved.abs,
        format: document,
        unit: part.unit,
        total: part.total,
        first: part.first,
        count: part.parts.length,
      },
    };
  }
  if (media) {
    const text = await readTranscript(real, shown, media, info, f, ctx);
    keep(records, real, text.record);
    return {
      blocks: [{ type: "text", text: `${head}\n${text.text}` }],
      structured: { path: resolved.abs, ...text.structured },
    };
  }
  switch (kind!.kind) {
    case "binary":
      throw binaryError(
        shown,
        kind!.name,
        "read_files reads text, images (PNG, JPEG, GIF, WebP) and documents (PDF, DOCX, PPTX, CSV/TSV).",
      );
    case "image": {
      if (info.size > MAX_IMAGE_FILE_BYTES) {
        throw new ToolError(
          `${shown} is an image of ${
            formatBytes(info.size)
          }, over the 10 MiB limit of an image read_files reads. Make a smaller copy and read that.`,
          {
            type: "image_too_large",
            bytes: info.size,
            max: MAX_IMAGE_FILE_BYTES,
          },
        );
      }
      const bytes = await readFileBytes(real);
      const image = await imageBlock(bytes, kind!.mediaType, shown);
      keep(
        records,
        real,
        wholeRecord(real, bytes, FILES_READER, info),
      );
      return {
        blocks: [
          {
            type: "text",
            text:
              `${head}\n${image.mediaType}, ${image.width}×${image.height} px, ${
                formatBytes(bytes.length)
              }`,
          },
          image.block,
        ],
        structured: {
          type: "image",
          path: resolved.abs,
          mediaType: image.mediaType,
          width: image.width,
          height: image.height,
          bytes: bytes.length,
        },
      };
    }
    default: {
      const encoding = kind!.kind === "text" ? kind!.encoding : "utf-8";
      const text = f.around
        ? await readAround(real, shown, info, encoding, f.around, f, ctx)
        : await readWindow(real, shown, info, encoding, f, ctx);
      keep(records, real, text.record);
      return {
        blocks: [{ type: "text", text: `${head}\n${text.text}` }],
        structured: { path: resolved.abs, ...text.structured },
      };
    }
  }
}

/** A text read: what the model sees, its metadata, and the read-state record. */
interface TextRead {
  text: string;
  structured: Record<string, unknown>;
  record: ReadRecord;
}

/** A row as the model sees it: `<row>\t<line>`, a line over 2,000 characters cut with a marker. */
function row(n: number, line: string): string {
  return `${n}\t${cutLine(line).text}`;
}

/** The lines of a file read whole (for a small file, or a text not in UTF-8), with its bytes. */
async function wholeLines(
  real: string,
  encoding: "utf-8" | "utf-16le" | "utf-16be",
): Promise<{ lines: string[]; bytes: Uint8Array }> {
  const bytes = await readFileBytes(real);
  return { lines: textLines(decodeText(bytes, encoding)), bytes };
}

/** Rows up to the token budget of one read (at least one). */
function withinBudget(rows: string[], budget: number): number {
  let tokens = 0;
  for (let k = 0; k < rows.length; k++) {
    tokens += estimateTokens(rows[k]) + 1;
    if (tokens > budget && k > 0) return k;
  }
  return rows.length;
}

async function readWindow(
  real: string,
  shown: string,
  info: Deno.FileInfo,
  encoding: "utf-8" | "utf-16le" | "utf-16be",
  f: FileInput,
  ctx: ToolContext,
): Promise<TextRead> {
  const offset = f.offset ?? 1;
  const limit = f.limit ?? DEFAULT_LIMIT;
  let lines: string[];
  let total: number;
  let bytes: Uint8Array | undefined;
  if (info.size <= WHOLE_TEXT_BYTES || encoding !== "utf-8") {
    const whole = await wholeLines(real, encoding);
    bytes = whole.bytes;
    total = whole.lines.length;
    lines = whole.lines.slice(offset - 1, offset - 1 + limit);
  } else {
    ({ lines, totalLines: total } = await readLineWindow(
      real,
      offset - 1,
      limit,
    ));
  }
  if (total === 0) {
    return {
      text: "(empty file: 0 lines)",
      structured: { type: "text", totalLines: 0, startLine: 1, numLines: 0 },
      record: bytes
        ? wholeRecord(real, bytes, FILES_READER, info)
        : partialRecord(info, FILES_READER),
    };
  }
  if (offset > total) {
    throw new ToolError(
      `offset ${offset} is past the end of ${shown}, which has ${
        plural(total, "line")
      }. Use an offset from 1 to ${total}.`,
      { type: "offset_past_end", totalLines: total },
    );
  }
  const rows = lines.map((line, k) => row(offset + k, line));
  const count = withinBudget(rows, ctx.limits.maxReadTokens);
  const end = offset + count - 1;
  let text = rows.slice(0, count).join("\n");
  if (end < total) {
    text += `\n[lines ${offset}-${end} of ${total}; call again with offset=${
      end + 1
    } for more]`;
  }
  const whole = bytes !== undefined && offset === 1 && end === total;
  return {
    text,
    structured: {
      type: "text",
      totalLines: total,
      startLine: offset,
      numLines: count,
      nextOffset: end < total ? end + 1 : null,
    },
    record: whole
      ? wholeRecord(real, bytes!, FILES_READER, info)
      : partialRecord(info, FILES_READER),
  };
}

/**
 * The transcript of audio or video, paged by its lines as a text file is:
 * a first line saying what it is, then `<row>\t<line>` rows, and the
 * footer when more follow.
 */
async function readTranscript(
  real: string,
  shown: string,
  media: string,
  info: Deno.FileInfo,
  f: FileInput,
  ctx: ToolContext,
): Promise<TextRead> {
  let transcript: string;
  try {
    transcript = await ctx.transcribe(real);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    throw new ToolError(
      `${shown} is ${media}: reading it means its transcript, and ${error.message}.`,
      error.structured,
    );
  }
  const lines = transcriptLines(transcript);
  const total = lines.length;
  const offset = f.offset ?? 1;
  const limit = f.limit ?? DEFAULT_LIMIT;
  const what = `[transcript of ${media}]`;
  const structured = {
    type: "transcript",
    format: media,
    totalLines: total,
    startLine: offset,
  };
  if (total === 0) {
    return {
      text: `${what}\n(no speech: 0 lines)`,
      structured: { ...structured, numLines: 0, nextOffset: null },
      record: partialRecord(info, FILES_READER),
    };
  }
  if (offset > total) {
    throw new ToolError(
      `offset ${offset} is past the end of the transcript of ${shown}, which has ${
        plural(total, "line")
      }. Use an offset from 1 to ${total}.`,
      { type: "offset_past_end", totalLines: total },
    );
  }
  const rows = lines.slice(offset - 1, offset - 1 + limit).map((line, k) =>
    row(offset + k, line)
  );
  const count = withinBudget(rows, ctx.limits.maxReadTokens);
  const end = offset + count - 1;
  let text = `${what}\n${rows.slice(0, count).join("\n")}`;
  if (end < total) {
    text += `\n[lines ${offset}-${end} of ${total}; call again with offset=${
      end + 1
    } for more]`;
  }
  // Recorded like a document: a whole read of a file small enough to hash.
  const whole = offset === 1 && end === total &&
    info.size <= WHOLE_TEXT_BYTES;
  return {
    text,
    structured: {
      ...structured,
      numLines: count,
      nextOffset: end < total ? end + 1 : null,
    },
    record: whole
      ? wholeRecord(real, await readFileBytes(real), FILES_READER, info)
      : partialRecord(info, FILES_READER),
  };
}

async function readAround(
  real: string,
  shown: string,
  info: Deno.FileInfo,
  encoding: "utf-8" | "utf-16le" | "utf-16be",
  around: number[],
  f: FileInput,
  ctx: ToolContext,
): Promise<TextRead> {
  const context = f.context ?? DEFAULT_CONTEXT;
  // Spans are clipped to the file once its length is known.
  let spans = aroundSpans(around, context, Number.MAX_SAFE_INTEGER);
  const texts = new Map<LineSpan, string[]>();
  let total: number;
  if (info.size <= WHOLE_TEXT_BYTES || encoding !== "utf-8") {
    const { lines } = await wholeLines(real, encoding);
    total = lines.length;
    for (const span of spans) {
      texts.set(span, lines.slice(span.start - 1, span.end));
    }
  } else {
    total = 0;
    for (const span of spans) {
      const window = await readLineWindow(
        real,
        span.start - 1,
        span.end - span.start + 1,
      );
      texts.set(span, window.lines);
      total = window.totalLines;
    }
  }
  const past = around.filter((n) => n > total);
  if (past.length > 0) {
    throw new ToolError(
      `around line ${past[0]} is past the end of ${shown}, which has ${
        plural(total, "line")
      }. Give line numbers from 1 to ${total}.`,
      { type: "line_past_end", totalLines: total },
    );
  }
  spans = spans.map((span) => {
    const clipped = { start: span.start, end: Math.min(span.end, total) };
    texts.set(clipped, texts.get(span)!);
    return clipped;
  });
  const out: string[] = [];
  const numbered: string[] = [];
  let last = 0;
  for (const span of spans) {
    if (span.start > last + 1) out.push("...");
    texts.get(span)!.forEach((line, k) => {
      const r = row(span.start + k, line);
      out.push(r);
      numbered.push(r);
    });
    last = span.end;
  }
  if (last < total) out.push("...");
  // One read's limits hold here too: at most DEFAULT_LIMIT rows, within the token budget.
  const allowed = Math.min(
    withinBudget(numbered, ctx.limits.maxReadTokens),
    DEFAULT_LIMIT,
  );
  let text: string;
  if (allowed < numbered.length) {
    const cutAt = out.indexOf(numbered[allowed]);
    const lastShown = Number(numbered[allowed - 1].split("\t")[0]);
    text = `${
      out.slice(0, cutAt).join("\n")
    }\n[around: cut after line ${lastShown}, at the limit of one read; ask for fewer lines or a smaller context]`;
  } else text = out.join("\n");
  return {
    text,
    structured: {
      type: "text",
      totalLines: total,
      around: spans.map((s) => [s.start, s.end]),
      numLines: Math.min(allowed, numbered.length),
    },
    record: partialRecord(info, FILES_READER),
  };
}
