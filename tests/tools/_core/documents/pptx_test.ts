import assert from "node:assert/strict";
import { strToU8, zipSync } from "fflate";
import {
  abortsAfter,
  assertToolError,
  cfb,
  FIXTURES,
  read,
  withDeclaredSize,
  withTempDir,
} from "./_helpers.ts";

const ONE =
  "Quarterly review\n- Revenue up\n- Costs down\n\nNotes:\nSpeak slowly.";
const TWO = "Next steps\nOwner | Task\nAna | Ship it";

Deno.test("pptx: text by slide: shapes in order, bullets, table rows, speaker notes", async () => {
  assert.deepEqual(await read("two_slides.pptx", "pptx"), {
    unit: "slide",
    total: 2,
    first: 1,
    parts: [ONE, TWO],
  });
});

Deno.test("pptx: slides come in the order presentation.xml lists them, not by file name", async () => {
  assert.deepEqual((await read("reordered.pptx", "pptx")).parts, [TWO, ONE]);
});

Deno.test("pptx: offset/limit count slides", async () => {
  assert.deepEqual(
    await read("two_slides.pptx", "pptx", { offset: 2, limit: 1 }),
    {
      unit: "slide",
      total: 2,
      first: 2,
      parts: [TWO],
    },
  );
  assert.deepEqual(
    (await read("two_slides.pptx", "pptx", { offset: 3, limit: 1 })).parts,
    [],
  );
});

/** A minimal package: the root relationships, a presentation listing `slides`, and the slides. */
function deck(
  slides: Record<string, string>,
  order = Object.keys(slides),
): Uint8Array {
  const rels = (items: string) =>
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items}</Relationships>`;
  const files: Record<string, Uint8Array> = {
    "_rels/.rels": strToU8(rels(
      `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/>`,
    )),
    "ppt/presentation.xml": strToU8(
      `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>${
        order.map((name, i) => `<p:sldId id="${256 + i}" r:id="s${name}"/>`)
          .join("")
      }</p:sldIdLst></p:presentation>`,
    ),
    "ppt/_rels/presentation.xml.rels": strToU8(rels(
      Object.keys(slides).map((name) =>
        `<Relationship Id="s${name}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/${name}.xml"/>`
      ).join(""),
    )),
  };
  for (const [name, xml] of Object.entries(slides)) {
    files[`ppt/slides/${name}.xml`] = strToU8(xml);
  }
  return zipSync(files);
}

const slide = (body: string) =>
  `<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree>${body}</p:spTree></p:cSld></p:sld>`;

Deno.test("pptx: line breaks, fields, groups and bullet levels; an empty slide is empty text", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(
      `${dir}/deck.pptx`,
      deck({
        a: slide(
          `<p:grpSp><p:sp><p:txBody><a:p><a:r><a:t>First</a:t></a:r><a:br/><a:r><a:t>line &amp; more</a:t></a:r></a:p>` +
            `<a:p><a:pPr lvl="1"><a:buChar char="•"/></a:pPr><a:r><a:t>deeper</a:t></a:r></a:p>` +
            `<a:p><a:fld type="slidenum"><a:t>7</a:t></a:fld></a:p><a:p></a:p></p:txBody></p:sp></p:grpSp>`,
        ),
        b: slide(""),
      }),
    );
    assert.deepEqual((await read(`${dir}/deck.pptx`, "pptx")).parts, [
      "First\nline & more\n  - deeper\n7",
      "",
    ]);
  });
});

Deno.test("pptx: an encrypted, truncated or foreign file, or broken XML, is a clear error", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/secret.pptx`, cfb("EncryptedPackage"));
    await assertToolError(
      read(`${dir}/secret.pptx`, "pptx"),
      "secret.pptx is an encrypted PPTX presentation: it needs a password, so its text cannot be read.",
      "encrypted_document",
    );
    const whole = await Deno.readFile(`${FIXTURES}two_slides.pptx`);
    await Deno.writeFile(
      `${dir}/cut.pptx`,
      whole.subarray(0, whole.length - 100),
    );
    await assertToolError(
      read(`${dir}/cut.pptx`, "pptx"),
      "cut.pptx is not a readable PPTX presentation (its ZIP archive is damaged: invalid zip data); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    await Deno.writeFile(
      `${dir}/words.pptx`,
      zipSync({ "word/document.xml": strToU8("<w/>") }),
    );
    await assertToolError(
      read(`${dir}/words.pptx`, "pptx"),
      "words.pptx is not a readable PPTX presentation (it has no ppt/presentation.xml: it is not a presentation); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    await Deno.writeFile(
      `${dir}/broken.pptx`,
      deck({ a: slide("<p:sp><unclosed") }),
    );
    await assertToolError(
      read(`${dir}/broken.pptx`, "pptx"),
      "broken.pptx is not a readable PPTX presentation (its part ppt/slides/a.xml is not well-formed XML: element parse error: Error: unexpected < in tag name: unclosed); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  });
});

Deno.test("pptx: a forged ZIP directory is refused, not walked", async () => {
  await withTempDir(async (dir) => {
    const bytes = (await Deno.readFile(`${FIXTURES}two_slides.pptx`)).slice();
    const view = new DataView(bytes.buffer);
    const end = bytes.length - 22; // no archive comment: the end record is last
    assert.equal(view.getUint32(end, true), 0x06054b50);
    view.setUint16(end + 8, 0xffff, true);
    view.setUint16(end + 10, 0xffff, true);
    await Deno.writeFile(`${dir}/forged.pptx`, bytes);
    await assertToolError(
      read(`${dir}/forged.pptx`, "pptx"),
      "forged.pptx is not a readable PPTX presentation (its ZIP archive is damaged: its directory lists more entries than the file can hold); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  });
});

Deno.test("pptx: an abort stops the read between slides", async () => {
  await assertToolError(
    read("two_slides.pptx", "pptx", undefined, abortsAfter(3)),
    "Reading two_slides.pptx was interrupted.",
    "interrupted",
  );
});

Deno.test("pptx: a slide that lies about its size is refused as it unpacks, not cut short", async () => {
  const text = "a".repeat(8 * 1024 * 1024);
  const liar = withDeclaredSize(
    deck({
      a: slide(
        `<p:sp><p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`,
      ),
    }),
    "ppt/slides/a.xml",
    1000,
  );
  await withTempDir(async (dir) => {
    await Deno.writeFile(`${dir}/liar.pptx`, liar);
    await assertToolError(
      read(`${dir}/liar.pptx`, "pptx"),
      "liar.pptx is not a readable PPTX presentation (its part ppt/slides/a.xml unpacks to more than the 1000 B its directory declares); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  });
});
