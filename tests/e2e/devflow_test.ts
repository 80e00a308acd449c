/**
 * End-to-end: the `devflow` toolset (spec 002), every behaviour line of
 * DevFlow's manual, the tools it lists as missing, and its quick-reference
 * recipes done with them, through `call_tool`.
 */

import assert from "node:assert/strict";
import { type WaveProcess, withWave } from "../_wave.ts";

const devflow = (
  fn: (wave: WaveProcess) => Promise<void>,
  args: string[] = [],
) => withWave({ args: ["--toolset", "devflow", ...args] }, fn);

const thirty =
  Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

Deno.test("002: the devflow toolset has the four documented tools and every missing one", () =>
  devflow((wave) => {
    assert.deepEqual(wave.messages[0].tools, [
      "read_file",
      "write_file",
      "list_directory",
      "run_command",
      "search_in_file",
      "patch_file",
      "file_info",
      "append_file",
      "search_files",
      "diff_file",
      "restore_file",
    ]);
    return Promise.resolve();
  }));

Deno.test("002 read_file 行为规则: offset is 0-based; lines and size are always the whole file's", () =>
  devflow(async (wave) => {
    wave.put("t.txt", thirty);
    const first = await wave.callTool("read_file", {
      path: "t.txt",
      offset: 0,
      limit: 1,
    });
    assert.deepEqual(first.structured, {
      content: "line 1\n",
      lines: 30,
      size: thirty.length,
      path: "t.txt",
    });
    const eleventh = await wave.callTool("read_file", {
      path: "t.txt",
      offset: 10,
      limit: 1,
    });
    assert.equal(eleventh.structured.content, "line 11\n");
    assert.equal(eleventh.structured.lines, 30);
    assert.equal(eleventh.structured.size, thirty.length);
    const whole = await wave.callTool("read_file", { path: "t.txt" });
    assert.equal(whole.structured.content, thirty);
  }));

Deno.test("002 read_file 行为规则: offset past the end → empty content, no error; limit past the end → to the end", () =>
  devflow(async (wave) => {
    wave.put("t.txt", thirty);
    const past = await wave.callTool("read_file", {
      path: "t.txt",
      offset: 100,
    });
    assert.equal(past.is_error, false);
    assert.deepEqual(past.structured, {
      content: "",
      lines: 30,
      size: thirty.length,
      path: "t.txt",
    });
    const tail = await wave.callTool("read_file", {
      path: "t.txt",
      offset: 28,
      limit: 50,
    });
    assert.equal(tail.is_error, false);
    assert.equal(tail.structured.content, "line 29\nline 30\n");
  }));

Deno.test('002 read_file 行为规则: empty file → {content: "", lines: 0, size: 0}; missing → os error 2', () =>
  devflow(async (wave) => {
    wave.put("empty.txt", "");
    const empty = await wave.callTool("read_file", { path: "empty.txt" });
    assert.deepEqual(empty.structured, {
      content: "",
      lines: 0,
      size: 0,
      path: "empty.txt",
    });
    const missing = await wave.callTool("read_file", { path: "nope.txt" });
    assert.equal(missing.is_error, true);
    assert.match(missing.content, /\(os error 2\)$/);
  }));

Deno.test('002 read_file 行为规则: a non-UTF-8 file → {binary: true, content: null, error: "文件非 UTF-8 文本"}', () =>
  devflow(async (wave) => {
    wave.put(
      "img.png",
      new Uint8Array([
        0x89,
        0x50,
        0x4e,
        0x47,
        0x0d,
        0x0a,
        0x1a,
        0x0a,
        0,
        0,
        0,
        13,
      ]),
    );
    wave.put("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    for (const path of ["img.png", "latin1.txt"]) {
      const r = await wave.callTool("read_file", { path });
      assert.equal(r.structured.binary, true, path);
      assert.equal(r.structured.content, null);
      assert.equal(r.structured.error, "文件非 UTF-8 文本");
    }
  }));

Deno.test("002 read_file: / and \\ both separate; outside the project is blocked", () =>
  devflow(async (wave) => {
    wave.put("src/deep/a.txt", "A\n");
    const back = await wave.callTool("read_file", { path: "src\\deep\\a.txt" });
    assert.equal(back.structured.content, "A\n");
    const outside = await wave.callTool("read_file", { path: "/etc/hostname" });
    assert.equal(outside.is_error, true);
    assert.match(
      outside.content,
      /^read_file was denied: path outside the workspace/,
    );
    const dotdot = await wave.callTool("read_file", {
      path: "..\\..\\etc\\passwd",
    });
    assert.equal(dotdot.is_error, true);
  }));

Deno.test("002 read_file (deviation): a whole-file read over the budget is refused, saying to pass limit", () =>
  devflow(async (wave) => {
    wave.put(
      "big.log",
      "x".repeat(70) + "\n".repeat(1) + "y\n".repeat(200_000),
    );
    const r = await wave.callTool("read_file", { path: "big.log" });
    assert.equal(r.is_error, true);
    assert.match(r.content, /pass limit \(and offset\) to read it in pages/);
    const page = await wave.callTool("read_file", {
      path: "big.log",
      offset: 1,
      limit: 2,
    });
    assert.equal(page.structured.content, "y\ny\n");
    assert.equal(page.structured.lines, 200_001);
  }));

Deno.test("002 write_file 行为规则: parents created; overwrite; old_size (null when new) and bytes_written", () =>
  devflow(async (wave) => {
    const created = await wave.callTool("write_file", {
      path: "a/b/c/new.txt",
      content: "hello",
    });
    assert.deepEqual(created.structured, {
      old_size: null,
      bytes_written: 5,
      path: "a/b/c/new.txt",
    });
    const over = await wave.callTool("write_file", {
      path: "a/b/c/new.txt",
      content: "hello, world",
    });
    assert.deepEqual(over.structured, {
      old_size: 5,
      bytes_written: 12,
      path: "a/b/c/new.txt",
    });
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/a/b/c/new.txt`),
      "hello, world",
    );
  }));

Deno.test('002 write_file 行为规则: emoji, quotes, backslashes, CJK, spaces and CJK in paths round-trip byte-exact; "" makes 0 bytes', () =>
  devflow(async (wave) => {
    const text =
      "🎉 \"quoted\" 'single' back\\slash \\n literal\n中文内容，标点。\ttab\r\nCRLF kept\n";
    const path = "文档 目录\\笔记 一.txt";
    const r = await wave.callTool("write_file", { path, content: text });
    assert.equal(
      r.structured.bytes_written,
      new TextEncoder().encode(text).length,
    );
    assert.deepEqual(
      Deno.readFileSync(`${wave.workspace}/文档 目录/笔记 一.txt`),
      new TextEncoder().encode(text),
    );
    const back = await wave.callTool("read_file", {
      path: "文档 目录/笔记 一.txt",
    });
    assert.equal(back.structured.content, text);
    await wave.callTool("write_file", { path: "zero.bin", content: "" });
    assert.equal(Deno.statSync(`${wave.workspace}/zero.bin`).size, 0);
  }));

Deno.test("002 write_file 行为规则: outside the project is blocked", () =>
  devflow(async (wave) => {
    const r = await wave.callTool("write_file", {
      path: "../escape.txt",
      content: "x",
    });
    assert.equal(r.is_error, true);
    assert.match(r.content, /path outside the workspace/);
  }));

Deno.test("002 list_directory 行为规则: entries {name, type, size, depth}; recursive names are relative paths; depth counts levels", () =>
  devflow(async (wave) => {
    wave.put("src/main.ts", "12345");
    wave.put("src/lib/util.ts", "1");
    wave.put("README.md", "abc");
    const flat = await wave.callTool("list_directory", { path: "." });
    assert.deepEqual(flat.structured, {
      entries: [
        { name: "src", type: "directory", size: 0, depth: 0 },
        { name: "README.md", type: "file", size: 3, depth: 0 },
      ],
      truncated: false,
    });
    const deep = await wave.callTool("list_directory", {
      path: ".",
      recursive: true,
    });
    assert.deepEqual(deep.structured.entries, [
      { name: "src", type: "directory", size: 0, depth: 0 },
      { name: "src/lib", type: "directory", size: 0, depth: 1 },
      { name: "src/lib/util.ts", type: "file", size: 1, depth: 2 },
      { name: "src/main.ts", type: "file", size: 5, depth: 1 },
      { name: "README.md", type: "file", size: 3, depth: 0 },
    ]);
    const shallow = await wave.callTool("list_directory", {
      path: ".",
      recursive: true,
      max_depth: 1,
    });
    assert.deepEqual(
      shallow.structured.entries.map((e: { name: string }) => e.name),
      [
        "src",
        "src/lib",
        "src/main.ts",
        "README.md",
      ],
    );
  }));

Deno.test("002 list_directory: skip_noise_dirs; truncated when the cap cuts; missing → os error 3", () =>
  devflow(async (wave) => {
    wave.put("node_modules/pkg/index.js", "");
    wave.put("dist/out.js", "");
    wave.put("src/a.ts", "");
    const noisy = await wave.callTool("list_directory", {
      path: ".",
      recursive: true,
    });
    assert.ok(
      noisy.structured.entries.some((e: { name: string }) =>
        e.name === "node_modules/pkg/index.js"
      ),
    );
    const clean = await wave.callTool("list_directory", {
      path: ".",
      recursive: true,
      skip_noise_dirs: true,
    });
    assert.deepEqual(
      clean.structured.entries.map((e: { name: string }) => e.name),
      ["src", "src/a.ts"],
    );
    for (let i = 0; i < 2100; i++) wave.put(`many/f${i}`, "");
    const cut = await wave.callTool("list_directory", { path: "many" });
    assert.equal(cut.structured.truncated, true);
    assert.equal(cut.structured.entries.length, 2000);
    const missing = await wave.callTool("list_directory", {
      path: "no/such/dir",
    });
    assert.equal(missing.is_error, true);
    assert.match(missing.content, /\(os error 3\)$/);
  }));

Deno.test("002 run_command: stdout comes back (the manual's bug does not exist here), and stderr", () =>
  devflow(async (wave) => {
    const r = await wave.callTool("run_command", {
      command: "echo hello stdout; echo hello stderr >&2",
    });
    assert.equal(r.structured.stdout, "hello stdout\n");
    assert.equal(r.structured.stderr, "hello stderr\n");
    assert.equal(r.structured.exit_code, 0);
    assert.equal(r.structured.timed_out, false);
  }));

Deno.test("002 run_command 可靠场景: rm, cp, mv, mkdir -p, redirection work; working_dir takes effect with relative paths", () =>
  devflow(async (wave) => {
    wave.put("work/src.txt", "data\n");
    const r = await wave.callTool("run_command", {
      command:
        "cp src.txt dst.txt && mv dst.txt moved.txt && mkdir -p deep/nested/dir && echo content > file.txt && rm -f src.txt && ls",
      working_dir: "work",
    });
    assert.equal(r.structured.exit_code, 0);
    assert.equal(r.structured.stdout, "deep\nfile.txt\nmoved.txt\n");
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/work/moved.txt`),
      "data\n",
    );
    assert.ok(
      Deno.statSync(`${wave.workspace}/work/deep/nested/dir`).isDirectory,
    );
  }));

Deno.test("002 run_command 可靠场景: timeout_secs interrupts the command", () =>
  devflow(async (wave) => {
    const started = performance.now();
    const r = await wave.callTool("run_command", {
      command: "sleep 30",
      timeout_secs: 1,
    });
    assert.ok(performance.now() - started < 5000);
    assert.equal(r.structured.timed_out, true);
    assert.equal(r.is_error, true);
  }));

Deno.test("002 F-FILE-01 search_in_file: matches with line numbers, literal or regex, case option, a cap", () =>
  devflow(async (wave) => {
    wave.put(
      "app.log",
      "INFO start\nerror: disk full\nINFO retry\nERROR: disk full again\nerror (x)\n",
    );
    const literal = await wave.callTool("search_in_file", {
      path: "app.log",
      pattern: "error (x)",
    });
    assert.deepEqual(literal.structured.matches, [{
      path: "app.log",
      line: 5,
      text: "error (x)",
    }]);
    const ci = await wave.callTool("search_in_file", {
      path: "app.log",
      pattern: "error:",
      case_sensitive: false,
    });
    assert.deepEqual(
      ci.structured.matches.map((m: { line: number }) => m.line),
      [2, 4],
    );
    const regex = await wave.callTool("search_in_file", {
      path: "app.log",
      pattern: "^INFO \\w+$",
      regex: true,
    });
    assert.deepEqual(
      regex.structured.matches.map((m: { line: number }) => m.line),
      [1, 3],
    );
    const capped = await wave.callTool("search_in_file", {
      path: "app.log",
      pattern: "i",
      case_sensitive: false,
      max_results: 2,
    });
    assert.equal(capped.structured.matches.length, 2);
    assert.equal(capped.structured.truncated, true);
    wave.put("src/x.ts", "// TODO: a\n");
    wave.put("src/y.ts", "// TODO: b\n");
    const dir = await wave.callTool("search_in_file", {
      path: "src",
      pattern: "TODO",
    });
    assert.deepEqual(
      dir.structured.matches.map((m: { path: string }) => m.path),
      ["src/x.ts", "src/y.ts"],
    );
  }));

Deno.test("002 F-FILE-02 patch_file: unique old/new text, or a 1-based line range", () =>
  devflow(async (wave) => {
    wave.put("p.txt", "alpha\nbeta\ngamma\ndelta\n");
    const text = await wave.callTool("patch_file", {
      path: "p.txt",
      old_text: "beta",
      new_text: "BETA",
    });
    assert.equal(text.structured.first_changed_line, 2);
    assert.equal(text.structured.replaced, 1);
    const range = await wave.callTool("patch_file", {
      path: "p.txt",
      start_line: 3,
      end_line: 4,
      new_text: "G\nD",
    });
    assert.equal(range.structured.first_changed_line, 3);
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/p.txt`),
      "alpha\nBETA\nG\nD\n",
    );
    const insert = await wave.callTool("patch_file", {
      path: "p.txt",
      start_line: 1,
      end_line: 0,
      new_text: "first",
    });
    assert.equal(insert.is_error, false);
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/p.txt`),
      "first\nalpha\nBETA\nG\nD\n",
    );
    wave.put("dup.txt", "x\nx\n");
    const dup = await wave.callTool("patch_file", {
      path: "dup.txt",
      old_text: "x",
      new_text: "y",
    });
    assert.equal(dup.is_error, true);
    assert.match(dup.content, /Found 2 matches/);
    const past = await wave.callTool("patch_file", {
      path: "dup.txt",
      start_line: 5,
      end_line: 6,
      new_text: "z",
    });
    assert.match(past.content, /has 2 lines; the range 5-6 is past its end/);
    const both = await wave.request({
      subtype: "call_tool",
      tool_name: "patch_file",
      input: { path: "dup.txt", new_text: "z" },
    });
    assert.match(
      both.error,
      /give either old_text, or start_line and end_line/,
    );
  }));

Deno.test("002 F-FILE-03 file_info: size, lines, mtime, type, text or binary, encoding, without the content", () =>
  devflow(async (wave) => {
    wave.put("t.txt", thirty);
    const text = await wave.callTool("file_info", { path: "t.txt" });
    assert.equal(text.structured.type, "file");
    assert.equal(text.structured.size, thirty.length);
    assert.equal(text.structured.lines, 30);
    assert.equal(text.structured.is_text, true);
    assert.equal(text.structured.encoding, "utf-8");
    assert.match(text.structured.modified, /^\d{4}-\d\d-\d\dT/);
    assert.ok(!text.content.includes("line 1"), "no content returned");
    wave.put("noeol.txt", "a\nb");
    assert.equal(
      (await wave.callTool("file_info", { path: "noeol.txt" })).structured
        .lines,
      2,
    );
    wave.put("x.pdf", "%PDF-1.4\n\0");
    const pdf = await wave.callTool("file_info", { path: "x.pdf" });
    assert.deepEqual([
      pdf.structured.is_text,
      pdf.structured.encoding,
      pdf.structured.lines,
      pdf.structured.format,
    ], [
      false,
      null,
      null,
      "PDF document",
    ]);
    const dir = await wave.callTool("file_info", { path: "." });
    assert.equal(dir.structured.type, "directory");
  }));

Deno.test("002 F-FILE-04 append_file: atomic append; creates the file", () =>
  devflow(async (wave) => {
    const created = await wave.callTool("append_file", {
      path: "log/run.log",
      content: "first\n",
    });
    assert.deepEqual(created.structured, {
      old_size: null,
      bytes_written: 6,
      new_size: 6,
      path: "log/run.log",
    });
    const appended = await wave.callTool("append_file", {
      path: "log/run.log",
      content: "second\n",
    });
    assert.deepEqual(appended.structured, {
      old_size: 6,
      bytes_written: 7,
      new_size: 13,
      path: "log/run.log",
    });
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/log/run.log`),
      "first\nsecond\n",
    );
  }));

Deno.test("002 F-FILE-05 search_files: by glob or by a piece of the name, recursive, noise dirs skipped", () =>
  devflow(async (wave) => {
    wave.put("src/app.test.ts", "");
    wave.put("src/app.ts", "");
    wave.put("docs/README.md", "");
    wave.put("node_modules/x/app.test.ts", "");
    const glob = await wave.callTool("search_files", { pattern: "*.test.ts" });
    assert.deepEqual(glob.structured, {
      files: ["src/app.test.ts"],
      truncated: false,
    });
    const piece = await wave.callTool("search_files", { pattern: "readme" });
    assert.deepEqual(piece.structured.files, ["docs/README.md"]);
    const scoped = await wave.callTool("search_files", {
      pattern: "app",
      path: "src",
    });
    assert.deepEqual(scoped.structured.files, [
      "src/app.test.ts",
      "src/app.ts",
    ]);
  }));

Deno.test("002 F-FILE-06 write_file encoding base64: binary content, byte-exact", () =>
  devflow(async (wave) => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255, 254]);
    const r = await wave.callTool("write_file", {
      path: "img/x.png",
      content: btoa(String.fromCharCode(...bytes)),
      encoding: "base64",
    });
    assert.equal(r.structured.bytes_written, bytes.length);
    assert.deepEqual(Deno.readFileSync(`${wave.workspace}/img/x.png`), bytes);
    const bad = await wave.callTool("write_file", {
      path: "bad.bin",
      content: "not base64!!",
      encoding: "base64",
    });
    assert.equal(bad.is_error, true);
    assert.match(bad.content, /not valid base64/);
  }));

Deno.test("002 F-FILE-08 diff_file: between two files, or a file and content", () =>
  devflow(async (wave) => {
    wave.put("a.txt", "one\ntwo\nthree\n");
    wave.put("b.txt", "one\n2\nthree\nfour\n");
    const files = await wave.callTool("diff_file", {
      path: "a.txt",
      other_path: "b.txt",
    });
    assert.deepEqual(files.structured, {
      diff:
        "--- a.txt\n+++ b.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n",
      identical: false,
      added: 2,
      removed: 1,
    });
    const same = await wave.callTool("diff_file", {
      path: "a.txt",
      content: "one\ntwo\nthree\n",
    });
    assert.deepEqual(same.structured, {
      diff: "",
      identical: true,
      added: 0,
      removed: 0,
    });
  }));

Deno.test("002 write_file: writes are recorded in file history; restore_file undoes an overwrite, a create, and a restore", () =>
  devflow(async (wave) => {
    wave.put("conf.ini", "original\n");
    await wave.callTool("write_file", {
      path: "conf.ini",
      content: "clobbered\n",
    });
    const undo = await wave.callTool("restore_file", { path: "conf.ini" });
    assert.equal(undo.is_error, false);
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/conf.ini`),
      "original\n",
    );
    await wave.callTool("write_file", { path: "fresh.txt", content: "new" });
    const removed = await wave.callTool("restore_file", { path: "fresh.txt" });
    assert.equal(removed.structured.deleted, true);
    assert.throws(() => Deno.statSync(`${wave.workspace}/fresh.txt`));
    await wave.callTool("patch_file", {
      path: "conf.ini",
      old_text: "original",
      new_text: "patched",
    });
    await wave.callTool("restore_file", { path: "conf.ini" });
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/conf.ini`),
      "original\n",
    );
    const none = await wave.callTool("restore_file", { path: "never.txt" });
    assert.match(none.content, /has no recorded changes in this session/);
  }));

Deno.test("002 快速参考: the manual's recipes, done with the new tools instead of its workarounds", () =>
  devflow(async (wave) => {
    wave.put("service.log", thirty.replace("line 17", "line 17 ERROR timeout"));
    // 读文件全文 / 读第 10~15 行
    assert.equal(
      (await wave.callTool("read_file", { path: "service.log" })).structured
        .lines,
      30,
    );
    const lines10to15 = await wave.callTool("read_file", {
      path: "service.log",
      offset: 9,
      limit: 6,
    });
    assert.equal(
      lines10to15.structured.content,
      "line 10\nline 11\nline 12\nline 13\nline 14\nline 15\n",
    );
    // 搜索文件内容: not paging through read_file
    const found = await wave.callTool("search_in_file", {
      path: "service.log",
      pattern: "ERROR",
    });
    assert.deepEqual(found.structured.matches, [{
      path: "service.log",
      line: 17,
      text: "line 17 ERROR timeout",
    }]);
    // 获取文件大小/行数: not reading the content
    const info = await wave.callTool("file_info", { path: "service.log" });
    assert.deepEqual([info.structured.size, info.structured.lines], [
      Deno.statSync(`${wave.workspace}/service.log`).size,
      30,
    ]);
    // 创建新文件 / 修改文件中某几行 / 追加内容: no read → replace → write_file round trip
    await wave.callTool("write_file", {
      path: "notes.md",
      content: "# Notes\n- a\n",
    });
    await wave.callTool("patch_file", {
      path: "notes.md",
      start_line: 2,
      end_line: 2,
      new_text: "- A",
    });
    await wave.callTool("append_file", { path: "notes.md", content: "- b\n" });
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/notes.md`),
      "# Notes\n- A\n- b\n",
    );
    // 写入二进制文件: not printf
    await wave.callTool("write_file", {
      path: "logo.bin",
      content: btoa("\x89PNG\x00\x01"),
      encoding: "base64",
    });
    assert.deepEqual(
      Deno.readFileSync(`${wave.workspace}/logo.bin`),
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]),
    );
    // 搜索文件名: not a recursive listing filtered by the model
    assert.deepEqual(
      (await wave.callTool("search_files", { pattern: "*.md" })).structured
        .files,
      ["notes.md"],
    );
    // 列出项目结构
    const tree = await wave.callTool("list_directory", {
      path: ".",
      recursive: true,
      max_depth: 3,
    });
    assert.equal(tree.structured.truncated, false);
    // 删除文件 / 重命名文件 (still run_command, now with its output)
    const mv = await wave.callTool("run_command", {
      command: "mv notes.md NOTES.md && rm -f logo.bin && ls",
    });
    assert.equal(mv.structured.stdout, "NOTES.md\nservice.log\n");
  }));
