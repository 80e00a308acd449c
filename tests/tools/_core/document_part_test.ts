/** Documents and media for read_files (spec 004): kinds, the 1 MiB rule, rendering, and the place the readers are wired. */
import assert from "node:assert/strict";
import {
  checkDocumentSize,
  documentKindOf,
  MAX_DOCUMENT_BYTES,
  mediaKindOf,
  readDocumentPart,
  renderDocumentPart,
} from "../../../tools/_core/document_part.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";

Deno.test("004 read_files: documents and media are known by their extension", () => {
  assert.equal(documentKindOf("a/b.PDF"), "pdf");
  assert.equal(documentKindOf("x.docx"), "docx");
  assert.equal(documentKindOf("x.pptx"), "pptx");
  assert.equal(documentKindOf("x.csv"), "csv");
  assert.equal(documentKindOf("x.tsv"), "tsv");
  assert.equal(documentKindOf("x.txt"), undefined);
  assert.equal(mediaKindOf("talk.mp3"), "audio (MP3)");
  assert.equal(mediaKindOf("demo.MP4"), "video (MP4)");
  assert.equal(mediaKindOf("x.ts"), undefined);
});

Deno.test("004 read_files: a document over 1 MiB read without offset/limit is refused, naming the limit and the unit to page by", () => {
  assert.equal(MAX_DOCUMENT_BYTES, 1024 * 1024);
  checkDocumentSize("a.pdf", "pdf", MAX_DOCUMENT_BYTES, false);
  checkDocumentSize("a.pdf", "pdf", MAX_DOCUMENT_BYTES + 1, true);
  const cases = [
    ["pdf", "a PDF document", "pages"],
    ["pptx", "a PowerPoint presentation (PPTX)", "slides"],
    ["csv", "a CSV table", "rows"],
  ] as const;
  for (const [kind, name, unit] of cases) {
    assert.throws(
      () => checkDocumentSize(`big.${kind}`, kind, 3 * 1024 * 1024, false),
      (e: Error) =>
        e instanceof ToolError &&
        e.message ===
          `big.${kind} is ${name} of 3.0 MB, over the 1 MiB limit of a document read whole; read it in pages: offset/limit (in ${unit}, e.g. offset 1, limit 20).`,
    );
  }
});

Deno.test("004 read_files: until the readers are wired, a document cannot be read yet", async () => {
  await assert.rejects(
    readDocumentPart(
      "/x/a.pdf",
      "a.pdf",
      "pdf",
      undefined,
      AbortSignal.any([]),
    ),
    (e: Error) =>
      e instanceof ToolError &&
      e.message ===
        "a.pdf is a PDF document, which cannot be read yet: this build of wave has no PDF reader.",
  );
});

Deno.test("004 read_files: a document part is rendered by its unit, and a cut part says the next offset", () => {
  assert.equal(
    renderDocumentPart({
      unit: "page",
      total: 5,
      first: 2,
      parts: ["Two", "Three"],
    }),
    "[page 2]\nTwo\n[page 3]\nThree\n[pages 2-3 of 5; call again with offset=4 for more]",
  );
  assert.equal(
    renderDocumentPart({
      unit: "row",
      total: 2,
      first: 1,
      parts: ["a,1", "b,2"],
      header: "name,n",
    }),
    "header\tname,n\n1\ta,1\n2\tb,2",
  );
});
