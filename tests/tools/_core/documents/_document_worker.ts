/// <reference lib="deno.worker" />
/**
 * A Web Worker that reads one document on request, for the test that the
 * readers work under a tool worker's permissions.
 *
 * @module
 */

import { readDocument } from "../../../../tools/_core/documents/mod.ts";

/** What the test sends. */
interface ReadRequest {
  real: string;
  kind: "pdf" | "docx" | "pptx" | "csv" | "tsv";
  range?: { offset: number; limit: number };
}

self.onmessage = async (event: MessageEvent<ReadRequest>) => {
  const { real, kind, range } = event.data;
  try {
    const part = await readDocument(
      real,
      real.slice(real.lastIndexOf("/") + 1),
      kind,
      range,
      new AbortController().signal,
    );
    self.postMessage({ part });
  } catch (error) {
    self.postMessage({
      error: `${(error as Error).name}: ${(error as Error).message}`,
    });
  }
};
