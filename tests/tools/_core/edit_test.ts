/** The shared edit pipeline (tools/_core/edit.ts): both paths, CRLF, BOM, errors, the diff. */
import assert from "node:assert/strict";
import { editBytes, editedText } from "../../../tools/_core/edit.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { ignoreBOM: true });
const joined = (content: Uint8Array | Uint8Array[]) =>
  dec.decode(
    content instanceof Uint8Array
      ? content
      : new Uint8Array(content.flatMap((c) => [...c])),
  );

Deno.test("edit: a one-line change of an LF file takes the byte path, and its diff is the whole text's", () => {
  const edited = editBytes(enc.encode("a\nb\nc\n"), {
    oldString: "b",
    newString: "B",
  }, "f.txt");
  assert.ok(Array.isArray(edited.content), "chunks: the byte path");
  assert.equal(joined(edited.content), "a\nB\nc\n");
  assert.equal(edited.count, 1);
  assert.equal(
    edited.diff().unified,
    "--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
  );
  assert.equal(edited.diff().firstChangedLine, 2);
  assert.equal(edited.diff(), edited.diff(), "the diff is made once");
});

Deno.test("edit: a multi-line string in a CRLF file takes the text path and keeps CRLF", () => {
  const edited = editBytes(enc.encode("a\r\nb\r\nc\r\n"), {
    oldString: "a\nb",
    newString: "x\ny\nz",
  }, "f.txt");
  assert.ok(edited.content instanceof Uint8Array, "bytes: the text path");
  assert.equal(joined(edited.content), "x\r\ny\r\nz\r\nc\r\n");
  assert.equal(
    edited.diff().unified,
    "--- f.txt\n+++ f.txt\n@@ -1,3 +1,4 @@\n-a\n-b\n+x\n+y\n+z\n c\n",
  );
});

Deno.test("edit: a one-line string in a CRLF file takes the byte path and leaves every CRLF", () => {
  const edited = editBytes(enc.encode("a\r\nb\r\n"), {
    oldString: "b",
    newString: "B",
  }, "f.txt");
  assert.ok(Array.isArray(edited.content));
  assert.equal(joined(edited.content), "a\r\nB\r\n");
  assert.equal(
    edited.diff().unified,
    "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n",
  );
});

Deno.test("edit: a BOM is kept, never matched, and not in the diff", () => {
  for (const newline of ["\n", "\r\n"]) {
    const file = `\uFEFFhead${newline}body${newline}`;
    const edited = editBytes(enc.encode(file), {
      oldString: "head\nbody",
      newString: "HEAD\nBODY",
    }, "f.txt");
    const bytes = enc.encode(joined(edited.content));
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(
      joined(edited.content),
      `\uFEFFHEAD${newline}BODY${newline}`,
    );
    assert.equal(
      edited.diff().unified,
      "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n-head\n-body\n+HEAD\n+BODY\n",
    );
  }
});

Deno.test("edit: replace_all counts every occurrence, by either path", () => {
  const lf = editBytes(enc.encode("x y x\nx\n"), {
    oldString: "x",
    newString: "z",
    replaceAll: true,
  }, "f");
  assert.deepEqual([joined(lf.content), lf.count], ["z y z\nz\n", 3]);
  const crlf = editBytes(enc.encode("x\r\nx\r\n"), {
    oldString: "x\nx",
    newString: "y\ny",
    replaceAll: true,
  }, "f");
  assert.deepEqual([joined(crlf.content), crlf.count], ["y\r\ny\r\n", 1]);
});

Deno.test("edit: a 10 MB file is edited as bytes, with a windowed diff at the right line", () => {
  const line = "0123456789".repeat(9) + "\n"; // 91 bytes
  const lines = Math.ceil(10_000_000 / line.length);
  const target = 70_000;
  const text = line.repeat(target - 1) + "needle\n" +
    line.repeat(lines - target);
  const edited = editBytes(enc.encode(text), {
    oldString: "needle",
    newString: "pin",
  }, "big.txt");
  assert.ok(Array.isArray(edited.content));
  assert.equal(edited.diff().firstChangedLine, target);
  assert.deepEqual(edited.diff().hunks, [{
    oldStart: target - 3,
    oldLines: 7,
    newStart: target - 3,
    newLines: 7,
    lines: [
      ` ${line.slice(0, -1)}`,
      ` ${line.slice(0, -1)}`,
      ` ${line.slice(0, -1)}`,
      "-needle",
      "+pin",
      ` ${line.slice(0, -1)}`,
      ` ${line.slice(0, -1)}`,
      ` ${line.slice(0, -1)}`,
    ],
  }]);
  assert.equal(
    (edited.content as Uint8Array[]).reduce((n, c) => n + c.length, 0),
    text.length - 3,
  );
});

Deno.test("edit: none found, several without replace_all, and no change are ToolErrors with their types", () => {
  const bytes = enc.encode("a a\n");
  const typeOf = (oldString: string, newString: string) => {
    try {
      editBytes(bytes, { oldString, newString }, "f.txt");
    } catch (error) {
      assert.ok(error instanceof ToolError);
      return (error.structured as { type?: string }).type;
    }
    return "no error";
  };
  assert.equal(typeOf("zz", "y"), "not_found");
  assert.equal(typeOf("a", "b"), "not_unique");
  assert.equal(typeOf("a", "a"), "no_change");
});

Deno.test("edit: editedText writes UTF-8 and diffs the two texts", () => {
  const edited = editedText("f.txt", "one\ntwo\n", "one\n2\n", 1);
  assert.equal(joined(edited.content), "one\n2\n");
  assert.equal(edited.count, 1);
  assert.equal(
    edited.diff().unified,
    "--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
  );
});
