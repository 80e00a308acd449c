import assert from "node:assert/strict";
import { writePdf } from "../../../fixtures/documents/_pdf_writer.ts";
import { abortsAfter, assertToolError, read } from "./_helpers.ts";
import { tempDir } from "../../../_temp.ts";

Deno.test("pdf: a whole read gives every page's text, lines kept", async () => {
  assert.deepEqual(await read("three_pages.pdf", "pdf"), {
    unit: "page",
    total: 3,
    first: 1,
    parts: [
      "Page one\nThe quick brown fox (jumps).",
      "Page two",
      "Page three\nThe end.",
    ],
  });
});

Deno.test("pdf: offset/limit count pages", async () => {
  assert.deepEqual(
    await read("three_pages.pdf", "pdf", { offset: 2, limit: 1 }),
    {
      unit: "page",
      total: 3,
      first: 2,
      parts: ["Page two"],
    },
  );
  assert.deepEqual(
    (await read("three_pages.pdf", "pdf", { offset: 2, limit: 10 })).parts,
    ["Page two", "Page three\nThe end."],
  );
  // Past the end: no parts, and total says how many pages there are.
  assert.deepEqual(
    await read("three_pages.pdf", "pdf", { offset: 5, limit: 2 }),
    {
      unit: "page",
      total: 3,
      first: 5,
      parts: [],
    },
  );
});

Deno.test("pdf: a PDF that needs a password is a clear error; one with only an owner password reads", async () => {
  await assertToolError(
    read("encrypted.pdf", "pdf"),
    "encrypted.pdf is an encrypted PDF: it needs a password, so its text cannot be read.",
    "encrypted_document",
  );
  assert.deepEqual(
    (await read("owner_only.pdf", "pdf", { offset: 3, limit: 1 })).parts,
    ["Page three\nThe end."],
  );
});

Deno.test("pdf: a truncated or mislabelled file is a clear error", async () => {
  await assertToolError(
    read("truncated.pdf", "pdf"),
    "truncated.pdf is not a readable PDF (Invalid PDF structure.); the file may be corrupt or truncated.",
    "corrupt_document",
  );
  const dir = await tempDir();
  try {
    await Deno.writeTextFile(`${dir}/notes.pdf`, "just some text\n");
    await assertToolError(
      read(`${dir}/notes.pdf`, "pdf"),
      "notes.pdf is not a readable PDF (Invalid PDF structure.); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pdf: an abort stops the read between pages", async () => {
  const dir = await tempDir();
  try {
    const pages = Array.from({ length: 20 }, (_, i) => [`Page ${i + 1}`]);
    await Deno.writeFile(`${dir}/long.pdf`, writePdf(pages));
    const controller = new AbortController();
    controller.abort();
    await assertToolError(
      read(`${dir}/long.pdf`, "pdf", undefined, controller.signal),
      "Reading long.pdf was interrupted.",
      "interrupted",
    );
    // Still readable while the signal is quiet; aborted after a few looks, it stops.
    await assertToolError(
      read(`${dir}/long.pdf`, "pdf", undefined, abortsAfter(5)),
      "Reading long.pdf was interrupted.",
      "interrupted",
    );
    assert.equal((await read(`${dir}/long.pdf`, "pdf")).parts.length, 20);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
