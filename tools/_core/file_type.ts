/**
 * What kind of file a path is, from its name and its first bytes: text (and
 * which encoding), an image a model can see, a notebook, or a binary format
 * with a name a model can understand ("PDF document").
 *
 * @module
 */

import { extname } from "../kernel/posix_path.ts";
import { readPrefix } from "../kernel/regular_file.ts";

/** The image types a multimodal model accepts. */
export type ImageMediaType =
  | "image/png"
  | "image/jpeg"
  | "image/gif"
  | "image/webp";

/** A file's kind. */
export type FileKind =
  | { kind: "text"; encoding: "utf-8" | "utf-16le" | "utf-16be" }
  | { kind: "image"; mediaType: ImageMediaType }
  | { kind: "notebook" }
  | { kind: "binary"; name: string };

/** How many leading bytes {@linkcode classify} looks at. */
export const SNIFF_BYTES = 8192;

const BINARY_EXTENSIONS: Record<string, string> = {
  ".pdf": "PDF document",
  ".doc": "Word document (DOC)",
  ".docx": "Word document (DOCX)",
  ".xls": "Excel workbook (XLS)",
  ".xlsx": "Excel workbook (XLSX)",
  ".ppt": "PowerPoint presentation (PPT)",
  ".pptx": "PowerPoint presentation (PPTX)",
  ".odt": "OpenDocument text",
  ".ods": "OpenDocument spreadsheet",
  ".odp": "OpenDocument presentation",
  ".rtf": "RTF document",
  ".zip": "ZIP archive",
  ".jar": "Java archive (JAR)",
  ".war": "Java archive (WAR)",
  ".tar": "tar archive",
  ".gz": "gzip archive",
  ".tgz": "gzip-compressed tar archive",
  ".bz2": "bzip2 archive",
  ".xz": "xz archive",
  ".zst": "zstd archive",
  ".7z": "7-Zip archive",
  ".rar": "RAR archive",
  ".exe": "Windows executable",
  ".dll": "Windows library (DLL)",
  ".so": "shared library",
  ".dylib": "macOS shared library",
  ".o": "object file",
  ".a": "static library",
  ".class": "Java class file",
  ".wasm": "WebAssembly module",
  ".pyc": "Python bytecode",
  ".bin": "binary data",
  ".dat": "binary data",
  ".sqlite": "SQLite database",
  ".db": "database file",
  ".mp3": "audio (MP3)",
  ".wav": "audio (WAV)",
  ".flac": "audio (FLAC)",
  ".ogg": "audio (Ogg)",
  ".m4a": "audio (M4A)",
  ".mp4": "video (MP4)",
  ".mov": "video (QuickTime)",
  ".avi": "video (AVI)",
  ".mkv": "video (Matroska)",
  ".webm": "video (WebM)",
  ".bmp": "BMP image (not a format models take)",
  ".tif": "TIFF image (not a format models take)",
  ".tiff": "TIFF image (not a format models take)",
  ".ico": "icon file",
  ".heic": "HEIC image (not a format models take)",
  ".avif": "AVIF image (not a format models take)",
  ".psd": "Photoshop document",
  ".ttf": "font (TrueType)",
  ".otf": "font (OpenType)",
  ".woff": "font (WOFF)",
  ".woff2": "font (WOFF2)",
};

const MAGIC: [bytes: number[], offset: number, name: string][] = [
  [[0x25, 0x50, 0x44, 0x46], 0, "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], 0, "ZIP archive (or a ZIP-based document)"],
  [[0x1f, 0x8b], 0, "gzip archive"],
  [[0x42, 0x5a, 0x68], 0, "bzip2 archive"],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 0, "xz archive"],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], 0, "7-Zip archive"],
  [[0x52, 0x61, 0x72, 0x21], 0, "RAR archive"],
  [[0x7f, 0x45, 0x4c, 0x46], 0, "ELF executable or library"],
  [[0x4d, 0x5a], 0, "Windows executable"],
  [[0xcf, 0xfa, 0xed, 0xfe], 0, "Mach-O executable"],
  [[0x00, 0x61, 0x73, 0x6d], 0, "WebAssembly module"],
  [[0xd0, 0xcf, 0x11, 0xe0], 0, "Microsoft Office document (legacy)"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], 0, "SQLite database"],
  [[0x75, 0x73, 0x74, 0x61, 0x72], 257, "tar archive"],
];

function startsWith(head: Uint8Array, bytes: number[], offset = 0): boolean {
  if (head.length < offset + bytes.length) return false;
  return bytes.every((b, i) => head[offset + i] === b);
}

/** The image type of some bytes, by their signature. */
export function imageTypeOf(head: Uint8Array): ImageMediaType | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return "image/png";
  }
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (
    startsWith(head, [0x52, 0x49, 0x46, 0x46]) &&
    startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)
  ) return "image/webp";
  return undefined;
}

/**
 * Whether bytes decode as UTF-8. A sequence cut at the end is allowed unless
 * `complete` says the bytes are the whole file.
 */
export function isUtf8(head: Uint8Array, complete = false): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, {
      stream: !complete,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Classifies a file by its name and first bytes (up to {@linkcode SNIFF_BYTES}).
 * Guarantees: `text` only for bytes with no NUL that decode as UTF-8, or that
 * start with a UTF-16 byte order mark.
 */
export async function classify(
  path: string,
  head: Uint8Array,
): Promise<FileKind> {
  const ext = extname(path).toLowerCase();
  const image = imageTypeOf(head);
  if (image) return { kind: "image", mediaType: image };
  if (BINARY_EXTENSIONS[ext] && !(head.length > 0 && isPlainText(head))) {
    return { kind: "binary", name: BINARY_EXTENSIONS[ext] };
  }
  if (startsWith(head, [0xff, 0xfe])) {
    return { kind: "text", encoding: "utf-16le" };
  }
  if (startsWith(head, [0xfe, 0xff])) {
    return { kind: "text", encoding: "utf-16be" };
  }
  for (const [bytes, offset, name] of MAGIC) {
    if (startsWith(head, bytes, offset)) return { kind: "binary", name };
  }
  if (!isPlainText(head)) {
    return { kind: "binary", name: await nameBinary(head) };
  }
  if (ext === ".ipynb") return { kind: "notebook" };
  return { kind: "text", encoding: "utf-8" };
}

/** A head shorter than the sniff size is the whole file. */
function isPlainText(head: Uint8Array): boolean {
  return !head.includes(0) && isUtf8(head, head.length < SNIFF_BYTES);
}

/** Names an unknown binary with npm:file-type, loaded only on this rare path (its import is slow). */
async function nameBinary(head: Uint8Array): Promise<string> {
  try {
    const { fileTypeFromBuffer } = await import("file-type");
    const found = await fileTypeFromBuffer(head);
    if (found) return `${found.mime} (.${found.ext})`;
  } catch { /* fall through */ }
  return head.includes(0) ? "binary data" : "binary data (not UTF-8 text)";
}

/**
 * Reads up to {@linkcode SNIFF_BYTES} from the start of a regular file,
 * refusing a named pipe swapped in after a check rather than waiting on it
 * or reading it (see {@linkcode readPrefix}).
 */
export function readHead(path: string): Promise<Uint8Array> {
  try {
    return Promise.resolve(readPrefix(path, SNIFF_BYTES));
  } catch (error) {
    return Promise.reject(error);
  }
}
