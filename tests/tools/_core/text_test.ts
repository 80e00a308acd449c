import assert from "node:assert/strict";
import {
  cutLine,
  editDistance,
  estimateTokens,
  layoutOf,
  numberLine,
  plural,
  splitLines,
} from "../../../tools/_core/text.ts";

Deno.test("text: lines, layout, numbering", () => {
  assert.deepEqual(splitLines("a\r\nb\nc"), ["a", "b", "c"]);
  assert.deepEqual(splitLines("a\n"), ["a"]);
  assert.deepEqual(splitLines(""), []);
  assert.deepEqual(splitLines("\n"), [""]);
  assert.deepEqual(layoutOf("\uFEFFa\r\nb\r\n"), {
    bom: true,
    eol: "\r\n",
    mixed: false,
  });
  assert.deepEqual(layoutOf("a\r\nb\n"), {
    bom: false,
    eol: "\n",
    mixed: true,
  });
  assert.equal(numberLine(7, "x"), "     7\tx");
  assert.equal(numberLine(1234567, "x"), "1234567\tx");
});

Deno.test("text: cutting, tokens, distance", () => {
  assert.deepEqual(cutLine("abcdef", 4), {
    text: "abcd… [line cut: 2 more characters]",
    cut: true,
  });
  assert.deepEqual(cutLine("abc", 4), { text: "abc", cut: false });
  assert.equal(estimateTokens("abcdefgh"), 2);
  assert.equal(estimateTokens("日本語"), 3);
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("abc", "abcdefgh", 2), 3);
});

Deno.test("plural: one noun for 1, the plural for every other count", () => {
  assert.equal(plural(1, "line"), "1 line");
  assert.equal(plural(0, "line"), "0 lines");
  assert.equal(plural(2, "match", "matches"), "2 matches");
  assert.equal(plural(1, "more line", "more lines"), "1 more line");
});
