/** Spec 000 Read, on the tool module in-process (the e2e suite repeats the scenarios through call_tool). */
import assert from "node:assert/strict";
import Read from "../../../tools/wave/read.ts";
import {
  contentHash,
  loadContentHash,
} from "../../../tools/_core/content_hash.ts";
import { TestSession, text, touchLater } from "../../_context.ts";
import { pngHeader, TINY_PNG } from "../../_images.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const lines = (n: number, width = 10) =>
  Array.from(
    { length: n },
    (_, i) => `line ${String(i + 1).padStart(width - 5, "0")}`,
  ).join("\n") + "\n";

Deno.test("000 Read #1: a text file comes back numbered, with structured metadata", async () => {
  const s = await TestSession.create();
  await s.write("a.ts", "const a = 1;\n\tindented\n");
  const r = await s.call(Read, { file_path: "a.ts" });
  assert.equal(r.isError, undefined);
  assert.equal(text(r), "     1\tconst a = 1;\n     2\t\tindented");
  assert.deepEqual(r.structured, {
    type: "text",
    path: `${s.workspace}/a.ts`,
    totalLines: 2,
    startLine: 1,
    numLines: 2,
    bytes: 23,
    truncated: false,
    linesCut: 0,
  });
  const abs = await s.call(Read, { file_path: `${s.workspace}/a.ts` });
  assert.match(
    text(abs),
    /File unchanged/,
    "an absolute path names the same file",
  );
});

Deno.test("000 Read #2: offset and limit return only that chunk", async () => {
  const s = await TestSession.create();
  await s.write("big.txt", lines(100));
  const r = await s.call(Read, { file_path: "big.txt", offset: 10, limit: 3 });
  assert.equal(
    text(r).split("\n\n")[0],
    "    10\tline 00010\n    11\tline 00011\n    12\tline 00012",
  );
  assert.match(
    text(r),
    /Showing lines 10-12 of 100\. Call Read with offset 13 to continue/,
  );
  assert.equal((r.structured as { startLine: number }).startLine, 10);
  assert.equal((r.structured as { numLines: number }).numLines, 3);
  assert.equal((r.structured as { truncated: boolean }).truncated, true);
});

Deno.test("000 Read: the default limit is 2000 lines", async () => {
  const s = await TestSession.create();
  await s.write("long.txt", lines(2500));
  const r = await s.call(Read, { file_path: "long.txt" });
  assert.equal((r.structured as { numLines: number }).numLines, 2000);
  assert.match(text(r), /Showing lines 1-2000 of 2500/);
});

Deno.test("000 Read #3: an image comes back as an image block with its metadata", async () => {
  const s = await TestSession.create();
  await s.write("dot.png", TINY_PNG);
  const r = await s.call(Read, { file_path: "dot.png" });
  assert.ok(Array.isArray(r.content));
  const [image, caption] = r.content as {
    type: string;
    source?: { media_type: string; data: string };
    text?: string;
  }[];
  assert.equal(image.type, "image");
  assert.equal(image.source!.media_type, "image/png");
  assert.deepEqual(
    Uint8Array.from(atob(image.source!.data), (c) => c.charCodeAt(0)),
    TINY_PNG,
  );
  assert.match(caption.text!, /image\/png, 1×1 px/);
  assert.deepEqual(r.structured, {
    type: "image",
    path: `${s.workspace}/dot.png`,
    mediaType: "image/png",
    width: 1,
    height: 1,
    bytes: TINY_PNG.length,
  });
});

Deno.test("000 Read #3: an image too large for a model is refused with the limit", async () => {
  const s = await TestSession.create();
  await s.write("wide.png", pngHeader(9000, 100));
  const wide = await s.call(Read, { file_path: "wide.png" });
  assert.equal(wide.isError, true);
  assert.match(
    text(wide),
    /too large for a model: .*9000×100 px; the limit is 3\.8 MB \(5 MB base64\) and 8000 px a side/,
  );
  await s.write("heavy.png", pngHeader(100, 100, 4 * 1024 * 1024));
  const heavy = await s.call(Read, { file_path: "heavy.png" });
  assert.equal(heavy.isError, true);
  assert.match(text(heavy), /4\.0 MB, 100×100 px/);
});

Deno.test("000 Read #4: unchanged since the last read of the same range: a minimal reply", async () => {
  const s = await TestSession.create();
  const path = await s.write("u.txt", "hello\n");
  await s.call(Read, { file_path: "u.txt" });
  const again = await s.call(Read, { file_path: "u.txt" });
  assert.equal((again.structured as { type: string }).type, "file_unchanged");
  assert.ok(!text(again).includes("hello"));
  // Another range is read again.
  const ranged = await s.call(Read, {
    file_path: "u.txt",
    offset: 1,
    limit: 1,
  });
  assert.equal((ranged.structured as { type: string }).type, "text");
  // A changed mtime or size is read again: never stale content.
  await s.call(Read, { file_path: "u.txt" });
  await Deno.writeTextFile(path, "hello, world\n");
  const changed = await s.call(Read, { file_path: "u.txt" });
  assert.equal(text(changed), "     1\thello, world");
  await touchLater(path);
  const touched = await s.call(Read, { file_path: "u.txt" });
  assert.equal((touched.structured as { type: string }).type, "text");
});

Deno.test("000 edge 大文件: over 256 KB without limit is refused before reading, with the size", async () => {
  const s = await TestSession.create();
  await s.write("huge.log", "x".repeat(300 * 1024));
  const r = await s.call(Read, { file_path: "huge.log" });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "huge.log is 300.0 KB (307200 bytes), over the 256.0 KB that Read takes without a limit. Read it in parts with offset and limit (e.g. offset 1, limit 500), or use Grep to find the lines you need.",
  );
});

Deno.test("000 edge 大文件: with a limit, a large file is read in parts, streaming", async () => {
  const s = await TestSession.create();
  await s.write("huge.txt", lines(60_000));
  const r = await s.call(Read, {
    file_path: "huge.txt",
    offset: 59_999,
    limit: 5,
  });
  assert.equal(
    text(r),
    "59999\tline 59999\n 60000\tline 60000".replace(/^/, " "),
  );
  assert.equal((r.structured as { totalLines: number }).totalLines, 60_000);
});

Deno.test("000 edge 大文件: over the token budget is refused, suggesting offset/limit or Grep/jq", async () => {
  const s = await TestSession.create();
  s.maxReadTokens = 1000;
  await s.write(
    "wordy.json",
    `[\n${Array(500).fill(`  "${"word ".repeat(10)}"`).join(",\n")}\n]\n`,
  );
  const r = await s.call(Read, { file_path: "wordy.json" });
  assert.equal(r.isError, true);
  assert.match(
    text(r),
    /too large to read at once: about \d+ tokens .* over the 1000-token budget of one Read\. Read it in parts with offset and limit, or search it with Grep \(or jq for JSON\)/,
  );
});

Deno.test("000 edge 二进制文档: PDF, DOCX, archives and other binaries are refused, naming the type", async () => {
  const s = await TestSession.create();
  const cases: [string, Uint8Array | string, RegExp][] = [
    ["doc.pdf", "%PDF-1.7\n%\xe2\xe3\n", /PDF document/],
    [
      "report.docx",
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 1, 2]),
      /Word document \(DOCX\)/,
    ],
    [
      "sheet.xlsx",
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]),
      /Excel workbook \(XLSX\)/,
    ],
    [
      "deck.pptx",
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]),
      /PowerPoint presentation \(PPTX\)/,
    ],
    ["bundle.tar.gz", new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0]), /gzip archive/],
    [
      "noext",
      new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]),
      /ELF executable/,
    ],
    ["data.bin2", new Uint8Array([1, 2, 0, 4, 5]), /binary data/],
  ];
  for (const [name, content, pattern] of cases) {
    await s.write(name, content);
    const r = await s.call(Read, { file_path: name });
    assert.equal(r.isError, true, name);
    assert.match(
      text(r),
      new RegExp(
        `^Cannot read ${name.replace(".", "\\.")}: it is a binary file \\(`,
      ),
      name,
    );
    assert.match(text(r), pattern, name);
  }
});

Deno.test("000 Read: a notebook comes back cell by cell, with text and image outputs", async () => {
  const s = await TestSession.create();
  const png = btoa(
    String.fromCharCode(...(await import("../../_images.ts")).TINY_PNG),
  );
  await s.write(
    "nb.ipynb",
    JSON.stringify({
      metadata: { language_info: { name: "python" } },
      cells: [
        { cell_type: "markdown", id: "m1", source: ["# Title\n", "text"] },
        {
          cell_type: "code",
          id: "c1",
          source: "print('hi')\n1+1",
          outputs: [
            { output_type: "stream", name: "stdout", text: ["hi\n"] },
            { output_type: "execute_result", data: { "text/plain": ["2"] } },
            {
              output_type: "display_data",
              data: { "image/png": png, "text/plain": "<Figure>" },
            },
          ],
        },
        {
          cell_type: "code",
          source: "1/0",
          outputs: [{
            output_type: "error",
            ename: "ZeroDivisionError",
            evalue: "division by zero",
            traceback: ["\x1b[31mTraceback\x1b[0m"],
          }],
        },
      ],
    }),
  );
  const r = await s.call(Read, { file_path: "nb.ipynb" });
  const blocks = r.content as {
    type: string;
    text?: string;
    source?: { media_type: string };
  }[];
  assert.equal(blocks[0].type, "text");
  assert.equal(
    blocks[0].text,
    '<cell index="0" id="m1" type="markdown">\n# Title\ntext\n</cell>\n' +
      '<cell index="1" id="c1" type="code">\nprint(\'hi\')\n1+1\n</cell>\n' +
      '<output type="stream" name="stdout">\nhi\n</output>\n' +
      '<output type="execute_result">\n2\n</output>\n' +
      '<output type="display_data">\n<Figure>\n</output>\n',
  );
  assert.equal(blocks[1].type, "image");
  assert.equal(blocks[1].source!.media_type, "image/png");
  assert.equal(
    blocks[2].text,
    '<cell index="2" type="code">\n1/0\n</cell>\n<output type="error">\nZeroDivisionError: division by zero\nTraceback\n</output>\n',
  );
  assert.deepEqual(r.structured, {
    type: "notebook",
    path: `${s.workspace}/nb.ipynb`,
    cells: 3,
    language: "python",
    images: 1,
    bytes: (await Deno.stat(`${s.workspace}/nb.ipynb`)).size,
  });
});

Deno.test("000 Read: empty file, offset past the end, a directory, a missing file: each its own message", async () => {
  const s = await TestSession.create();
  await s.write("empty.txt", "");
  const empty = await s.call(Read, { file_path: "empty.txt" });
  assert.equal(empty.isError, undefined);
  assert.equal(text(empty), "empty.txt exists but is empty (0 lines, 0 B).");

  await s.write("three.txt", "a\nb\nc\n");
  const past = await s.call(Read, { file_path: "three.txt", offset: 9 });
  assert.equal(past.isError, true);
  assert.equal(
    text(past),
    "offset 9 is past the end of three.txt, which has 3 lines. Use an offset from 1 to 3.",
  );

  await Deno.mkdir(`${s.workspace}/src`);
  const dir = await s.call(Read, { file_path: "src" });
  assert.equal(dir.isError, true);
  assert.match(text(dir), /^src is a directory, not a file/);

  await s.write("config.json", "{}");
  await s.write("config.yaml", "a: 1");
  const missing = await s.call(Read, { file_path: "confg.json" });
  assert.equal(missing.isError, true);
  assert.equal(
    text(missing),
    "File does not exist: confg.json. Did you mean config.json?",
  );
  const sameStem = await s.call(Read, { file_path: "config.yml" });
  assert.equal(
    text(sameStem),
    "File does not exist: config.yml. Did you mean config.json, config.yaml?",
  );
  const nowhere = await s.call(Read, { file_path: "no/such/dir/file.txt" });
  assert.equal(text(nowhere), "File does not exist: no/such/dir/file.txt.");
});

Deno.test("000 Read: lines over 2000 characters are cut with a visible marker", async () => {
  const s = await TestSession.create();
  await s.write("min.js", "a".repeat(2500) + "\nshort\n");
  const r = await s.call(Read, { file_path: "min.js" });
  const [first, second] = text(r).split("\n");
  assert.equal(
    first,
    `     1\t${"a".repeat(2000)}… [line cut: 500 more characters]`,
  );
  assert.equal(second, "     2\tshort");
  assert.equal((r.structured as { linesCut: number }).linesCut, 1);
  assert.equal((r.structured as { truncated: boolean }).truncated, true);
});

Deno.test("000 Read: a long line of a large file, read with a limit, is cut with the same marker as a small file's", async () => {
  const s = await TestSession.create();
  // 3 MB on one line, streamed in 256 KiB chunks: only its shown head is kept.
  await s.write("one-line.json", "é".repeat(1_500_000) + "\nend\n");
  const r = await s.call(Read, { file_path: "one-line.json", limit: 2 });
  assert.equal(
    text(r),
    `     1\t${
      "é".repeat(2000)
    }… [line cut: 1498000 more characters]\n     2\tend`,
  );
  assert.equal((r.structured as { linesCut: number }).linesCut, 1);
});

Deno.test("000 Read: a whole read records hash and whole; a ranged read records partial", async () => {
  const s = await TestSession.create();
  const path = await s.write("r.txt", "one\ntwo\n");
  await s.call(Read, { file_path: "r.txt" });
  const whole = s.records.get(path)!;
  assert.equal(whole.whole, true);
  assert.equal(whole.hash, contentHash(new TextEncoder().encode("one\ntwo\n")));
  assert.equal(whole.size, 8);
  await s.call(Read, { file_path: "r.txt", offset: 2 });
  const partial = s.records.get(path)!;
  assert.equal(partial.whole, false);
  assert.equal(partial.hash, undefined);
});

Deno.test("000 Read: UTF-8 BOM is not shown, UTF-16 text is decoded", async () => {
  const s = await TestSession.create();
  await s.write("bom.txt", "\uFEFFfirst\n");
  assert.equal(
    text(await s.call(Read, { file_path: "bom.txt" })),
    "     1\tfirst",
  );
  const utf16 = new Uint8Array([
    0xff,
    0xfe,
    ...[..."hé\n"].flatMap((c) => [c.charCodeAt(0), 0]),
  ]);
  await s.write("wide.txt", utf16);
  assert.equal(
    text(await s.call(Read, { file_path: "wide.txt" })),
    "     1\thé",
  );
});
