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

Deno.test("patch: on a large file (many search windows), the byte path gives the text path's content and diff: CRLF, a BOM, non-ASCII text, replace_all, anchors at the start and the end", () => {
  const enc = new TextEncoder();
  const dec = new TextDecoder("utf-8", { ignoreBOM: true });
  for (const eol of ["\n", "\r\n"]) {
    const lines = Array.from(
      { length: 150_000 },
      (_, i) => i % 7 === 0 ? `  naïve → ${i} “quoted”` : `line ${i} 日本`,
    );
    lines[0] = "\uFEFFfirst line";
    lines[149_999] = "last line";
    const original = lines.join(eol);
    const bytes = enc.encode(original);
    assert.ok(bytes.length > 2 * (1 << 20));
    const targets = [
      t("\uFEFFfirst line\n", "\uFEFFFIRST\nline\n"),
      t("line 12345 日本\nline 12346", "changed 12345\nand 12346"),
      t("naïve → 700 “quoted”", "naïve → 700, renamed"),
      t("line 40001 日本\n", ""),
      t("last line", "the end\n"),
      { ...t("line 50002 日本\nline 50003", "X\nY"), replaceAll: true },
    ];
    const fast = applyPatchToBytes(bytes, targets)!;
    assert.ok(fast, `byte path on ${JSON.stringify(eol)}`);
    const slow = applyPatch(original, targets, "f");
    assert.equal(dec.decode(concat(fast.chunks)), slow.text);
    assert.deepEqual(
      fast.changes.map((c) => c.target),
      slow.changes.map((c) => c.target),
    );
    const windowed = bytePatchDiff("f", bytes, fast);
    const text = patchDiff("f", original, slow);
    assert.deepEqual(windowed, text);
    assert.equal(windowed.firstChangedLine, 1);
    assert.deepEqual(
      windowed.unified.split("\n").filter((l) => l.startsWith("@@")),
      [
        "@@ -1,4 +1,5 @@",
        "@@ -698,7 +699,7 @@",
        "@@ -12343,8 +12344,8 @@",
        "@@ -39999,7 +40000,6 @@",
        "@@ -50000,8 +50000,8 @@",
        "@@ -149997,4 +149997,4 @@",
      ],
    );
    if (eol === "\r\n") {
      // Every line break written is CRLF, the new ones included.
      const written = dec.decode(concat(fast.chunks));
      assert.ok(!/(^|[^\r])\n/.test(written));
      assert.ok(written.endsWith("the end\r\n"));
    }
  }
  // Mixed line breaks (CRLF first, a bare LF later): not a CRLF file, as
  // for the text path, so an anchor with \n does not match a \r\n.
  const mixed = enc.encode("a\r\nb\r\n" + "x\r\n".repeat(40_000) + "c\nd\n");
  const text = dec.decode(mixed);
  assert.equal(applyPatchToBytes(mixed, [t("a\nb", "z")]), undefined);
  assert.throws(() => applyPatch(text, [t("a\nb", "z")], "f"), /not found/);
  const both = [t("c\nd", "e\nf"), t("a\r\nb", "y")];
  assert.equal(
    dec.decode(concat(applyPatchToBytes(mixed, both)!.chunks)),
    applyPatch(text, both, "f").text,
  );
});
