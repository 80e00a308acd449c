/**
 * Documents and media in a batch read (spec 004 read_files): a document
 * part rendered with its unit (the readers are `tools/_core/documents/`),
 * and audio and video known by name, which cannot be read until wave has a
 * speech-to-text model.
 *
 * @module
 */

import { extname } from "node:path";
import { ToolError } from "../kernel/tool.ts";
import type { DocumentPart } from "./documents/mod.ts";

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

/** What audio or video a path is ("audio (MP3)"), by its extension; `undefined` for any other file. */
export function mediaKindOf(path: string): string | undefined {
  return MEDIA[extname(path).toLowerCase()];
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
      // Rows and lines are numbered as a text file's lines are.
      part.unit === "row" || part.unit === "line"
        ? `${n}\t${text}`
        : `[${part.unit} ${n}]\n${text}`,
    );
  });
  const last = part.first + part.parts.length - 1;
  if (part.parts.length > 0 && last < part.total) {
    out.push(
      `[${part.unit}s ${part.first}-${last} of ${part.total}; call again with offset=${
        last + 1
      } for more]`,
    );
  }
  return out.join("\n");
}
