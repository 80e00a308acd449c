/**
 * DOCX as Markdown text: npm:mammoth turns the document into HTML (headings,
 * lists, tables, emphasis kept; images reduced to their alt text), and
 * npm:turndown writes that as Markdown (`_markdown.ts`), as mammoth's README
 * advises over its own deprecated Markdown writer.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import mammoth from "mammoth";
// mammoth 1.13 builds its returned promise by assigning `__proto__`, which
// Deno disables (the assignment does nothing, and `convertToHtml` throws
// "ExternalPromise.resolve is not a function"). The external promise only
// adds a `.done()` this module does not use, so the native one is returned.
import promises from "mammoth/lib/promises.js";
import { htmlToMarkdown } from "./_markdown.ts";
import { checkAborted, corrupt, messageOf } from "./_errors.ts";
import { OfficePackage } from "./_zip.ts";
import { windowOf } from "./_window.ts";
import type { DocumentRange, PagedText } from "./_types.ts";
import { splitLines } from "../text.ts";

(promises as { toExternalPromise: (p: unknown) => unknown })
  .toExternalPromise = (promise) => promise;

const FORMAT = "DOCX document";

/**
 * The document's text as Markdown lines, those `range` takes (every line
 * when it is undefined). Guarantees: `total` is the number of Markdown
 * lines (trailing blank lines cut); headings are `#` lines, lists `-` or
 * `1.` items indented by level, tables GitHub tables; images are
 * `[image: alt]`, never their bytes; an encrypted, legacy (DOC) or damaged
 * file is a ToolError. The whole document is converted even for a window
 * (a DOCX has no pages to seek to); `signal` is checked before and after.
 */
export async function readDocx(
  bytes: Uint8Array,
  shown: string,
  range: DocumentRange | undefined,
  signal: AbortSignal,
): Promise<PagedText> {
  checkAborted(signal, shown);
  const pkg = OfficePackage.open(bytes, shown, FORMAT);
  if (!pkg.has("word/document.xml")) {
    throw corrupt(
      shown,
      FORMAT,
      "it has no word/document.xml: it is not a Word document",
    );
  }
  // mammoth unpacks with its own ZIP reader: it is given a package of the
  // parts unpacked here, each counted against its declared size (a ZIP
  // bomb is refused, whatever its directory says). Media are never
  // unpacked (images become their alt text): they are given empty.
  const checked = pkg.checkedPackage((name) => !name.startsWith("word/media/"));
  let html: string;
  try {
    const result = await mammoth.convertToHtml({
      buffer: Buffer.from(
        checked.buffer,
        checked.byteOffset,
        checked.byteLength,
      ),
    }, {
      convertImage: mammoth.images.imgElement(() =>
        Promise.resolve({ src: "" })
      ),
      ignoreEmptyParagraphs: true,
    });
    html = result.value;
  } catch (error) {
    throw corrupt(shown, FORMAT, messageOf(error));
  }
  checkAborted(signal, shown);
  const lines = splitLines(htmlToMarkdown(html));
  const { start, end } = windowOf(lines.length, range);
  return {
    total: lines.length,
    first: start + 1,
    parts: lines.slice(start, end),
  };
}
