/**
 * Documents and media in a batch read (spec 004 read_files): a document
 * part rendered with its unit (the readers are `tools/_core/documents/`),
 * audio and video known by name, and a transcript of them cut into lines.
 *
 * @module
 */

import { extname } from "../kernel/posix_path.ts";
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

/** The longest transcript line: longer ones are wrapped at a space. */
const TRANSCRIPT_LINE = 500;

/**
 * A transcript as lines to page through: the lines it came in, each cut
 * after the end of every sentence (`.`, `?`, `!`, and their CJK forms),
 * and any still over 500 characters wrapped at a space; blank lines and
 * surrounding whitespace dropped. A speech-to-text API gives a paragraph
 * of any length in one line, which a line-paged read would cut.
 */
export function transcriptLines(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const sentence of line.split(/(?<=[.?!])\s+|(?<=[。？！])/u)) {
      let rest = sentence.trim();
      while (rest.length > TRANSCRIPT_LINE) {
        const space = rest.lastIndexOf(" ", TRANSCRIPT_LINE);
        const cut = space > 0 ? space : TRANSCRIPT_LINE;
        out.push(rest.slice(0, cut).trimEnd());
        rest = rest.slice(cut).trimStart();
      }
      if (rest) out.push(rest);
    }
  }
  return out;
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
