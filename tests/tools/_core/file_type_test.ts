import assert from "node:assert/strict";
import { classify, isUtf8 } from "../../../tools/_core/file_type.ts";
import { TINY_PNG } from "../../_images.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("file types: text, images by signature, notebooks, binaries by name and by bytes", async () => {
  assert.deepEqual(await classify("a.ts", enc("const a = 1;")), {
    kind: "text",
    encoding: "utf-8",
  });
  assert.deepEqual(await classify("image.dat", TINY_PNG), {
    kind: "image",
    mediaType: "image/png",
  });
  assert.deepEqual(
    await classify("p.jpg", new Uint8Array([0xff, 0xd8, 0xff, 0xe0])),
    {
      kind: "image",
      mediaType: "image/jpeg",
    },
  );
  assert.deepEqual(await classify("n.ipynb", enc("{}")), { kind: "notebook" });
  assert.deepEqual(await classify("d.pdf", enc("%PDF-1.4")), {
    kind: "binary",
    name: "PDF document",
  });
  assert.deepEqual(await classify("noext", enc("%PDF-1.4")), {
    kind: "binary",
    name: "PDF document",
  });
  assert.equal((await classify("x", new Uint8Array([1, 0, 2]))).kind, "binary");
  assert.equal(
    (await classify("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9])))
      .kind,
    "binary",
  );
  // A .dat that is really text is text.
  assert.deepEqual(await classify("notes.dat", enc("plain")), {
    kind: "text",
    encoding: "utf-8",
  });
  assert.deepEqual(
    await classify("w.txt", new Uint8Array([0xff, 0xfe, 0x61, 0])),
    { kind: "text", encoding: "utf-16le" },
  );
});

Deno.test("file types: a UTF-8 sequence cut at the end of the sample is still UTF-8", () => {
  const bytes = enc("aé");
  assert.ok(isUtf8(bytes.slice(0, 2)));
  assert.ok(!isUtf8(new Uint8Array([0xc3, 0x28])));
});
