/**
 * PDF text by page, through PDF.js (npm:unpdf's serverless build, which runs
 * in a worker with no permissions at all: no font files, no canvas, no
 * fetches, no eval).
 *
 * @module
 */

import { getResolvedPDFJS } from "unpdf";
import { ToolError } from "../../kernel/tool_error.ts";
import {
  checkAborted,
  corrupt,
  encrypted,
  interrupted,
  messageOf,
} from "./_errors.ts";
import { windowOf } from "./_window.ts";
import type { DocumentRange, PagedText } from "./_types.ts";

/** A text item of PDF.js's `getTextContent` (marked-content items have no `str`). */
interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/**
 * The text of the pages of `bytes` that `range` takes (every page when it is
 * undefined), one string per page, lines ending where the PDF's text does.
 * Guarantees: `total` is the page count; a page with no text (a scan) is
 * `""`; a PDF that needs a password, or that PDF.js cannot parse, is a
 * {@linkcode ToolError}; an abort of `signal` stops the read between pages
 * (and cancels the parse) with an "interrupted" ToolError.
 */
export async function readPdf(
  bytes: Uint8Array,
  shown: string,
  range: DocumentRange | undefined,
  signal: AbortSignal,
): Promise<PagedText> {
  checkAborted(signal, shown);
  const { getDocument } = await getResolvedPDFJS();
  const task = getDocument({
    data: bytes,
    verbosity: 0,
    useWorkerFetch: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
  });
  const onAbort = () => void task.destroy();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const pdf = await task.promise;
    const total = pdf.numPages;
    const { start, end } = windowOf(total, range);
    const parts: string[] = [];
    for (let n = start + 1; n <= end; n++) {
      checkAborted(signal, shown);
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      parts.push(pageText(content.items as TextItem[]));
      page.cleanup();
    }
    return { total, first: start + 1, parts };
  } catch (error) {
    if (signal.aborted) throw interrupted(shown);
    if (error instanceof ToolError) throw error;
    if (error instanceof Error && error.name === "PasswordException") {
      throw encrypted(shown, "PDF");
    }
    throw corrupt(shown, "PDF", messageOf(error));
  } finally {
    signal.removeEventListener("abort", onAbort);
    await task.destroy();
  }
}

/** A page's text: items in content order, a newline where PDF.js saw a line end; trailing blanks cut. */
function pageText(items: TextItem[]): string {
  let text = "";
  for (const item of items) {
    if (item.str === undefined) continue;
    text += item.str;
    if (item.hasEOL) text += "\n";
  }
  return text.split("\n").map((line) => line.trimEnd()).join("\n").trimEnd();
}
