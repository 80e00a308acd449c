/** Spec 000 Edit, on the tool module in-process. */
import assert from "node:assert/strict";
import Edit from "../../../tools/wave/edit.ts";
import Grep from "../../../tools/wave/grep.ts";
import Read from "../../../tools/wave/read.ts";
import { TestSession, text, touchLater } from "../../_context.ts";

async function readThenEdit(
  s: TestSession,
  path: string,
  input: Record<string, unknown>,
) {
  await s.call(Read, { file_path: path });
  return await s.call(Edit, { file_path: path, ...input });
}

Deno.test("000 Edit #1: a unique old_string is replaced, indentation kept", async () => {
  const s = await TestSession.create();
  await s.write(
    "f.py",
    "def f():\n    if x:\n        return 1\n    return 2\n",
  );
  const r = await readThenEdit(s, "f.py", {
    old_string: "        return 1",
    new_string: "        return 10",
  });
  assert.equal(r.isError, undefined);
  assert.equal(
    await s.read("f.py"),
    "def f():\n    if x:\n        return 10\n    return 2\n",
  );
  assert.match(
    text(r),
    /^Edited f\.py: 1 replacement, first change at line 3\.\n--- f\.py\n\+\+\+ f\.py\n@@ -1,4 \+1,4 @@\n/,
  );
});

Deno.test("000 Edit #2: a non-unique old_string without replace_all fails with the count", async () => {
  const s = await TestSession.create();
  await s.write("dup.ts", "let a = 1;\nlet a = 1;\nlet a = 1;\n");
  const r = await readThenEdit(s, "dup.ts", {
    old_string: "let a = 1;",
    new_string: "let b = 2;",
  });
  assert.equal(r.isError, true);
  assert.match(
    text(r),
    /^Found 3 matches of old_string in dup\.ts, but replace_all is false\./,
  );
  assert.equal(await s.read("dup.ts"), "let a = 1;\nlet a = 1;\nlet a = 1;\n");
  const all = await s.call(Edit, {
    file_path: "dup.ts",
    old_string: "a = 1",
    new_string: "b = 2",
    replace_all: true,
  });
  assert.equal(all.isError, undefined);
  assert.equal((all.structured as { replacements: number }).replacements, 3);
  assert.equal(await s.read("dup.ts"), "let b = 2;\nlet b = 2;\nlet b = 2;\n");
});

Deno.test("000 Edit #3: word-level changes where removed and added line counts match", async () => {
  const s = await TestSession.create();
  await s.write("w.ts", "const total = price * count;\nreturn total;\n");
  const r = await readThenEdit(s, "w.ts", {
    old_string: "const total = price * count;",
    new_string: "const total = price * quantity;",
  });
  const structured = r.structured as {
    wordDiffs: {
      oldLine: number;
      newLine: number;
      parts: { value: string; added?: boolean; removed?: boolean }[];
    }[];
  };
  assert.deepEqual(structured.wordDiffs, [{
    oldLine: 1,
    newLine: 1,
    parts: [
      { value: "const total = price * " },
      { value: "count", removed: true },
      { value: "quantity", added: true },
      { value: ";" },
    ],
  }]);
  // Unequal counts: no word-level view for that block.
  await s.write("u.ts", "a\nb\n");
  const r2 = await readThenEdit(s, "u.ts", {
    old_string: "a\n",
    new_string: "a1\na2\n",
  });
  assert.deepEqual((r2.structured as { wordDiffs: unknown[] }).wordDiffs, []);
});

Deno.test("000 Edit #4: a CRLF file matches an LF old_string and keeps CRLF", async () => {
  const s = await TestSession.create();
  await s.write("win.txt", "first\r\nsecond\r\nthird\r\n");
  const r = await readThenEdit(s, "win.txt", {
    old_string: "first\nsecond",
    new_string: "1st\n2nd",
  });
  assert.equal(r.isError, undefined);
  assert.equal(await s.read("win.txt"), "1st\r\n2nd\r\nthird\r\n");
  assert.ok(!(r.structured as { diff: string }).diff.includes("\r"));
});

Deno.test("000 Edit #4: a large CRLF file (edited as bytes) keeps CRLF, for one-line and multi-line strings", async () => {
  const s = await TestSession.create();
  const line = "some text of a line in a large file\r\n";
  const body = line.repeat(40_000); // 1.5 MB: the byte path
  await s.write("big.txt", `${body}first\r\nsecond\r\n${body}`);
  await s.call(Read, { file_path: "big.txt", offset: 40_001, limit: 2 });
  const one = await s.call(Edit, {
    file_path: "big.txt",
    old_string: "second",
    new_string: "2nd",
  });
  assert.equal(one.isError, undefined);
  assert.equal(await s.read("big.txt"), `${body}first\r\n2nd\r\n${body}`);
  assert.equal(
    (one.structured as { diff: string }).diff,
    "--- big.txt\n+++ big.txt\n@@ -39999,7 +39999,7 @@\n" +
      " some text of a line in a large file\n".repeat(2) +
      " first\n-second\n+2nd\n" +
      " some text of a line in a large file\n".repeat(3),
  );
  const two = await s.call(Edit, {
    file_path: "big.txt",
    old_string: "first\n2nd",
    new_string: "1st\nsecond\nthird",
  });
  assert.equal(two.isError, undefined);
  assert.equal(
    await s.read("big.txt"),
    `${body}1st\r\nsecond\r\nthird\r\n${body}`,
  );
});

Deno.test("000 Edit: a mixed-ending file changes only the matched text", async () => {
  const s = await TestSession.create();
  await s.write("mixed.txt", "a\r\nb\nc\r\nd\n");
  const r = await readThenEdit(s, "mixed.txt", {
    old_string: "c\nd",
    new_string: "C\nD",
  });
  assert.equal(r.isError, undefined);
  assert.equal(await s.read("mixed.txt"), "a\r\nb\nC\r\nD\n");
});

Deno.test("000 Edit #5: a file not read in this session is refused with an instruction to Read it", async () => {
  const s = await TestSession.create();
  await s.write("unread.ts", "x\n");
  const r = await s.call(Edit, {
    file_path: "unread.ts",
    old_string: "x",
    new_string: "y",
  });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "unread.ts has not been read in this session. Call Read on it first, then edit it.",
  );
  assert.equal(await s.read("unread.ts"), "x\n");
});

Deno.test("000 edge 编辑前读取: Grep does not count as reading; Edit after Grep alone is refused", async () => {
  const s = await TestSession.create();
  await s.write("g.ts", "needle\n");
  const found = await s.call(Grep, { pattern: "needle" });
  assert.match(text(found), /g\.ts/);
  const r = await s.call(Edit, {
    file_path: "g.ts",
    old_string: "needle",
    new_string: "pin",
  });
  assert.equal(r.isError, true);
  assert.match(text(r), /has not been read in this session/);
});

Deno.test("000 Edit #6 and edge 不匹配分析: not found quotes the attempted string, cut to 200 characters", async () => {
  const s = await TestSession.create();
  await s.write("nf.ts", "const a = 1;\n");
  const short = await readThenEdit(s, "nf.ts", {
    old_string: "const b = 1;",
    new_string: "x",
  });
  assert.equal(short.isError, true);
  assert.match(
    text(short),
    /^String to replace not found in nf\.ts\.\nString: const b = 1;\n/,
  );
  const long = "q".repeat(250);
  const cut = await s.call(Edit, {
    file_path: "nf.ts",
    old_string: long,
    new_string: "x",
  });
  assert.ok(
    text(cut).includes(`String: ${"q".repeat(200)}… (50 more characters)`),
  );
  assert.ok(!text(cut).includes("q".repeat(201)));
  const ws = await s.call(Edit, {
    file_path: "nf.ts",
    old_string: "const  a =\t1;",
    new_string: "x",
  });
  assert.match(text(ws), /differs only in white space starts at line 1/);
});

Deno.test("000 Edit #7: a file touched but unchanged since a whole read is accepted", async () => {
  const s = await TestSession.create();
  const path = await s.write("t.ts", "keep\n");
  await s.call(Read, { file_path: "t.ts" });
  await touchLater(path);
  const r = await s.call(Edit, {
    file_path: "t.ts",
    old_string: "keep",
    new_string: "kept",
  });
  assert.equal(r.isError, undefined, text(r));
  assert.equal(await s.read("t.ts"), "kept\n");
});

Deno.test("000 Edit #8: a file whose content changed since the read is refused, asking for a new Read", async () => {
  const s = await TestSession.create();
  const path = await s.write("c.ts", "one\n");
  await s.call(Read, { file_path: "c.ts" });
  await Deno.writeTextFile(path, "one\ntwo\n");
  await touchLater(path);
  const r = await s.call(Edit, {
    file_path: "c.ts",
    old_string: "one",
    new_string: "1",
  });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "c.ts has changed on disk since it was last read (by the user, a formatter or another process). Call Read on it again, then edit it.",
  );
  assert.equal(await s.read("c.ts"), "one\ntwo\n");
  // A fresh Read makes it editable again.
  await s.call(Read, { file_path: "c.ts" });
  assert.equal(
    (await s.call(Edit, {
      file_path: "c.ts",
      old_string: "one",
      new_string: "1",
    })).isError,
    undefined,
  );
});

Deno.test("000 Edit #9: after a partial read a newer mtime is refused even if the content is the same", async () => {
  const s = await TestSession.create();
  const path = await s.write("p.ts", "a\nb\nc\n");
  await s.call(Read, { file_path: "p.ts", offset: 1, limit: 2 });
  await touchLater(path);
  const r = await s.call(Edit, {
    file_path: "p.ts",
    old_string: "b",
    new_string: "B",
  });
  assert.equal(r.isError, true);
  assert.match(
    text(r),
    /the last read was partial, so its content could not be compared/,
  );
  // Without the touch, a partial read is enough to edit.
  await s.call(Read, { file_path: "p.ts", offset: 1, limit: 2 });
  assert.equal(
    (await s.call(Edit, {
      file_path: "p.ts",
      old_string: "b",
      new_string: "B",
    })).isError,
    undefined,
  );
});

Deno.test("000 Edit: after a successful Edit the read-state holds the new content (edit again, no Read)", async () => {
  const s = await TestSession.create();
  const path = await s.write("twice.ts", "a1\n");
  await readThenEdit(s, "twice.ts", { old_string: "a1", new_string: "a2" });
  const record = s.records.get(path)!;
  assert.equal(record.whole, true);
  assert.equal(record.size, 3);
  const second = await s.call(Edit, {
    file_path: "twice.ts",
    old_string: "a2",
    new_string: "a3",
  });
  assert.equal(second.isError, undefined);
  assert.equal(await s.read("twice.ts"), "a3\n");
});

Deno.test("000 Edit: BOM, trailing newline (or its absence) and file mode are kept", async () => {
  const s = await TestSession.create();
  const path = await s.write("bom.ts", "\uFEFFexport const v = 1;");
  await Deno.chmod(path, 0o751);
  const r = await readThenEdit(s, "bom.ts", {
    old_string: "v = 1",
    new_string: "v = 2",
  });
  assert.equal(r.isError, undefined);
  const bytes = await Deno.readFile(path);
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(new TextDecoder().decode(bytes.slice(3)), "export const v = 2;");
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o751);
});

Deno.test("000 Edit: old_string equal to new_string fails", async () => {
  const s = await TestSession.create();
  await s.write("same.ts", "x\n");
  const r = await readThenEdit(s, "same.ts", {
    old_string: "x",
    new_string: "x",
  });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "old_string and new_string are the same; there is nothing to change.",
  );
});

Deno.test("000 edge 最小 old_string: the description steers to a small unique old_string", () => {
  assert.match(
    Edit.description,
    /smallest old_string that is clearly unique: usually 2-4 adjacent lines/,
  );
});

Deno.test(
  "000 edge 文件权限: a file that cannot be written fails cleanly and keeps its bytes",
  {
    ignore: Deno.build.os !== "linux",
  },
  async () => {
    const s = await TestSession.create();
    const path = await s.write("locked.ts", "const locked = true;\n");
    await s.call(Read, { file_path: "locked.ts" });
    // chmod does not stop root; an immutable directory does.
    const dir = s.workspace;
    let restore: () => Promise<unknown>;
    if (Deno.uid() === 0) {
      const lock = await new Deno.Command("chattr", {
        args: ["+i", dir],
        stderr: "null",
      }).output().catch(() => null);
      if (!lock?.success) {
        return console.error(
          "chattr unavailable: covered by the atomic-writer fault tests",
        );
      }
      restore = () =>
        new Deno.Command("chattr", { args: ["-i", dir] }).output();
    } else {
      await Deno.chmod(dir, 0o555);
      restore = () => Deno.chmod(dir, 0o755);
    }
    try {
      const r = await s.call(Edit, {
        file_path: "locked.ts",
        old_string: "true",
        new_string: "false",
      });
      assert.equal(r.isError, true);
      assert.match(text(r), /^Could not write locked\.ts: /);
      assert.equal(await Deno.readTextFile(path), "const locked = true;\n");
      const names = [...Deno.readDirSync(dir)].map((e) => e.name);
      assert.deepEqual(names, ["locked.ts"]);
    } finally {
      await restore();
    }
  },
);

Deno.test("000 atomic #3: replacing a file atomically keeps read-before-write and staleness as they were", async () => {
  const s = await TestSession.create();
  // A small file, and one large enough to be freed in the background.
  for (
    const [name, filler] of [["small.ts", ""], [
      "large.ts",
      "x".repeat(1 << 20) + "\n",
    ]]
  ) {
    const path = await s.write(name, `${filler}a = 1\n`);
    await s.call(Read, { file_path: name, limit: 1_000_000 });
    const edit = (from: string, to: string) =>
      s.call(Edit, { file_path: name, old_string: from, new_string: to });
    assert.equal((await edit("a = 1", "a = 2")).isError, undefined, name);
    // The replaced file is a new one on disk; the session's record follows it.
    assert.equal((await edit("a = 2", "a = 3")).isError, undefined, name);
    // Touched, same content: still fresh.
    await touchLater(path, 5);
    assert.equal((await edit("a = 3", "a = 4")).isError, undefined, name);
    // Changed by someone else: stale, and nothing is written.
    await Deno.writeTextFile(path, `${filler}a = 100\n`);
    await touchLater(path, 10);
    const stale = await edit("a = 100", "a = 5");
    assert.equal(stale.isError, true, name);
    assert.equal((stale.structured as { type: string }).type, "stale");
    assert.equal(await s.read(name), `${filler}a = 100\n`);
  }
});

Deno.test("000 Edit: replace_all over thousands of lines writes every replacement, and says the diff is too large instead of computing it", async () => {
  const s = await TestSession.create();
  const body = "value = old\n".repeat(20_000);
  await s.write("many.txt", body);
  const r = await readThenEdit(s, "many.txt", {
    old_string: "old",
    new_string: "new",
    replace_all: true,
  });
  assert.equal(r.isError, undefined);
  assert.equal(await s.read("many.txt"), "value = new\n".repeat(20_000));
  assert.equal(
    text(r),
    "Edited many.txt: 20000 replacements, first change at line 1.\n(No diff: the changes span 20000 lines, too many to diff. Read the file to check them.)\n",
  );
  const st = r.structured as { diffComplete: boolean; linesRemoved: number };
  assert.equal(st.diffComplete, false);
  assert.equal(st.linesRemoved, 20_000);
});
