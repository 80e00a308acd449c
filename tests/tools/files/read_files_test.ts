/** Spec 004 read_files, on the tool module in-process. */
import assert from "node:assert/strict";
import ReadFiles, {
  DEFAULT_CONTEXT,
  DEFAULT_LIMIT,
  MAX_IMAGE_FILE_BYTES,
} from "../../../tools/files/read_files.ts";
import { TestSession, text, touchLater } from "../../_context.ts";
import { pngHeader, TINY_PNG } from "../../_images.ts";

const numbered = (n: number, from = 1) =>
  Array.from({ length: n }, (_, k) => `line ${from + k}`).join("\n") + "\n";

type Structured = { files: Record<string, unknown>[] };

Deno.test("004 read_files: text lines come back as <row>\\t<line>, under the file's path", async () => {
  const s = await TestSession.create();
  await s.write("src/a.txt", "alpha\n\tbeta\n");
  const r = await s.call(ReadFiles, { files: [{ path: "src/a.txt" }] });
  assert.equal(r.isError, false);
  assert.equal(text(r), "==> src/a.txt <==\n1\talpha\n2\t\tbeta");
  assert.deepEqual((r.structured as Structured).files[0], {
    path: `${s.workspace}/src/a.txt`,
    type: "text",
    totalLines: 2,
    startLine: 1,
    numLines: 2,
    nextOffset: null,
  });
});

Deno.test("004 read_files: the description says the row number is added by the reader and must be stripped before a line is an edit_file anchor", () => {
  assert.match(
    ReadFiles.description,
    /Text comes back as "<row>\\t<line>": the row number is added by the reader and is not in the file\. Strip the number and the tab before you use a line as an edit_file anchor\./,
  );
});

Deno.test("004 read_files: files [{path, offset, limit}]: the same path more than once, results in order, concatenated", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", numbered(5));
  await s.write("b.txt", "bee\n");
  const r = await s.call(ReadFiles, {
    files: [
      { path: "a.txt", offset: 4 },
      { path: "b.txt" },
      { path: "a.txt", offset: 1, limit: 1 },
    ],
  });
  assert.equal(
    text(r),
    "==> a.txt <==\n4\tline 4\n5\tline 5\n\n==> b.txt <==\n1\tbee\n\n==> a.txt <==\n1\tline 1\n[lines 1-1 of 5; call again with offset=2 for more]",
  );
});

Deno.test("004 read_files: at most 2,048 lines by default; a cut read ends with [lines a-b of N; call again with offset=… for more]", async () => {
  const s = await TestSession.create();
  assert.equal(DEFAULT_LIMIT, 2048);
  s.maxReadTokens = 1_000_000;
  await s.write("long.txt", numbered(3000));
  const r = await s.call(ReadFiles, { files: [{ path: "long.txt" }] });
  const lines = text(r).split("\n");
  assert.equal(lines.length, 1 + 2048 + 1);
  assert.equal(lines[2048], "2048\tline 2048");
  assert.equal(
    lines.at(-1),
    "[lines 1-2048 of 3000; call again with offset=2049 for more]",
  );
  const next = await s.call(ReadFiles, {
    files: [{ path: "long.txt", offset: 2049 }],
  });
  const rest = text(next).split("\n");
  assert.equal(rest.length, 1 + 952);
  assert.equal(rest.at(-1), "3000\tline 3000");
});

Deno.test("004 read_files: a read cut by the token budget says the next offset too", async () => {
  const s = await TestSession.create();
  s.maxReadTokens = 100;
  await s.write("a.txt", numbered(100));
  const r = await s.call(ReadFiles, { files: [{ path: "a.txt" }] });
  const last = text(r).split("\n").at(-1)!;
  const m = last.match(
    /^\[lines 1-(\d+) of 100; call again with offset=(\d+) for more\]$/,
  );
  assert.ok(m, last);
  assert.equal(Number(m[2]), Number(m[1]) + 1);
  assert.ok(Number(m[1]) < 100);
});

Deno.test("004 read_files: offset past the end is an error naming the length", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", numbered(3));
  const r = await s.call(ReadFiles, { files: [{ path: "a.txt", offset: 9 }] });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "==> a.txt <==\nError: offset 9 is past the end of a.txt, which has 3 lines. Use an offset from 1 to 3.",
  );
});

Deno.test("004 read_files around: each line gets context lines on each side (default 20); skipped stretches show as ...", async () => {
  const s = await TestSession.create();
  assert.equal(DEFAULT_CONTEXT, 20);
  await s.write("a.txt", numbered(100));
  const r = await s.call(ReadFiles, {
    files: [{ path: "a.txt", around: [50] }],
  });
  const lines = text(r).split("\n");
  assert.equal(lines[1], "...");
  assert.equal(lines[2], "30\tline 30");
  assert.equal(lines.at(-2), "70\tline 70");
  assert.equal(lines.at(-1), "...");
  assert.equal(lines.length, 1 + 1 + 41 + 1);
});

Deno.test("004 read_files around: context 0 is that line only; overlapping windows merge; offset/limit are ignored", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", numbered(30));
  const only = await s.call(ReadFiles, {
    files: [{
      path: "a.txt",
      around: [3, 10],
      context: 0,
      offset: 20,
      limit: 1,
    }],
  });
  assert.equal(
    text(only),
    "==> a.txt <==\n...\n3\tline 3\n...\n10\tline 10\n...",
  );
  const merged = await s.call(ReadFiles, {
    files: [{ path: "a.txt", around: [5, 7, 28], context: 2 }],
  });
  assert.equal(
    text(merged),
    "==> a.txt <==\n...\n3\tline 3\n4\tline 4\n5\tline 5\n6\tline 6\n7\tline 7\n8\tline 8\n9\tline 9\n...\n26\tline 26\n27\tline 27\n28\tline 28\n29\tline 29\n30\tline 30",
  );
  assert.deepEqual(
    (merged.structured as Structured).files[0].around,
    [[3, 9], [26, 30]],
  );
});

Deno.test("004 read_files around: 1-based lines of a plain text file; past the end or another kind of file is an error", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", numbered(3));
  await s.write("pic.png", TINY_PNG);
  const past = await s.call(ReadFiles, {
    files: [{ path: "a.txt", around: [4] }],
  });
  assert.equal(
    text(past),
    "==> a.txt <==\nError: around line 4 is past the end of a.txt, which has 3 lines. Give line numbers from 1 to 3.",
  );
  const image = await s.call(ReadFiles, {
    files: [{ path: "pic.png", around: [1] }],
  });
  assert.equal(
    text(image),
    "==> pic.png <==\nError: around takes line numbers of a plain text file, and pic.png is not one.",
  );
  await s.write("t.csv", "a,b\n1,2\n");
  const table = await s.call(ReadFiles, {
    files: [{ path: "t.csv", around: [1] }],
  });
  assert.equal(
    text(table),
    "==> t.csv <==\nError: around takes line numbers of a plain text file, and t.csv is not one: read it with offset/limit (in rows).",
  );
  const zero = (ReadFiles.input as unknown as {
    safeParse(v: unknown): { success: boolean };
  }).safeParse({ files: [{ path: "a.txt", around: [0] }] });
  assert.equal(zero.success, false);
});

Deno.test("004 read_files: images come back as content blocks with media type and dimensions, in order with the text", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "hello\n");
  await s.write("pic.png", TINY_PNG);
  const r = await s.call(ReadFiles, {
    files: [{ path: "a.txt" }, { path: "pic.png" }, { path: "a.txt" }],
  });
  assert.ok(Array.isArray(r.content));
  const blocks = r.content as {
    type: string;
    text?: string;
    source?: Record<string, string>;
  }[];
  assert.deepEqual(blocks.map((b) => b.type), ["text", "image", "text"]);
  assert.equal(
    blocks[0].text,
    `==> a.txt <==\n1\thello\n\n==> pic.png <==\nimage/png, 1×1 px, ${TINY_PNG.length} B`,
  );
  assert.equal(blocks[1].source!.media_type, "image/png");
  assert.equal(blocks[1].source!.type, "base64");
  assert.equal(blocks[2].text, "==> a.txt <==\n1\thello");
  assert.deepEqual((r.structured as Structured).files[1], {
    type: "image",
    path: `${s.workspace}/pic.png`,
    mediaType: "image/png",
    width: 1,
    height: 1,
    bytes: TINY_PNG.length,
  });
});

Deno.test("004 read_files: an image over 10 MiB is refused with the limit named", async () => {
  const s = await TestSession.create();
  assert.equal(MAX_IMAGE_FILE_BYTES, 10 * 1024 * 1024);
  await s.write("huge.png", pngHeader(100, 100, MAX_IMAGE_FILE_BYTES + 1));
  const r = await s.call(ReadFiles, { files: [{ path: "huge.png" }] });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "==> huge.png <==\nError: huge.png is an image of 10.0 MB, over the 10 MiB limit of an image read_files reads. Make a smaller copy and read that.",
  );
});

const DOCUMENTS = new URL("../../fixtures/documents/", import.meta.url);
const fixture = (name: string) => Deno.readFileSync(new URL(name, DOCUMENTS));

Deno.test("004 read_files: a document over 1 MiB read without offset/limit is refused, naming the limit and the unit; with offset/limit it is read part by part", async () => {
  const s = await TestSession.create();
  await s.write("big.pdf", new Uint8Array(2 * 1024 * 1024));
  const big = await s.call(ReadFiles, { files: [{ path: "big.pdf" }] });
  assert.equal(
    text(big),
    "==> big.pdf <==\nError: big.pdf is a PDF document of 2.0 MB, over the 1 MiB limit of a document read whole; read it in pages: offset/limit (in pages, e.g. offset 1, limit 20).",
  );
  // Read in pages, it is parsed: zeros are no PDF, and that is said clearly.
  const paged = await s.call(ReadFiles, {
    files: [{ path: "big.pdf", offset: 1, limit: 5 }],
  });
  assert.equal(paged.isError, true);
  assert.match(text(paged), /^==> big\.pdf <==\nError: big\.pdf /);
});

Deno.test("004 read_files: PDF by page (offset/limit count pages), and the next offset is said", async () => {
  const s = await TestSession.create();
  await s.write("three.pdf", fixture("three_pages.pdf"));
  const r = await s.call(ReadFiles, {
    files: [{ path: "three.pdf", offset: 2, limit: 1 }],
  });
  assert.equal(
    text(r),
    "==> three.pdf <==\n[page 2]\nPage two\n[pages 2-2 of 3; call again with offset=3 for more]",
  );
});

Deno.test("004 read_files: CSV by row, the header row with every page (a quoted comma stays in its field)", async () => {
  const s = await TestSession.create();
  await s.write("quoted.csv", fixture("quoted.csv"));
  const r = await s.call(ReadFiles, {
    files: [{ path: "quoted.csv", offset: 1, limit: 1 }],
  });
  assert.equal(
    text(r),
    '==> quoted.csv <==\nheader\tname,quote,notes\n1\tAna,"Hello, world",plain\n[rows 1-1 of 3; call again with offset=2 for more]',
  );
});

Deno.test("004 read_files: PPTX by slide, DOCX with headings and lists as Markdown, an encrypted PDF a clear error", async () => {
  const s = await TestSession.create();
  await s.write("deck.pptx", fixture("two_slides.pptx"));
  await s.write("notes.docx", fixture("heading_list.docx"));
  await s.write("locked.pdf", fixture("encrypted.pdf"));
  const deck = await s.call(ReadFiles, { files: [{ path: "deck.pptx" }] });
  assert.equal(
    text(deck),
    "==> deck.pptx <==\n[slide 1]\nQuarterly review\n- Revenue up\n- Costs down\n\nNotes:\nSpeak slowly.\n[slide 2]\nNext steps\nOwner | Task\nAna | Ship it",
  );
  const notes = await s.call(ReadFiles, { files: [{ path: "notes.docx" }] });
  assert.match(
    text(notes),
    /^==> notes\.docx <==\n1\t# Release notes\n[\s\S]*\t## What changed\n[\s\S]*\t- PDF by page\n\d+\t- Slides in order\n\d+\t {2}- Notes too\n/,
  );
  const locked = await s.call(ReadFiles, { files: [{ path: "locked.pdf" }] });
  assert.equal(locked.isError, true);
  assert.equal(
    text(locked),
    "==> locked.pdf <==\nError: locked.pdf is an encrypted PDF: it needs a password, so its text cannot be read.",
  );
});

Deno.test("004 read_files: audio and video without a speech-to-text model: the error names --stt-model", async () => {
  const s = await TestSession.create();
  await s.write("talk.mp3", new Uint8Array([0x49, 0x44, 0x33, 3, 0]));
  const r = await s.call(ReadFiles, { files: [{ path: "talk.mp3" }] });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "==> talk.mp3 <==\nError: talk.mp3 is audio (MP3): reading it means its transcript, and no speech-to-text model is configured: start wave with --stt-model openai:NAME (e.g. openai:whisper-1, with OPENAI_API_KEY), or add --stt-base-url URL for a compatible server such as whisper.cpp's.",
  );
  assert.deepEqual((r.structured as Structured).files[0].detail, {
    type: "no_stt_model",
  });
});

Deno.test("004 read_files: a transcript is numbered lines, one a sentence, paged by offset/limit with the footer", async () => {
  const s = await TestSession.create();
  await s.write("talk.wav", new Uint8Array([1, 2, 3]));
  const asked: string[] = [];
  s.transcribe = (path) => {
    asked.push(path);
    return Promise.resolve(
      "Hello world. Is this thing on? Yes!\nA second paragraph.\n",
    );
  };
  const r = await s.call(ReadFiles, {
    files: [{ path: "talk.wav", limit: 3 }],
  });
  assert.equal(r.isError, false);
  assert.equal(
    text(r),
    "==> talk.wav <==\n[transcript of audio (WAV)]\n1\tHello world.\n2\tIs this thing on?\n3\tYes!\n[lines 1-3 of 4; call again with offset=4 for more]",
  );
  assert.deepEqual((r.structured as Structured).files[0], {
    path: `${s.workspace}/talk.wav`,
    type: "transcript",
    format: "audio (WAV)",
    totalLines: 4,
    startLine: 1,
    numLines: 3,
    nextOffset: 4,
  });
  assert.deepEqual(asked, [`${s.workspace}/talk.wav`]);
  assert.equal(s.records.get(`${s.workspace}/talk.wav`)?.whole, false);
  const rest = await s.call(ReadFiles, {
    files: [{ path: "talk.wav", offset: 4 }],
  });
  assert.equal(
    text(rest),
    "==> talk.wav <==\n[transcript of audio (WAV)]\n4\tA second paragraph.",
  );
  const whole = await s.call(ReadFiles, { files: [{ path: "talk.wav" }] });
  assert.equal(whole.isError, false);
  assert.equal(s.records.get(`${s.workspace}/talk.wav`)?.whole, true);
  const past = await s.call(ReadFiles, {
    files: [{ path: "talk.wav", offset: 9 }],
  });
  assert.equal(
    text(past),
    "==> talk.wav <==\nError: offset 9 is past the end of the transcript of talk.wav, which has 4 lines. Use an offset from 1 to 4.",
  );
  const around = await s.call(ReadFiles, {
    files: [{ path: "talk.wav", around: [2] }],
  });
  assert.equal(
    text(around),
    "==> talk.wav <==\nError: around takes line numbers of a plain text file, and talk.wav is not one: read its transcript with offset/limit (in lines).",
  );
});

Deno.test("004 read_files: one failing file does not fail the others; all failing is an error", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "x\n");
  const r = await s.call(ReadFiles, {
    files: [{ path: "missing.txt" }, { path: "a.txt" }],
  });
  assert.equal(r.isError, false);
  assert.equal(
    text(r),
    "==> missing.txt <==\nError: File does not exist: missing.txt.\n\n==> a.txt <==\n1\tx",
  );
  const dir = await s.call(ReadFiles, { files: [{ path: "." }] });
  assert.equal(dir.isError, true);
  assert.match(
    text(dir),
    /is a directory, not a file; list it with find_files/,
  );
});

Deno.test("004 read_files: a successful read records the read, whole or ranged", async () => {
  const s = await TestSession.create();
  const whole = await s.write("whole.txt", numbered(3));
  const part = await s.write("part.txt", numbered(3));
  const around = await s.write("around.txt", numbered(3));
  const pic = await s.write("pic.png", TINY_PNG);
  await s.call(ReadFiles, {
    files: [
      { path: "whole.txt" },
      { path: "part.txt", limit: 2 },
      { path: "around.txt", around: [2], context: 0 },
      { path: "pic.png" },
    ],
  });
  assert.equal(s.records.get(whole)?.whole, true);
  assert.equal(s.records.get(whole)?.reader, "read_files");
  assert.equal(typeof s.records.get(whole)?.hash, "string");
  assert.equal(s.records.get(part)?.whole, false);
  assert.equal(s.records.get(around)?.whole, false);
  assert.equal(s.records.get(pic)?.whole, true);
  // The same file whole and in part in one call: the whole read is kept.
  const both = await s.write("both.txt", numbered(3));
  await s.call(ReadFiles, {
    files: [{ path: "both.txt" }, { path: "both.txt", offset: 2 }],
  });
  assert.equal(s.records.get(both)?.whole, true);
  // A failed read records nothing.
  await touchLater(part);
  await s.call(ReadFiles, { files: [{ path: "part.txt", offset: 99 }] });
  assert.equal(s.records.get(part)?.mtimeMs! < Date.now(), true);
});

Deno.test("004 read_files: a file too large to read whole is streamed, with the same rows, footer and around", async () => {
  const s = await TestSession.create();
  s.maxReadTokens = 1_000_000;
  const line = "x".repeat(99) + "\n";
  await s.write("big.txt", line.repeat(90_000)); // 9 MB: over the whole-read size
  const r = await s.call(ReadFiles, {
    files: [{ path: "big.txt", offset: 89_999 }, {
      path: "big.txt",
      around: [2, 90_000],
      context: 1,
    }],
  });
  const x = "x".repeat(99);
  assert.equal(
    text(r),
    `==> big.txt <==\n89999\t${x}\n90000\t${x}\n\n==> big.txt <==\n1\t${x}\n2\t${x}\n3\t${x}\n...\n89999\t${x}\n90000\t${x}`,
  );
  const head = await s.call(ReadFiles, { files: [{ path: "big.txt" }] });
  assert.equal(
    text(head).split("\n").at(-1),
    "[lines 1-2048 of 90000; call again with offset=2049 for more]",
  );
  assert.equal(s.records.get(`${s.workspace}/big.txt`)?.whole, false);
});
