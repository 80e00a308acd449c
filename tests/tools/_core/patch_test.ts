/** Multi-target patches (tools/_core/patch.ts): anchors found before changes, rejections, quotes, CRLF, and the windowed diff. */

import assert from "node:assert/strict";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { diffTexts } from "../../../tools/_core/diff.ts";
import {
  applyPatch,
  applyPatchToBytes,
  bytePatchDiff,
  foldQuotes,
  inQuoteStyle,
  patchDiff,
} from "../../../tools/_core/patch.ts";

const t = (oldString: string, newString: string, replaceAll = false) => ({
  oldString,
  newString,
  replaceAll,
});

function rejects(fn: () => unknown, message: string, type: string) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ToolError);
    assert.equal(e.message, message);
    assert.equal((e.structured as { type: string }).type, type);
    return true;
  });
}

Deno.test("patch: anchors are found in the original, whatever earlier targets add", () => {
  const out = applyPatch(
    "a\nb\nc\n",
    [t("a\n", "a\nX\n"), t("b\n", "B\n")],
    "f",
  );
  assert.equal(out.text, "a\nX\nB\nc\n");
  assert.deepEqual(out.changes.map((c) => [c.target, c.start, c.end]), [[
    0,
    0,
    2,
  ], [1, 2, 4]]);
});

Deno.test("patch: the rejections say what is wrong and that nothing was written", () => {
  rejects(
    () => applyPatch("x y", [t("", "a")], "f"),
    'targets[0].old_string is empty: give the exact text to replace (to insert, repeat the text before the insertion point at the start of new_string; to replace the whole file, use mode "write").',
    "empty_anchor",
  );
  rejects(
    () => applyPatch("x y", [t("x", "x")], "f"),
    "targets[0]: old_string and new_string are the same; there is nothing to change.",
    "no_change",
  );
  rejects(
    () => applyPatch("x y", [t("q", "z")], "f"),
    'targets[0].old_string was not found in f: "q". Copy it exactly from a read_files read (without the row number and tab); nothing was written.',
    "not_found",
  );
  rejects(
    () => applyPatch("x\nx\n", [t("x", "z")], "f"),
    "targets[0].old_string occurs 2 times in f (first at line 1): add surrounding lines to make it unique, or set replace_all to change every one; nothing was written.",
    "ambiguous",
  );
  rejects(
    () => applyPatch("abc", [t("bc", "1"), t("ab", "2")], "f"),
    "targets[0] and targets[1] cover the same region of f (line 1); nothing was written. Give each region one target.",
    "overlap",
  );
  rejects(
    () => applyPatch("abc", [t("a", "ac"), t("c", "d")], "f"),
    "targets[1].old_string occurs inside targets[0].new_string. Every anchor is found in the file as it is before the call, so a target cannot edit what an earlier target writes; nothing was written. Merge the two targets into one.",
    "nested_anchor",
  );
});

Deno.test("patch: curly and straight quotes match each other; the replacement takes the file's style", () => {
  assert.equal(foldQuotes("\u201Ca\u201D \u2018b\u2019"), "\"a\" 'b'");
  assert.equal(
    inQuoteStyle('say "hi" it\'s', "\u201Cx\u201D it\u2019s"),
    "say \u201Chi\u201D it\u2019s",
  );
  assert.equal(inQuoteStyle("\u201Chi\u201D", '"x"'), '"hi"');
  const out = applyPatch("a \u201Cq\u201D b\n", [t('"q"', '"r"')], "f");
  assert.equal(out.text, "a \u201Cr\u201D b\n");
});

Deno.test("patch: a CRLF file is matched with \\n for \\r\\n and keeps its CRLFs", () => {
  const out = applyPatch("one\r\ntwo\r\n", [t("one\ntwo", "1\n2")], "f");
  assert.equal(out.text, "1\r\n2\r\n");
});

Deno.test("patch: the windowed diff equals the whole-text diff, line numbers included", () => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);
  const original = lines.join("\n") + "\n";
  const patched = applyPatch(original, [
    t("line 10\n", "line 10\nadded A\nadded B\n"),
    t("line 100\n", ""),
    t("line 150\n", "CHANGED 150\n"),
  ], "f");
  const windowed = patchDiff("f", original, patched);
  const whole = diffTexts("f", original, patched.text);
  assert.deepEqual(windowed.hunks, whole.hunks);
  assert.equal(windowed.firstChangedLine, 11);
  assert.equal(windowed.added, whole.added);
  assert.equal(windowed.removed, whole.removed);
});

Deno.test("patch: the byte path gives the text path's content and diff, and defers to it when an anchor needs it", () => {
  const lines = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`);
  const original = lines.join("\n") + "\n";
  const bytes = new TextEncoder().encode(original);
  const targets = [
    t("line 10\n", "line 10\nadded A\n"),
    t("line 12\n", ""),
    t("line 200\n", "CHANGED\n"),
    t("line 299\n", "x\ny\n"),
  ];
  const fast = applyPatchToBytes(bytes, targets)!;
  const slow = applyPatch(original, targets, "f");
  assert.equal(new TextDecoder().decode(concat(fast.chunks)), slow.text);
  assert.deepEqual(
    bytePatchDiff("f", bytes, fast).hunks,
    patchDiff("f", original, slow).hunks,
  );
  assert.equal(applyPatchToBytes(bytes, [t("nope", "x")]), undefined);
  assert.equal(applyPatchToBytes(bytes, [t("line 1", "x")]), undefined); // line 1, line 10 …
  const crlf = new TextEncoder().encode("a\r\nb\r\n");
  assert.equal(
    new TextDecoder().decode(
      concat(applyPatchToBytes(crlf, [t("a\nb", "c\nd")])!.chunks),
    ),
    "c\r\nd\r\n",
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
