/**
 * Document figures: reading a generated 100-page PDF (ms a page, warm and
 * with PDF.js's first load), and streaming the rows of a 20 MB CSV to read
 * its last page.
 *
 * @module
 */

import { readDocument } from "../../tools/_core/documents/mod.ts";
import { writePdf } from "../../tests/fixtures/documents/_pdf_writer.ts";
import { type Figure, median, time } from "./measure.ts";

const PAGES = 100;
const LINES = 50;

/** The document figures. */
export async function documents(runs = 7): Promise<Figure[]> {
  const dir = await Deno.makeTempDir({ prefix: "wave-bench-documents-" });
  try {
    const pdf = `${dir}/report.pdf`;
    const pages = Array.from(
      { length: PAGES },
      (_, p) =>
        Array.from(
          { length: LINES },
          (_, l) =>
            `Page ${p + 1}, line ${
              l + 1
            }: the quick brown fox jumps over the lazy dog.`,
        ),
    );
    await Deno.writeFile(pdf, writePdf(pages));
    const signal = new AbortController().signal;
    const read = () =>
      readDocument(pdf, "report.pdf", "pdf", undefined, signal);
    const cold = await time(read);
    const warm: number[] = [];
    for (let i = 0; i < runs; i++) warm.push(await time(read));
    const windowed = await time(async () => {
      for (let offset = 1; offset <= PAGES; offset += 10) {
        await readDocument(
          pdf,
          "report.pdf",
          "pdf",
          { offset, limit: 10 },
          signal,
        );
      }
    });

    const csv = `${dir}/table.csv`;
    const row = (i: number) => `${i},"name ${i}, quoted",${i * 3},note\n`;
    const file = await Deno.open(csv, { write: true, create: true });
    const encoder = new TextEncoder();
    let rows = 0;
    while ((await file.stat()).size < 20 * 1024 * 1024) {
      const chunk = Array.from({ length: 10_000 }, () => row(++rows)).join("");
      await file.write(encoder.encode(chunk));
    }
    const { size } = await file.stat();
    file.close();
    const csvTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      csvTimes.push(
        await time(() =>
          readDocument(
            csv,
            "table.csv",
            "csv",
            { offset: rows - 9, limit: 10 },
            signal,
          )
        ),
      );
    }
    const csvMs = median(csvTimes);
    return [
      {
        name: `PDF read, ${PAGES} pages (warm)`,
        value: median(warm) / PAGES,
        unit: "ms/page",
        detail: `${median(warm).toFixed(0)} ms the document, median of ${runs}`,
      },
      {
        name: `PDF read, ${PAGES} pages in windows of 10`,
        value: windowed / PAGES,
        unit: "ms/page",
        detail: "each window parses the file again",
      },
      {
        name: "PDF first read (PDF.js loads)",
        value: cold,
        unit: "ms",
      },
      {
        name: "CSV last page of a 20 MB file",
        value: csvMs,
        unit: "ms",
        detail: `${rows} rows streamed, ${
          (size / 1024 / 1024 / (csvMs / 1000)).toFixed(0)
        } MB/s`,
      },
    ];
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
