import assert from "node:assert/strict";
import {
  applyReplacement,
  applyReplacementToBytes,
  countOccurrences,
  nearMatchLine,
} from "../../../tools/_core/matcher.ts";
import { diffable, diffBytes } from "../../../tools/_core/diff.ts";
import { applyHunks, linesOf } from "./_diff_check.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";

const apply = (
  text: string,
  oldString: string,
  newString: string,
  replaceAll = false,
) => applyReplacement(text, { oldString, newString, replaceAll }, "f");

Deno.test("matcher: exact replacement and replace_all", () => {
  assert.deepEqual(apply("a b a", "b", "c"), { text: "a c a", count: 1 });
  assert.deepEqual(apply("a b a", "a", "x", true), { text: "x b x", count: 2 });
  assert.throws(() => apply("a b a", "a", "x"), /Found 2 matches/);
  assert.throws(() => apply("a", "z", "x"), ToolError);
});

Deno.test("matcher: replacement text is literal ($& and $1 are not patterns)", () => {
  assert.equal(apply("price", "price", "$&$1$$").text, "$&$1$$");
  assert.equal(apply("p p", "p", "$&", true).text, "$& $&");
});

Deno.test("matcher: CRLF files match LF strings and keep CRLF; CRLF in new_string on an LF file becomes LF", () => {
  assert.equal(
    apply("a\r\nb\r\nc\r\n", "a\nb", "x\ny\nz").text,
    "x\r\ny\r\nz\r\nc\r\n",
  );
  assert.equal(apply("a\nb\n", "a\r\nb", "x\r\ny").text, "x\ny\n");
  assert.equal(
    apply("a\r\nb\r\nc\r\nb\r\n", "b", "B", true).text,
    "a\r\nB\r\nc\r\nB\r\n",
  );
});

Deno.test("matcher: BOM is kept and never part of a match", () => {
  assert.equal(
    apply("\uFEFFhead\r\nbody\r\n", "head", "HEAD").text,
    "\uFEFFHEAD\r\nbody\r\n",
  );
});

Deno.test("matcher: helpers", () => {
  assert.equal(countOccurrences("aaaa", "aa"), 2);
  assert.equal(countOccurrences("abc", ""), 0);
  assert.equal(nearMatchLine("x\n  foo   bar\n", "foo bar"), 2);
  assert.equal(nearMatchLine("x\n", "nothing here"), undefined);
});

Deno.test("matcher: the byte path gives exactly the text path's bytes, and a correct diff (random cases)", () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const words = [
    "let",
    "x",
    "é",
    "日本",
    " ",
    "\n",
    "\r\n",
    "\r",
    "=",
    "1",
    ";",
    "\uFEFF".slice(0, 0),
    "ab",
  ];
  const enc = new TextEncoder();
  let tried = 0;
  for (let round = 0; round < 2000 && tried < 400; round++) {
    const text = (rand(5) === 0 ? "\uFEFF" : "") +
      Array.from({ length: 5 + rand(60) }, () => words[rand(words.length)])
        .join("");
    const body = text.replace(/^\uFEFF/, "");
    if (body.length < 3) continue;
    const at = rand(body.length - 2);
    const oldString = body.slice(
      at,
      at + 1 + rand(Math.min(8, body.length - at - 1)),
    );
    const newString = ["", "Z", "new\nline", "é", "crlf\r\nline"][rand(5)];
    const replaceAll = rand(2) === 0;
    const bytes = enc.encode(text);
    const fast = applyReplacementToBytes(bytes, {
      oldString,
      newString,
      replaceAll,
    });
    let slow: { text: string; count: number } | null = null;
    try {
      slow = applyReplacement(text, { oldString, newString, replaceAll }, "f");
    } catch {
      slow = null;
    }
    const label = JSON.stringify({ text, oldString, newString, replaceAll });
    if (slow === null) {
      assert.equal(fast, null, `fast path should decline: ${label}`);
      continue;
    }
    if (fast === null) continue; // declined (e.g. old equals new); the text path is then used
    tried++;
    assert.deepEqual(concat(fast.chunks), enc.encode(slow.text), label);
    assert.equal(fast.count, slow.count, label);
    const d = diffBytes("f", bytes, fast.chunks, fast.change);
    assert.deepEqual(
      applyHunks(diffable(text), d.hunks),
      linesOf(diffable(slow.text)),
      label,
    );
  }
  assert.ok(tried > 100, `only ${tried} cases exercised the byte path`);
});

Deno.test("matcher: the byte path declines line breaks in files with a CR", () => {
  const bytes = new TextEncoder().encode("a\r\nb\r\n");
  for (
    const [oldString, newString] of [["a\nb", "c"], ["a", "c\nd"], ["a\r", "c"]]
  ) {
    assert.equal(
      applyReplacementToBytes(bytes, { oldString, newString }),
      null,
      JSON.stringify({ oldString, newString }),
    );
  }
  // Without line breaks the file's endings do not matter: the bytes path serves it.
  const fast = applyReplacementToBytes(bytes, {
    oldString: "b",
    newString: "c",
  });
  assert.deepEqual(
    concat(fast!.chunks),
    new TextEncoder().encode("a\r\nc\r\n"),
  );
});

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
