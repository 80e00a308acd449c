/** The reader's guards: one directory/special-file check and one UTF-8-only check, in each dialect's words. */
import assert from "node:assert/strict";
import type { FileKind } from "../../../tools/_core/file_type.ts";
import {
  isUtf8Text,
  readLineWindow,
  requireUtf8Text,
  statFile,
  statForRead,
} from "../../../tools/_core/reader.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { tempDir } from "../../_temp.ts";

function refusal(run: () => unknown): [string, unknown] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ToolError);
    return [error.message, error.structured];
  }
  throw new Error("not refused");
}

async function refusalOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof ToolError);
    return error.message;
  }
  throw new Error("not refused");
}

const WORDS = {
  binary: "x changes text files only.",
  encoding: "x changes UTF-8 text files only.",
};

Deno.test("reader: UTF-8 text and notebooks pass; binaries, images and UTF-16 are refused in the tool's words", () => {
  const utf8: FileKind = { kind: "text", encoding: "utf-8" };
  const notebook: FileKind = { kind: "notebook" };
  for (const kind of [utf8, notebook]) {
    assert.equal(isUtf8Text(kind), true);
    requireUtf8Text(kind, "f", WORDS);
  }
  assert.deepEqual(
    refusal(() =>
      requireUtf8Text({ kind: "binary", name: "PDF document" }, "d.pdf", WORDS)
    ),
    [
      "Cannot read d.pdf: it is a binary file (PDF document). x changes text files only.",
      { type: "binary", format: "PDF document" },
    ],
  );
  assert.deepEqual(
    refusal(() =>
      requireUtf8Text({ kind: "image", mediaType: "image/png" }, "i.png", WORDS)
    ),
    [
      "Cannot read i.png: it is a binary file (image/png). x changes text files only.",
      { type: "binary", format: "image/png" },
    ],
  );
  const utf16: FileKind = { kind: "text", encoding: "utf-16le" };
  assert.equal(isUtf8Text(utf16), false);
  assert.deepEqual(
    refusal(() => requireUtf8Text(utf16, "w.txt", WORDS)),
    [
      "w.txt is UTF-16LE text; x changes UTF-8 text files only.",
      { type: "unsupported_encoding" },
    ],
  );
});

Deno.test("reader: statFile is null for nothing, says the dialect's words for a directory (or lets it through), refuses a FIFO", async () => {
  const dir = await tempDir();
  await Deno.mkdir(`${dir}/sub`);
  assert.equal(await statFile(`${dir}/none`, "none", "a dir"), null);
  assert.equal(
    await refusalOf(() => statFile(`${dir}/sub`, "sub", "sub is a dir!")),
    "sub is a dir!",
  );
  assert.equal((await statFile(`${dir}/sub`, "sub"))?.isDirectory, true);
  const mkfifo = await new Deno.Command("mkfifo", {
    args: [`${dir}/pipe`],
  }).output();
  assert.equal(mkfifo.code, 0);
  assert.match(
    await refusalOf(() => statFile(`${dir}/pipe`, "pipe")),
    /^pipe is a named pipe \(FIFO\), not a regular file/,
  );
  await Deno.writeTextFile(`${dir}/notes.md`, "");
  assert.equal(
    await refusalOf(() =>
      statForRead(`${dir}/note.md`, { workspace: dir }, "note.md", "a dir")
    ),
    "File does not exist: note.md. Did you mean notes.md?",
  );
});

Deno.test("reader: readLineWindow keeps a window of lines, each cut to its head, across chunk boundaries, CRLF and a BOM", async () => {
  const dir = await tempDir();
  const path = `${dir}/lines.txt`;
  // Line 2 spans four 256 KiB read chunks; its \r ends the fourth, its \n starts the fifth.
  const long = "é".repeat(300_000) + "x".repeat(448_565);
  await Deno.writeTextFile(
    path,
    `\uFEFFfirst\r\n${long}\r\nthird\nfourth`,
  );
  assert.deepEqual(await readLineWindow(path, 0, 10, 8), {
    lines: ["first", "éééééééé", "third", "fourth"],
    omitted: [0, long.length - 8, 0, 0],
    totalLines: 4,
  });
  assert.deepEqual(await readLineWindow(path, 2, 1), {
    lines: ["third"],
    omitted: [0],
    totalLines: 4,
  });
  const whole = await readLineWindow(path, 1, 1);
  assert.equal(whole.lines[0], long);
  assert.deepEqual(whole.omitted, [0]);
  // A line exactly as long as the cap is whole; a lone \r ends no line.
  await Deno.writeTextFile(path, "abc\r\nab\rc\n\r");
  assert.deepEqual(await readLineWindow(path, 0, 5, 3), {
    lines: ["abc", "ab\r", ""],
    omitted: [0, 1, 0],
    totalLines: 3,
  });
  await Deno.remove(dir, { recursive: true });
});
