import assert from "node:assert/strict";
import { strToU8, zipSync } from "fflate";
import {
  assertToolError,
  cfb,
  FIXTURES,
  read,
  withDeclaredSize,
  withTempDir,
} from "./_helpers.ts";

const LINES = [
  "# Release notes",
  "",
  "Version 2 reads documents **faster**.",
  "",
  "## What changed",
  "",
  "- PDF by page",
  "- Slides in order",
  "  - Notes too",
  "",
  "## How to upgrade",
  "",
  "1. Install it",
  "2. Run it",
  "",
  "| Format | Unit |",
  "| --- | --- |",
  "| PDF | page |",
  "",
  "[image: A small chart]",
];

Deno.test("docx: Markdown lines keep headings, emphasis, nested and numbered lists, tables; images are their alt text", async () => {
  assert.deepEqual(await read("heading_list.docx", "docx"), {
    unit: "line",
    total: LINES.length,
    first: 1,
    parts: LINES,
  });
});

Deno.test("docx: offset/limit count Markdown lines", async () => {
  assert.deepEqual(
    await read("heading_list.docx", "docx", { offset: 5, limit: 5 }),
    {
      unit: "line",
      total: LINES.length,
      first: 5,
      parts: [
        "## What changed",
        "",
        "- PDF by page",
        "- Slides in order",
        "  - Notes too",
      ],
    },
  );
});

Deno.test("docx: an encrypted, legacy, truncated or foreign file is a clear error", async () => {
  await withTempDir(async (dir) => {
    const write = (name: string, bytes: Uint8Array) =>
      Deno.writeFile(`${dir}/${name}`, bytes);
    await write("secret.docx", cfb("EncryptedPackage"));
    await assertToolError(
      read(`${dir}/secret.docx`, "docx"),
      "secret.docx is an encrypted DOCX document: it needs a password, so its text cannot be read.",
      "encrypted_document",
    );
    await write("old.docx", cfb());
    await assertToolError(
      read(`${dir}/old.docx`, "docx"),
      "old.docx is not a readable DOCX document (it is a legacy binary Office file (DOC, PPT, XLS), not an Office Open XML package); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    const whole = await Deno.readFile(`${FIXTURES}heading_list.docx`);
    await write("cut.docx", whole.subarray(0, whole.length >> 1));
    await assertToolError(
      read(`${dir}/cut.docx`, "docx"),
      "cut.docx is not a readable DOCX document (its ZIP archive is damaged: invalid zip data); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    await write("text.docx", new TextEncoder().encode("hello"));
    await assertToolError(
      read(`${dir}/text.docx`, "docx"),
      "text.docx is not a readable DOCX document (it is not a ZIP archive); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    await write(
      "other.docx",
      zipSync({ "notes.txt": new Uint8Array([104, 105]) }),
    );
    await assertToolError(
      read(`${dir}/other.docx`, "docx"),
      "other.docx is not a readable DOCX document (it has no word/document.xml: it is not a Word document); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  });
});

Deno.test("docx: a part that claims to unpack past the limit is refused before anything unpacks it", async () => {
  await withTempDir(async (dir) => {
    const whole = await Deno.readFile(`${FIXTURES}heading_list.docx`);
    await Deno.writeFile(
      `${dir}/bomb.docx`,
      withDeclaredSize(whole, "word/document.xml", 0xffff_0000),
    );
    await assertToolError(
      read(`${dir}/bomb.docx`, "docx"),
      "bomb.docx is not a readable DOCX document (its part word/document.xml unpacks to 4.0 GB, over the 128 MiB a document part may have); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  });
});

Deno.test("docx: a part that lies about its size is refused as it unpacks, quickly and without unpacking it all", async () => {
  // 64 MiB of text that the directory says is 1000 bytes (about 64 KiB on disk).
  const body = "a".repeat(64 * 1024 * 1024);
  const liar = withDeclaredSize(
    zipSync({
      "word/document.xml": strToU8(
        `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${body}</w:t></w:r></w:p></w:body></w:document>`,
      ),
    }),
    "word/document.xml",
    1000,
  );
  assert.ok(liar.length < 1024 * 1024);
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/liar.docx`, liar);
    const heap = Deno.memoryUsage().heapUsed;
    const started = performance.now();
    await assertToolError(
      read(`${dir}/liar.docx`, "docx"),
      "liar.docx is not a readable DOCX document (its part word/document.xml unpacks to more than the 1000 B its directory declares); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    assert.ok(performance.now() - started < 2000, "refused quickly");
    // Stopped after one step past the declared size, not 64 MiB later.
    assert.ok(Deno.memoryUsage().heapUsed - heap < 32 * 1024 * 1024);
  });
});

Deno.test("docx: broken document XML is a clear error; an empty body is no lines", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(
      `${dir}/broken.docx`,
      zipSync({ "word/document.xml": strToU8("<w:document><w:body><w:p") }),
    );
    await assertToolError(
      read(`${dir}/broken.docx`, "docx"),
      "broken.docx is not a readable DOCX document (error: [xmldom error]\telement parse error: Error: Hierarchy request error: Only one element can be added and only after doctype); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    await Deno.writeFile(
      `${dir}/empty.docx`,
      zipSync({
        "word/document.xml": strToU8(
          '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>',
        ),
      }),
    );
    assert.deepEqual(await read(`${dir}/empty.docx`, "docx"), {
      unit: "line",
      total: 0,
      first: 1,
      parts: [],
    });
  });
});
