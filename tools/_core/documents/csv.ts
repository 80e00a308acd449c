/**
 * CSV and TSV by row, through npm:csv-parse: quoted fields (delimiters,
 * quotes and newlines inside them), a byte order mark, ragged rows. The
 * file is streamed, so a window of a large file takes flat memory; the
 * whole file is still parsed, to count its rows.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { parse } from "csv-parse/stream";
import { openRegularFile } from "../../kernel/regular_file.ts";
import { ToolError } from "../../kernel/tool_error.ts";
import { corrupt, interrupted, messageOf } from "./_errors.ts";
import { inRange } from "./_window.ts";
import type { DocumentRange, PagedText } from "./_types.ts";

/** The longest row csv-parse will hold: past it, a quote left open would swallow the file. */
export const MAX_ROW_BYTES = 1024 * 1024;

/**
 * The rows of the delimited text file at `real` that `range` takes (every
 * row when it is undefined), the first row being the header. Guarantees:
 * `header` is the first row and `total` counts the rows after it; each part
 * is a row's source text as written (quotes kept, a newline inside a quoted
 * field as "\n"), without its line ending; blank lines are skipped; a
 * quote never closed, or a row over {@linkcode MAX_ROW_BYTES}, is a
 * "corrupt" ToolError; `signal` is checked on every chunk read.
 */
export async function readDelimited(
  real: string,
  shown: string,
  delimiter: "," | "\t",
  range: DocumentRange | undefined,
  signal: AbortSignal,
): Promise<PagedText & { header?: string }> {
  const format = delimiter === "," ? "CSV file" : "TSV file";
  let header: string | undefined;
  let total = 0;
  const parts: string[] = [];
  const parser = parse({
    delimiter,
    raw: true,
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_ROW_BYTES,
    // Rows are taken here and dropped from the stream: no promise per row.
    on_record: (_record: unknown, context: { raw?: string }) => {
      const text = rowText(context.raw ?? "");
      if (header === undefined) header = text;
      else {
        if (inRange(total, range)) parts.push(text);
        total++;
      }
      return null;
    },
  });
  const file = openRegularFile(real, shown);
  const chunks = file.readable().pipeThrough(
    new TransformStream<Uint8Array, Buffer>({
      transform(chunk, controller) {
        if (signal.aborted) throw interrupted(shown);
        controller.enqueue(
          Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
        );
      },
    }),
  );
  try {
    await chunks.pipeThrough(parser).pipeTo(new WritableStream());
  } catch (error) {
    if (signal.aborted) throw interrupted(shown);
    if (error instanceof ToolError) throw error;
    throw corrupt(shown, format, detailOf(error));
  }
  const first = range ? Math.max(1, Math.floor(range.offset)) : 1;
  return { total, first, parts, ...(header !== undefined ? { header } : {}) };
}

/**
 * A row's source text: the blank lines skipped before it and its line
 * ending cut, CRLF inside quoted fields as "\n". (A row cannot start with a
 * newline: a newline in its first field is inside quotes.)
 */
function rowText(raw: string): string {
  return raw.replace(/^[\r\n]+/, "").replace(/\r?\n?$/, "").replace(
    /\r\n/g,
    "\n",
  );
}

/** What csv-parse found wrong, in words a model can act on. */
function detailOf(error: unknown): string {
  const message = messageOf(error);
  if ((error as { code?: string }).code === "CSV_MAX_RECORD_SIZE") {
    const line = message.match(/at line (\d+)/)?.[1];
    return `a row runs past 1 MiB${
      line ? ` by line ${line}` : ""
    }: a quote may be left open`;
  }
  return message;
}
