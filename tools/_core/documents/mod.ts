/**
 * Documents a model can read as text: PDF by page, PPTX by slide, CSV and
 * TSV by row (the header row kept with every page), DOCX as Markdown lines.
 * Every format is read by a well-kept npm library (unpdf's PDF.js, mammoth,
 * fflate with @xmldom/xmldom, csv-parse) that runs in a worker with no
 * permissions beyond reading the file.
 *
 * A document over {@linkcode MAX_WHOLE_BYTES} is read only in windows
 * (`offset`/`limit`); an encrypted or damaged document, or an interrupted
 * read, is a `ToolError`, never a crash.
 *
 * @example
 * ```ts ignore
 * import { documentKind, readDocument } from "./mod.ts";
 * const kind = documentKind("report.pdf", head);
 * if (kind) {
 *   const part = await readDocument(real, "report.pdf", kind, { offset: 2, limit: 1 }, signal);
 *   // part.unit === "page", part.first === 2, part.parts[0] is page 2's text
 * }
 * ```
 *
 * @module
 */

import { extname } from "../../kernel/posix_path.ts";
import { ToolError } from "../../kernel/tool_error.ts";
import { formatBytes } from "../text.ts";
import { checkAborted } from "./_errors.ts";
import { readFileBytes } from "../../kernel/read_file.ts";

/** The documents this module reads. */
export type DocumentKind = "pdf" | "docx" | "pptx" | "csv" | "tsv";

/** A window of a document's text, in its units. */
export interface DocumentPart {
  /** What offset/limit count: pages (PDF), slides (PPTX), rows (CSV/TSV), lines (DOCX as Markdown text). */
  unit: "page" | "slide" | "row" | "line";
  /** How many units the document has. */
  total: number;
  /** The 1-based number of parts[0]. */
  first: number;
  /** The text of each unit read, in order. */
  parts: string[];
  /** CSV/TSV: the header row, shown with every page. */
  header?: string;
}

/** The largest document read whole (without offset/limit): 1 MiB. */
export const MAX_WHOLE_BYTES = 1024 * 1024;

/** The unit each kind pages by. */
export const UNIT_OF: Record<DocumentKind, DocumentPart["unit"]> = {
  pdf: "page",
  docx: "line",
  pptx: "slide",
  csv: "row",
  tsv: "row",
};

/**
 * Reads the document at `real` (shown as `shown` in messages), all of it
 * when `range` is undefined, else the `limit` units from the 1-based
 * `offset`. Guarantees:
 * - `range` undefined on a file over {@linkcode MAX_WHOLE_BYTES} is refused
 *   with a ToolError naming the size, the limit and the unit to page by;
 * - `parts` has at most `limit` entries, `first` is `offset` (1 for a whole
 *   read), and `parts` is empty when `offset` is past the last unit (`total`
 *   says how many there are);
 * - an encrypted document is a ToolError of type `encrypted_document`, a
 *   damaged or mislabelled one of type `corrupt_document`, an aborted read
 *   of type `interrupted`; nothing else is thrown for a bad file.
 */
export async function readDocument(
  real: string,
  shown: string,
  kind: DocumentKind,
  range: { offset: number; limit: number } | undefined,
  signal: AbortSignal,
): Promise<DocumentPart> {
  checkAborted(signal, shown);
  const unit = UNIT_OF[kind];
  const { size } = await Deno.stat(real);
  if (!range && size > MAX_WHOLE_BYTES) {
    throw new ToolError(
      `${shown} is ${NAMES[kind]} of ${
        formatBytes(size)
      }, over the 1 MiB limit of a document read whole; read it in pages: offset/limit (in ${unit}s, e.g. offset 1, limit 20).`,
      { type: "document_too_large", size, limit: MAX_WHOLE_BYTES, unit },
    );
  }
  // Each reader loads its libraries when first needed: PDF.js alone takes
  // half a second to load, which a session that reads no PDF never pays.
  if (kind === "csv" || kind === "tsv") {
    const { readDelimited } = await import("./csv.ts");
    const delimiter = kind === "csv" ? "," : "\t";
    return {
      unit,
      ...await readDelimited(real, shown, delimiter, range, signal),
    };
  }
  const bytes = await readFileBytes(real);
  checkAborted(signal, shown);
  if (kind === "pdf") {
    const { readPdf } = await import("./pdf.ts");
    return { unit, ...await readPdf(bytes, shown, range, signal) };
  }
  if (kind === "docx") {
    const { readDocx } = await import("./docx.ts");
    return { unit, ...await readDocx(bytes, shown, range, signal) };
  }
  const { readPptx } = await import("./pptx.ts");
  return { unit, ...readPptx(bytes, shown, range, signal) };
}

/** What each kind is called in a message. */
const NAMES: Record<DocumentKind, string> = {
  pdf: "a PDF document",
  docx: "a Word document (DOCX)",
  pptx: "a PowerPoint presentation (PPTX)",
  csv: "a CSV table",
  tsv: "a TSV table",
};

/**
 * The kind a path's extension names (case-insensitive), before any byte is
 * read; {@linkcode documentKind} also looks at the bytes.
 */
export function documentKindOfName(path: string): DocumentKind | undefined {
  return EXTENSIONS[extname(path).toLowerCase()];
}

const EXTENSIONS: Record<string, DocumentKind> = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".docm": "docx",
  ".dotx": "docx",
  ".dotm": "docx",
  ".pptx": "pptx",
  ".pptm": "pptx",
  ".ppsx": "pptx",
  ".ppsm": "pptx",
  ".potx": "pptx",
  ".potm": "pptx",
  ".csv": "csv",
  ".tsv": "tsv",
  ".tab": "tsv",
};

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/**
 * The kind of a document by its bytes/extension, or undefined when it is none of these.
 *
 * Guarantees: bytes that start with `%PDF-` (within their first KiB, as
 * PDF readers allow) are `pdf` whatever the name; an Office extension
 * (`.docx`, `.pptx` and their macro and template forms) names its kind
 * whatever the bytes, so an encrypted or damaged file is reported as such
 * by {@linkcode readDocument}; a ZIP archive of another name is `docx` or
 * `pptx` when its first entries are a Word or PowerPoint package's;
 * `.csv` is `csv` and `.tsv`/`.tab` `tsv` unless `head` holds a NUL byte
 * without a UTF-16 byte order mark (binary data with a table's name); a
 * `.pdf` name without the signature is still `pdf` (read, it is reported as
 * not a PDF).
 */
export function documentKind(
  path: string,
  head: Uint8Array,
): DocumentKind | undefined {
  if (hasPdfSignature(head)) return "pdf";
  const byName = EXTENSIONS[extname(path).toLowerCase()];
  if (byName === "csv" || byName === "tsv") {
    const utf16 = (head[0] === 0xff && head[1] === 0xfe) ||
      (head[0] === 0xfe && head[1] === 0xff);
    return head.includes(0) && !utf16 ? undefined : byName;
  }
  if (byName) return byName;
  if (ZIP_MAGIC.every((b, i) => head[i] === b)) {
    const names = new TextDecoder("latin1").decode(head);
    if (names.includes("word/document.xml")) return "docx";
    if (
      names.includes("ppt/presentation.xml") || names.includes("ppt/slides/")
    ) {
      return "pptx";
    }
  }
  return undefined;
}

/** Whether `%PDF-` occurs in the first 1024 bytes. */
function hasPdfSignature(head: Uint8Array): boolean {
  const end = Math.min(head.length, 1024) - PDF_MAGIC.length;
  for (
    let i = head.indexOf(0x25);
    i !== -1 && i <= end;
    i = head.indexOf(0x25, i + 1)
  ) {
    if (PDF_MAGIC.every((b, j) => head[i + j] === b)) return true;
  }
  return false;
}
