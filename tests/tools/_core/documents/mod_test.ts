import assert from "node:assert/strict";
import {
  type DocumentKind,
  documentKind,
  type DocumentPart,
  MAX_WHOLE_BYTES,
} from "../../../../tools/_core/documents/mod.ts";
import { readHead } from "../../../../tools/_core/file_type.ts";
import { writePdf } from "../../../fixtures/documents/_pdf_writer.ts";
import {
  assertToolError,
  cfb,
  FIXTURES,
  read,
  withTempDir,
} from "./_helpers.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** What the worker (`_document_worker.ts`) is sent. */
interface ReadRequest {
  real: string;
  kind: DocumentKind;
  range?: { offset: number; limit: number };
}

Deno.test("documentKind: the fixtures, by their names and bytes", async () => {
  const expected: Record<string, DocumentKind> = {
    "three_pages.pdf": "pdf",
    "encrypted.pdf": "pdf",
    "truncated.pdf": "pdf",
    "heading_list.docx": "docx",
    "two_slides.pptx": "pptx",
    "quoted.csv": "csv",
    "people.tsv": "tsv",
  };
  for (const [name, kind] of Object.entries(expected)) {
    assert.equal(
      documentKind(name, await readHead(FIXTURES + name)),
      kind,
      name,
    );
  }
  // An Office package renamed: its first entries say what it is.
  assert.equal(
    documentKind("upload.bin", await readHead(`${FIXTURES}heading_list.docx`)),
    "docx",
  );
  assert.equal(
    documentKind("upload", await readHead(`${FIXTURES}two_slides.pptx`)),
    "pptx",
  );
});

Deno.test("documentKind: signatures, names, and what is none of these", () => {
  assert.equal(documentKind("scan", enc("%PDF-1.7\n")), "pdf");
  assert.equal(documentKind("x.txt", enc("junk\n%PDF-1.4\n")), "pdf");
  assert.equal(documentKind("REPORT.PDF", enc("not a pdf")), "pdf");
  assert.equal(documentKind("secret.docx", cfb("EncryptedPackage")), "docx");
  assert.equal(documentKind("deck.PPTM", enc("")), "pptx");
  assert.equal(documentKind("data.CSV", enc("a,b\n")), "csv");
  assert.equal(documentKind("data.tab", enc("a\tb\n")), "tsv");
  assert.equal(
    documentKind("wide.tsv", new Uint8Array([0xff, 0xfe, 0x61, 0, 0x09, 0])),
    "tsv",
  );
  assert.equal(documentKind("blob.csv", new Uint8Array([1, 0, 2])), undefined);
  assert.equal(documentKind("notes.txt", enc("hello")), undefined);
  assert.equal(documentKind("old.doc", cfb()), undefined);
  assert.equal(
    documentKind("archive.zip", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0])),
    undefined,
  );
});

Deno.test("readDocument: over 1 MiB, a whole read is refused with the size, the limit and the unit; a window reads", async () => {
  await withTempDir(async (dir) => {
    const line =
      "The quick brown fox jumps over the lazy dog, again and again.";
    const pages = Array.from(
      { length: 400 },
      (_, p) =>
        Array.from({ length: 50 }, (_, l) => `${p + 1}.${l + 1} ${line}`),
    );
    const bytes = writePdf(pages);
    assert.ok(bytes.length > MAX_WHOLE_BYTES);
    await Deno.writeFile(`${dir}/big.pdf`, bytes);
    await assertToolError(
      read(`${dir}/big.pdf`, "pdf"),
      "big.pdf is a PDF document of 1.6 MB, over the 1 MiB limit of a document read whole; read it in pages: offset/limit (in pages, e.g. offset 1, limit 20).",
      "document_too_large",
    );
    const part = await read(`${dir}/big.pdf`, "pdf", { offset: 400, limit: 1 });
    assert.equal(part.total, 400);
    assert.equal(part.parts[0].split("\n")[49], `400.50 ${line}`);
  });
});

Deno.test("readDocument: a file of exactly 1 MiB is read whole, one byte more is not", async () => {
  await withTempDir(async (dir) => {
    const header = "n\n";
    const row = "x".repeat(1023) + "\n"; // 1 KiB a row
    const body = header + row.repeat(1023) +
      "y".repeat(1024 - header.length - 1) + "\n";
    assert.equal(body.length, MAX_WHOLE_BYTES);
    await Deno.writeTextFile(`${dir}/exact.csv`, body);
    assert.equal((await read(`${dir}/exact.csv`, "csv")).total, 1024);
    await Deno.writeTextFile(`${dir}/over.csv`, body + "z");
    await assertToolError(
      read(`${dir}/over.csv`, "csv"),
      "over.csv is a CSV table of 1.0 MB, over the 1 MiB limit of a document read whole; read it in pages: offset/limit (in rows, e.g. offset 1, limit 20).",
      "document_too_large",
    );
  });
});

Deno.test("readDocument: every kind reads in a worker that may only read the fixtures (no net, env, sys, ffi, run, write)", async () => {
  const requests: ReadRequest[] = [
    {
      real: `${FIXTURES}three_pages.pdf`,
      kind: "pdf",
      range: { offset: 2, limit: 1 },
    },
    { real: `${FIXTURES}heading_list.docx`, kind: "docx" },
    { real: `${FIXTURES}two_slides.pptx`, kind: "pptx" },
    { real: `${FIXTURES}quoted.csv`, kind: "csv" },
    { real: `${FIXTURES}people.tsv`, kind: "tsv" },
    { real: `${FIXTURES}encrypted.pdf`, kind: "pdf" },
  ];
  const worker = new Worker(new URL("./_document_worker.ts", import.meta.url), {
    type: "module",
    deno: {
      permissions: {
        read: [FIXTURES],
        write: false,
        net: false,
        env: false,
        sys: false,
        ffi: false,
        run: false,
        import: false,
      },
    },
  });
  try {
    for (const request of requests) {
      const answer = new Promise<{ part?: DocumentPart; error?: string }>(
        (resolve, reject) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => {
            event.preventDefault();
            reject(new Error(event.message));
          };
        },
      );
      worker.postMessage(request);
      const inProcess = await read(request.real, request.kind, request.range)
        .then(
          (part) => ({ part }),
          (e: Error) => ({ error: `${e.name}: ${e.message}` }),
        );
      assert.deepEqual(await answer, inProcess, request.real);
      // Only the encrypted PDF fails, in both places alike.
      assert.equal(
        "part" in inProcess,
        !request.real.endsWith("encrypted.pdf"),
        request.real,
      );
    }
  } finally {
    worker.terminate();
  }
});
