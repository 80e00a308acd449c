/**
 * Documents and media for a batch read (spec 004 read_files): which files
 * are documents (PDF, DOCX, PPTX, CSV, TSV) or audio and video, by name;
 * the size rule for a document read without a range; a page of a document
 * rendered with its unit; and the one place that reads a document.
 *
 * The readers themselves (`tools/_core/documents/`) are not built yet:
 * {@linkcode readDocumentPart} is where they are wired in, and until then a
 * document, and every audio or video file, is a tool error that says it
 * cannot be read yet.
 *
 * @module
 */

import { extname } from "node:path";
import { ToolError } from "../kernel/tool.ts";
import { formatBytes } from "./text.ts";

/** The document formats a batch read pages through. */
export type DocumentKind = "pdf" | "docx" | "pptx" | "csv" | "tsv";

/** What a document is paged by. */
export type DocumentUnit = "page" | "slide" | "row";

/** The largest document read without offset/limit. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

const DOCUMENTS: Record<string, { kind: DocumentKind; name: string }> = {
  ".pdf": { kind: "pdf", name: "a PDF document" },
  ".docx": { kind: "docx", name: "a Word document (DOCX)" },
  ".pptx": { kind: "pptx", name: "a PowerPoint presentation (PPTX)" },
  ".csv": { kind: "csv", name: "a CSV table" },
  ".tsv": { kind: "tsv", name: "a TSV table" },
};

/** The unit each document kind is paged by (spec 004: PDF by page, PPTX by slide, CSV by row). */
export const DOCUMENT_UNITS: Readonly<Record<DocumentKind, DocumentUnit>> = {
  pdf: "page",
  docx: "page",
  pptx: "slide",
  csv: "row",
  tsv: "row",
};

const MEDIA: Record<string, string> = {
  ".mp3": "audio (MP3)",
  ".wav": "audio (WAV)",
  ".flac": "audio (FLAC)",
  ".ogg": "audio (Ogg)",
  ".oga": "audio (Ogg)",
  ".opus": "audio (Opus)",
  ".m4a": "audio (M4A)",
  ".aac": "audio (AAC)",
  ".mp4": "video (MP4)",
  ".m4v": "video (MP4)",
  ".mov": "video (QuickTime)",
  ".avi": "video (AVI)",
  ".mkv": "video (Matroska)",
  ".webm": "video (WebM)",
};

/** The document kind of a path, by its extension (case-insensitive); `undefined` for any other file. */
export function documentKindOf(path: string): DocumentKind | undefined {
  return DOCUMENTS[extname(path).toLowerCase()]?.kind;
}

/** What audio or video a path is ("audio (MP3)"), by its extension; `undefined` for any other file. */
export function mediaKindOf(path: string): string | undefined {
  return MEDIA[extname(path).toLowerCase()];
}

/** The plural of a unit: "pages", "slides", "rows". */
function units(unit: DocumentUnit): string {
  return `${unit}s`;
}

/**
 * Refuses a document over {@linkcode MAX_DOCUMENT_BYTES} read without
 * offset/limit, naming the limit and the unit to page by.
 */
export function checkDocumentSize(
  shown: string,
  kind: DocumentKind,
  size: number,
  ranged: boolean,
): void {
  if (ranged || size <= MAX_DOCUMENT_BYTES) return;
  const unit = DOCUMENT_UNITS[kind];
  throw new ToolError(
    `${shown} is ${DOCUMENTS[`.${kind}`].name} of ${
      formatBytes(size)
    }, over the 1 MiB limit of a document read whole; read it in pages: offset/limit (in ${
      units(unit)
    }, e.g. offset 1, limit 20).`,
    {
      type: "document_too_large",
      bytes: size,
      max: MAX_DOCUMENT_BYTES,
      unit,
    },
  );
}

/** Part of a document: its unit, how many it has, the 1-based number of `parts[0]`, the parts' text, and a table's header row. */
export interface DocumentPart {
  unit: DocumentUnit;
  total: number;
  first: number;
  parts: string[];
  header?: string;
}

/**
 * Reads `range` of a document (all of it when `undefined`).
 *
 * WIRING POINT: the document readers (`tools/_core/documents/mod.ts`,
 * `readDocument(real, shown, kind, range, signal)`, with this signature
 * and result) are built on another branch. Until they are merged, every
 * document is a tool error saying it cannot be read yet; replace this
 * body with `return await readDocument(real, shown, kind, range, signal);`.
 */
export function readDocumentPart(
  _real: string,
  shown: string,
  kind: DocumentKind,
  _range: { offset: number; limit: number } | undefined,
  _signal: AbortSignal,
): Promise<DocumentPart> {
  return Promise.reject(
    new ToolError(
      `${shown} is ${
        DOCUMENTS[`.${kind}`].name
      }, which cannot be read yet: this build of wave has no ${kind.toUpperCase()} reader.`,
      { type: "not_readable_yet", format: kind },
    ),
  );
}

/** The error for audio or video: a transcript needs a speech-to-text model, which cannot be used yet. */
export function mediaNotReadable(shown: string, media: string): ToolError {
  return new ToolError(
    `${shown} is ${media}, which cannot be read yet: reading it means a transcript from a speech-to-text model, and this build of wave has none.`,
    { type: "not_readable_yet", format: media },
  );
}

/**
 * A document part as text: a table's header row first (`header\t…`), rows
 * numbered like lines (`<row>\t<text>`), pages and slides each under
 * `[page N]` / `[slide N]`; when more follow, the last line says which and
 * the offset to call again with.
 */
export function renderDocumentPart(part: DocumentPart): string {
  const out: string[] = [];
  if (part.header !== undefined) out.push(`header\t${part.header}`);
  part.parts.forEach((text, k) => {
    const n = part.first + k;
    out.push(
      part.unit === "row" ? `${n}\t${text}` : `[${part.unit} ${n}]\n${text}`,
    );
  });
  const last = part.first + part.parts.length - 1;
  if (part.parts.length > 0 && last < part.total) {
    out.push(
      `[${
        units(part.unit)
      } ${part.first}-${last} of ${part.total}; call again with offset=${
        last + 1
      } for more]`,
    );
  }
  return out.join("\n");
}
