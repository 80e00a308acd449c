/** Documents and media for read_files (spec 004): kinds by name, and how a document part is rendered. */
import assert from "node:assert/strict";
import {
  mediaKindOf,
  renderDocumentPart,
  transcriptLines,
} from "../../../tools/_core/document_part.ts";
import { documentKindOfName } from "../../../tools/_core/documents/mod.ts";

Deno.test("004 read_files: documents and media are known by their extension", () => {
  assert.equal(documentKindOfName("a/b.PDF"), "pdf");
  assert.equal(documentKindOfName("x.docx"), "docx");
  assert.equal(documentKindOfName("x.pptx"), "pptx");
  assert.equal(documentKindOfName("x.csv"), "csv");
  assert.equal(documentKindOfName("x.tsv"), "tsv");
  assert.equal(documentKindOfName("x.txt"), undefined);
  assert.equal(mediaKindOf("talk.mp3"), "audio (MP3)");
  assert.equal(mediaKindOf("demo.MP4"), "video (MP4)");
  assert.equal(mediaKindOf("x.ts"), undefined);
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

Deno.test("004 read_files: a transcript is cut into lines at sentence ends, long ones wrapped at a space", () => {
  assert.deepEqual(
    transcriptLines("  One. Two? Three!  Four\n\n你好。再见。\nno end"),
    ["One.", "Two?", "Three!", "Four", "你好。", "再见。", "no end"],
  );
  const long = Array.from({ length: 120 }, (_, k) => `word${k}`).join(" ");
  const lines = transcriptLines(long);
  assert.ok(lines.every((line) => line.length <= 500));
  assert.equal(lines.join(" "), long);
  assert.deepEqual(transcriptLines(""), []);
});
