/**
 * The reader: every dialect's way into a file's text. It says clearly why a
 * file cannot be read (missing, with similar names; a directory; a binary
 * format, named), reads whole files, and streams line windows of files of
 * any size with flat memory.
 *
 * @module
 */

import { basename, dirname, extname, join } from "../kernel/posix_path.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { statOrNull } from "../kernel/stat.ts";
import {
  notRegularFileError,
  openRegularFile,
  specialFileWords,
} from "../kernel/regular_file.ts";
import { hiddenTest } from "../kernel/hidden.ts";
import { displayPath } from "../kernel/workspace.ts";
import { classify, type FileKind, readHead } from "./file_type.ts";
import { BOM, editDistance, splitLines } from "./text.ts";

/** A file a tool names: where it really is, and how messages show it. */
export interface FileRef {
  /** The real path (every symlink followed). */
  real: string;
  /** The path for messages. */
  shown: string;
}

/** The {@linkcode FileRef} of a path a tool was given, with its absolute path (for results). */
export function fileRef(
  ctx: ToolContext,
  raw: string,
): FileRef & { abs: string } {
  const file = ctx.path(raw);
  return {
    real: file.real,
    shown: displayPath(ctx.workspace, file.abs),
    abs: file.abs,
  };
}

/**
 * Refuses what is neither a regular file nor a directory: a named pipe, a
 * socket, a device. Opening a FIFO waits for a writer that may never come,
 * and a device may never end, so no file tool opens one.
 */
export function refuseSpecialFile(info: Deno.FileInfo, shown: string): void {
  if (info.isFile || info.isDirectory) return;
  throw notRegularFileError(shown, specialFileWords(info));
}

/**
 * What is at `real`, for a tool that opens it: `null` when nothing is
 * there. Refuses a special file; refuses a directory with the message
 * `directory` (the dialect's words), or lets it through when none is given.
 */
export async function statFile(
  real: string,
  shown: string,
  directory?: string,
): Promise<Deno.FileInfo | null> {
  const info = await statOrNull(real);
  if (!info) return null;
  if (info.isDirectory && directory !== undefined) {
    throw new ToolError(directory, { type: "is_directory" });
  }
  refuseSpecialFile(info, shown);
  return info;
}

/** Names near `name` in `dir` (a missing file's likely intended names). */
export function similarNames(
  dir: string,
  name: string,
  max = 3,
  hidden: (path: string) => boolean = () => false,
): string[] {
  let entries: string[];
  try {
    entries = [...Deno.readDirSync(dir)].map((e) => e.name)
      // A name a Read deny rule covers is not offered either.
      .filter((entry) => !hidden(join(dir, entry)));
  } catch {
    return [];
  }
  const lower = name.toLowerCase();
  const stem = basename(lower, extname(lower));
  const scored = entries.map((entry) => {
    const e = entry.toLowerCase();
    let score = editDistance(e, lower, 3);
    if (basename(e, extname(e)) === stem) score = Math.min(score, 1);
    if (e === lower) score = 0;
    return { entry, score };
  }).filter((s) => s.score <= 3 && s.entry !== name);
  scored.sort((a, b) => a.score - b.score || a.entry.localeCompare(b.entry));
  return scored.slice(0, max).map((s) => s.entry);
}

/** The error for a file that does not exist, naming similar files beside it when there are some. */
export function missingFile(
  real: string,
  ctx: Pick<ToolContext, "workspace" | "hidden">,
  shown: string,
): ToolError {
  const hidden = hiddenTest(ctx.hidden ?? [], ctx.workspace);
  const near = similarNames(dirname(real), basename(real), 3, hidden)
    .map((n) => displayPath(ctx.workspace, join(dirname(real), n)));
  return new ToolError(
    `File does not exist: ${shown}.` +
      (near.length ? ` Did you mean ${near.join(", ")}?` : ""),
    { type: "not_found", suggestions: near },
  );
}

/**
 * Stats a file a tool reads. Throws a {@linkcode ToolError} for a missing
 * file ({@linkcode missingFile}), for a directory (with the message
 * `directory`, the dialect's words) and for a special file.
 */
export async function statForRead(
  real: string,
  ctx: Pick<ToolContext, "workspace" | "hidden">,
  shown: string,
  directory: string,
): Promise<Deno.FileInfo> {
  const info = await statFile(real, shown, directory);
  if (!info) throw missingFile(real, ctx, shown);
  return info;
}

/** Decodes bytes in a text encoding {@linkcode classify} found. */
export function decodeText(
  bytes: Uint8Array,
  encoding: "utf-8" | "utf-16le" | "utf-16be",
): string {
  if (encoding === "utf-8") {
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  }
  // UTF-16: decode to text without its BOM; rewrites are UTF-8.
  return new TextDecoder(encoding).decode(bytes);
}

/** The kind of a file, by name and first bytes. */
export async function kindOf(real: string): Promise<FileKind> {
  return classify(real, await readHead(real));
}

/** Whether a file's content is UTF-8 text (a notebook is UTF-8 JSON). */
export function isUtf8Text(
  kind: FileKind,
): kind is { kind: "notebook" } | { kind: "text"; encoding: "utf-8" } {
  return kind.kind === "notebook" ||
    (kind.kind === "text" && kind.encoding === "utf-8");
}

/** What a tool that works on UTF-8 text says of a file that is not: the end of its sentence, in the dialect's words. */
export interface TextOnlyWords {
  /** For a binary file or an image: "Edit changes text files only." */
  binary: string;
  /** For text in another encoding: "read returns UTF-8 text only." */
  encoding: string;
}

/**
 * Refuses a file that is not UTF-8 text ({@linkcode isUtf8Text}): a binary
 * file or an image with {@linkcode binaryError}, text in UTF-16 saying which
 * encoding it is (`unsupported_encoding`).
 */
export function requireUtf8Text(
  kind: FileKind,
  shown: string,
  words: TextOnlyWords,
): void {
  if (kind.kind === "binary" || kind.kind === "image") {
    throw binaryError(
      shown,
      kind.kind === "binary" ? kind.name : kind.mediaType,
      words.binary,
    );
  }
  if (kind.kind === "text" && kind.encoding !== "utf-8") {
    throw new ToolError(
      `${shown} is ${kind.encoding.toUpperCase()} text; ${words.encoding}`,
      { type: "unsupported_encoding" },
    );
  }
}

/** The error for a binary file, naming its type. */
export function binaryError(
  shown: string,
  name: string,
  hint: string,
): ToolError {
  return new ToolError(
    `Cannot read ${shown}: it is a binary file (${name}). ${hint}`,
    {
      type: "binary",
      format: name,
    },
  );
}

/** A window of lines, and how many lines the file has. */
export interface LineWindow {
  /** The window's lines, without their line endings; each at most `maxLineChars` long. */
  lines: string[];
  /** For each of `lines`, how many characters of it were left out (0: the line is whole). */
  omitted: number[];
  totalLines: number;
}

/**
 * Lines `start` .. `start + count - 1` (0-based) of a UTF-8 file, read as a
 * stream: memory holds only the window, and of a line longer than
 * `maxLineChars` only its first `maxLineChars` characters (`omitted` says
 * how many more it has). Every line is counted, so `totalLines` is exact.
 * Time is linear in the file's size, however long its lines: each decoded
 * chunk is scanned once, and a line's parts are joined once, at its end.
 */
export async function readLineWindow(
  real: string,
  start: number,
  count: number,
  maxLineChars = Infinity,
): Promise<LineWindow> {
  using file = openRegularFile(real);
  const lines: string[] = [];
  const omitted: number[] = [];
  const end = start + count;
  let index = 0;
  // The line being read: its kept head (only in the window), its length so far, its last character.
  let pieces: string[] = [];
  let kept = 0;
  let length = 0;
  let lastCode = -1;
  const add = (part: string) => {
    if (part === "") return;
    length += part.length;
    lastCode = part.charCodeAt(part.length - 1);
    if (index < start || index >= end || kept >= maxLineChars) return;
    const piece = part.length > maxLineChars - kept
      ? part.slice(0, maxLineChars - kept)
      : part;
    pieces.push(piece);
    kept += piece.length;
  };
  const finish = () => {
    if (index >= start && index < end) {
      const full = lastCode === 13 ? length - 1 : length; // a CRLF's \r is not part of the line
      let line = pieces.length === 1 ? pieces[0] : pieces.join("");
      if (line.length > full) line = line.slice(0, full);
      lines.push(line);
      omitted.push(full - line.length);
    }
    index++;
    pieces = [];
    kept = 0;
    length = 0;
    lastCode = -1;
  };
  const decoder = new TextDecoder("utf-8");
  const buffer = new Uint8Array(256 * 1024);
  let first = true;
  while (true) {
    const n = await file.read(buffer);
    if (n === null) break;
    let chunk = decoder.decode(buffer.subarray(0, n), { stream: true });
    if (first && chunk !== "") {
      if (chunk.startsWith(BOM)) chunk = chunk.slice(1);
      first = false;
    }
    let from = 0;
    for (
      let nl = chunk.indexOf("\n");
      nl !== -1;
      nl = chunk.indexOf("\n", from)
    ) {
      add(chunk.slice(from, nl));
      finish();
      from = nl + 1;
    }
    add(chunk.slice(from));
  }
  add(decoder.decode());
  if (length > 0) finish();
  return { lines, omitted, totalLines: index };
}

/** Lines of a whole text, BOM dropped (for numbering). */
export function textLines(text: string): string[] {
  return splitLines(text.startsWith(BOM) ? text.slice(1) : text);
}

/** Where a search starts. */
export interface SearchRoot {
  /** The real path to search. */
  real: string;
  /** The absolute path as given (or the workspace). */
  abs: string;
  /** The path for messages. */
  shown: string;
  /** The place for sentences: "the workspace", or the path. */
  place: string;
}

/**
 * Resolves the path a search starts from (the workspace when none is given)
 * and checks it exists, and is a directory when `directory` is set. Throws a
 * {@linkcode ToolError} otherwise.
 */
export async function searchRoot(
  ctx: ToolContext,
  raw: string | undefined,
  directory: boolean,
): Promise<SearchRoot> {
  const resolved = raw ? ctx.path(raw) : undefined;
  const real = resolved?.real ?? ctx.workspace;
  const abs = resolved?.abs ?? ctx.workspace;
  const shown = displayPath(ctx.workspace, abs);
  const info = await statFile(real, shown);
  if (!info) {
    throw new ToolError(
      `${directory ? "Directory" : "Path"} does not exist: ${shown}.`,
      { type: "not_found" },
    );
  }
  if (directory && !info.isDirectory) {
    throw new ToolError(
      `${shown} is not a directory; path must be a directory to search in.`,
      {
        type: "not_a_directory",
      },
    );
  }
  return {
    real,
    abs,
    shown,
    place: shown === "." ? "the workspace" : shown,
  };
}
