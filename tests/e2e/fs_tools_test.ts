/**
 * End-to-end: spec 000's scenarios and edge cases through `call_tool`
 * against the real CLI (the `wave` toolset).
 */

import assert from "node:assert/strict";
import { type WaveProcess, withWave as run } from "../_wave.ts";
import { TINY_PNG } from "../_images.ts";
import { tempDir } from "../_temp.ts";

/** Runs `fn` against a wave; options last, as these tests read best. */
const withWave = (
  fn: (wave: WaveProcess) => Promise<void>,
  options: Parameters<typeof run>[0] = {},
) => run(options, fn);

const later = (path: string, seconds = 5) => {
  const t = new Date(Date.now() + seconds * 1000);
  Deno.utimeSync(path, t, t);
};

Deno.test("e2e: the wave toolset is bound, with its JSON Schemas", () =>
  withWave(async (wave) => {
    assert.deepEqual(wave.messages[0].tools, [
      "Read",
      "Write",
      "Edit",
      "Glob",
      "Grep",
      "Bash",
      "TaskCreate",
      "TaskGet",
      "TaskUpdate",
      "TaskList",
    ]);
    const listed = await wave.request({ subtype: "list_tools" });
    const read = listed.response.tools.find((t: { name: string }) =>
      t.name === "Read"
    );
    assert.deepEqual(read.input_schema.required, ["file_path"]);
    assert.equal(read.input_schema.properties.offset.type, "integer");
    const grep = listed.response.tools.find((t: { name: string }) =>
      t.name === "Grep"
    );
    assert.deepEqual(grep.scopes, { read: true, write: false, run: ["rg"] });
    assert.deepEqual(
      grep.input_schema.properties.output_mode.enum,
      ["files_with_matches", "content", "count"],
    );
  }));

Deno.test("e2e 000 Read #1 and #2: numbered lines and metadata; offset/limit give the chunk", () =>
  withWave(async (wave) => {
    wave.put("src/a.txt", "alpha\nbeta\ngamma\ndelta\n");
    const whole = await wave.callTool("Read", { file_path: "src/a.txt" });
    assert.equal(whole.is_error, false);
    assert.equal(
      whole.content,
      "     1\talpha\n     2\tbeta\n     3\tgamma\n     4\tdelta",
    );
    assert.equal(whole.structured.totalLines, 4);
    assert.equal(whole.structured.path, `${wave.workspace}/src/a.txt`);
    const chunk = await wave.callTool("Read", {
      file_path: "src/a.txt",
      offset: 2,
      limit: 2,
    });
    assert.equal(
      chunk.content,
      "     2\tbeta\n     3\tgamma\n\n(Showing lines 2-3 of 4. Call Read with offset 4 to continue.)",
    );
  }));

Deno.test("e2e 000 Read #3: an image block for a multimodal model", () =>
  withWave(async (wave) => {
    wave.put("pic.png", TINY_PNG);
    const r = await wave.callTool("Read", { file_path: "pic.png" });
    assert.equal(r.content[0].type, "image");
    assert.equal(r.content[0].source.type, "base64");
    assert.equal(r.content[0].source.media_type, "image/png");
    assert.equal(r.structured.width, 1);
  }));

Deno.test("e2e 000 Read #4: unchanged since the last read: a minimal reply, and never stale", () =>
  withWave(async (wave) => {
    const path = wave.put("same.txt", "content\n");
    await wave.callTool("Read", { file_path: "same.txt" });
    const again = await wave.callTool("Read", { file_path: "same.txt" });
    assert.equal(again.structured.type, "file_unchanged");
    Deno.writeTextFileSync(path, "new content\n");
    const fresh = await wave.callTool("Read", { file_path: "same.txt" });
    assert.equal(fresh.content, "     1\tnew content");
  }));

Deno.test("e2e 000 edge cases of Read: size, tokens, binaries", () =>
  withWave(async (wave) => {
    wave.put("big.txt", "y".repeat(260 * 1024));
    const big = await wave.callTool("Read", { file_path: "big.txt" });
    assert.equal(big.is_error, true);
    assert.match(
      big.content,
      /^big\.txt is 260\.0 KB \(266240 bytes\), over the 256\.0 KB/,
    );
    wave.put("tokens.txt", Array(300).fill("t ".repeat(40)).join("\n"));
    const tokens = await wave.callTool("Read", { file_path: "tokens.txt" });
    assert.equal(tokens.is_error, true);
    assert.match(tokens.content, /over the 2000-token budget/);
    wave.put("doc.pdf", "%PDF-1.5\n");
    const pdf = await wave.callTool("Read", { file_path: "doc.pdf" });
    assert.equal(pdf.is_error, true);
    assert.match(
      pdf.content,
      /^Cannot read doc\.pdf: it is a binary file \(PDF document\)/,
    );
  }, { args: ["--max-read-tokens", "2000"] }));

Deno.test("e2e 000 Edit #1, #5, #6: read first, unique replace, not-found quotes the string", () =>
  withWave(async (wave) => {
    wave.put("e.ts", "function add(a, b) {\n  return a + b;\n}\n");
    const blind = await wave.callTool("Edit", {
      file_path: "e.ts",
      old_string: "a + b",
      new_string: "a - b",
    });
    assert.equal(blind.is_error, true);
    assert.equal(
      blind.content,
      "e.ts has not been read in this session. Call Read on it first, then edit it.",
    );
    await wave.callTool("Read", { file_path: "e.ts" });
    const ok = await wave.callTool("Edit", {
      file_path: "e.ts",
      old_string: "a + b",
      new_string: "a - b",
    });
    assert.equal(ok.is_error, false);
    assert.equal(ok.structured.firstChangedLine, 2);
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/e.ts`),
      "function add(a, b) {\n  return a - b;\n}\n",
    );
    const missing = await wave.callTool("Edit", {
      file_path: "e.ts",
      old_string: "a * b",
      new_string: "x",
    });
    assert.equal(missing.is_error, true);
    assert.match(
      missing.content,
      /^String to replace not found in e\.ts\.\nString: a \* b\n/,
    );
  }));

Deno.test("e2e 000 Edit #2 and #3: not unique fails with the count; word-level diff in structured", () =>
  withWave(async (wave) => {
    wave.put("d.ts", "x = 1;\nx = 1;\n");
    await wave.callTool("Read", { file_path: "d.ts" });
    const dup = await wave.callTool("Edit", {
      file_path: "d.ts",
      old_string: "x = 1;",
      new_string: "x = 2;",
    });
    assert.equal(dup.is_error, true);
    assert.match(dup.content, /^Found 2 matches of old_string in d\.ts/);
    const one = await wave.callTool("Edit", {
      file_path: "d.ts",
      old_string: "x = 1;\nx = 1;",
      new_string: "x = 1;\nx = 2;",
    });
    assert.deepEqual(one.structured.wordDiffs, [{
      oldLine: 2,
      newLine: 2,
      parts: [{ value: "x = " }, { value: "1", removed: true }, {
        value: "2",
        added: true,
      }, { value: ";" }],
    }]);
  }));

Deno.test("e2e 000 Edit #4: CRLF normalized for matching, kept on disk", () =>
  withWave(async (wave) => {
    const path = wave.put("crlf.txt", "one\r\ntwo\r\n");
    await wave.callTool("Read", { file_path: "crlf.txt" });
    const r = await wave.callTool("Edit", {
      file_path: "crlf.txt",
      old_string: "one\ntwo",
      new_string: "1\n2",
    });
    assert.equal(r.is_error, false);
    assert.deepEqual(
      Deno.readFileSync(path),
      new TextEncoder().encode("1\r\n2\r\n"),
    );
  }));

Deno.test("e2e 000 Edit #7, #8, #9: staleness by mtime with the content-hash fallback", () =>
  withWave(async (wave) => {
    const touched = wave.put("touched.ts", "t\n");
    await wave.callTool("Read", { file_path: "touched.ts" });
    later(touched);
    const seven = await wave.callTool("Edit", {
      file_path: "touched.ts",
      old_string: "t",
      new_string: "T",
    });
    assert.equal(
      seven.is_error,
      false,
      "#7: touched but unchanged is accepted",
    );

    const changed = wave.put("changed.ts", "c\n");
    await wave.callTool("Read", { file_path: "changed.ts" });
    Deno.writeTextFileSync(changed, "c2\n");
    later(changed);
    const eight = await wave.callTool("Edit", {
      file_path: "changed.ts",
      old_string: "c2",
      new_string: "C",
    });
    assert.equal(eight.is_error, true, "#8: changed content is refused");
    assert.match(eight.content, /has changed on disk since it was last read/);

    const partial = wave.put("partial.ts", "p1\np2\n");
    await wave.callTool("Read", { file_path: "partial.ts", limit: 1 });
    later(partial);
    const nine = await wave.callTool("Edit", {
      file_path: "partial.ts",
      old_string: "p1",
      new_string: "P",
    });
    assert.equal(
      nine.is_error,
      true,
      "#9: partial read then newer mtime is refused",
    );
    assert.match(nine.content, /the last read was partial/);
  }));

Deno.test("e2e 000 edge: Grep does not count as a read for Edit or Write", () =>
  withWave(async (wave) => {
    wave.put("g.ts", "findme\n");
    const g = await wave.callTool("Grep", { pattern: "findme" });
    assert.equal(g.content, "Found 1 file\ng.ts");
    const e = await wave.callTool("Edit", {
      file_path: "g.ts",
      old_string: "findme",
      new_string: "x",
    });
    assert.equal(e.is_error, true);
    const w = await wave.callTool("Write", { file_path: "g.ts", content: "x" });
    assert.equal(w.is_error, true);
    assert.match(w.content, /has not been read in this session/);
  }));

Deno.test("e2e 000 Write: new file without a read; update after one", () =>
  withWave(async (wave) => {
    const created = await wave.callTool("Write", {
      file_path: "new/dir/f.md",
      content: "# hi\n",
    });
    assert.equal(created.structured.type, "create");
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/new/dir/f.md`),
      "# hi\n",
    );
    await wave.callTool("Read", { file_path: "new/dir/f.md" });
    const updated = await wave.callTool("Write", {
      file_path: "new/dir/f.md",
      content: "# hello\n",
    });
    assert.equal(updated.structured.type, "update");
    assert.match(updated.content, /-# hi\n\+# hello/);
  }));

Deno.test("e2e 000 atomic #1: a concurrent reader never sees a half-written file", () =>
  withWave(async (wave) => {
    const path = wave.put("atom.txt", "A".repeat(1024 * 1024));
    await wave.callTool("Read", { file_path: "atom.txt", limit: 1 });
    let stop = false;
    const sizes = new Set<number>();
    const reader = (async () => {
      while (!stop) {
        const t = await Deno.readTextFile(path);
        sizes.add(t.length);
        assert.ok(/^(A+|B+)$/.test(t), "mixed or partial content");
      }
    })();
    for (let i = 0; i < 6; i++) {
      const content = (i % 2 ? "A" : "B").repeat((1 + i) * 512 * 1024);
      const w = await wave.callTool("Write", {
        file_path: "atom.txt",
        content,
      });
      assert.equal(w.is_error, false, w.content);
    }
    stop = true;
    await reader;
    for (const size of sizes) {
      assert.ok(size % (512 * 1024) === 0, `saw ${size} bytes`);
    }
  }));

Deno.test(
  "e2e 000 atomic #2: a full disk fails the write, keeps the old bytes, leaves no temp file",
  {
    ignore: Deno.uid() !== 0,
  },
  async () => {
    const base = await Deno.realPath(
      await tempDir({ prefix: "wave-full-" }),
    );
    const mount = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=256k", "tmpfs", base],
      stderr: "null",
    }).output().catch(() => null);
    if (!mount?.success) {
      console.error(
        "cannot mount a tmpfs here; the fault-injection tests cover the full disk",
      );
      return;
    }
    try {
      await withWave(async (wave) => {
        const path = wave.put("f.txt", "original\n");
        await wave.callTool("Read", { file_path: "f.txt" });
        const w = await wave.callTool("Write", {
          file_path: "f.txt",
          content: "z".repeat(512 * 1024),
        });
        assert.equal(w.is_error, true);
        assert.equal(
          w.content,
          "Could not write f.txt: the disk is full; nothing was written to f.txt.",
        );
        assert.equal(Deno.readTextFileSync(path), "original\n");
        assert.deepEqual([...Deno.readDirSync(base)].map((e) => e.name), [
          "f.txt",
        ]);
      }, { workspace: base });
    } finally {
      await new Deno.Command("umount", { args: [base] }).output();
    }
  },
);

Deno.test("e2e 000 Glob #2: TypeScript files, gitignored included, .git excluded, limit, structured", () =>
  withWave(async (wave) => {
    wave.put(".gitignore", "out/\n");
    wave.put("a.ts", "");
    wave.put("out/b.ts", "");
    wave.put(".git/c.ts", "");
    wave.put("d.js", "");
    const r = await wave.callTool("Glob", { pattern: "**/*.ts" });
    assert.deepEqual(r.structured.files.sort(), ["a.ts", "out/b.ts"]);
    assert.equal(r.structured.count, 2);
    assert.equal(r.structured.truncated, false);
    const one = await wave.callTool("Glob", { pattern: "**/*.ts", limit: 1 });
    assert.equal(one.structured.truncated, true);
  }));

Deno.test("e2e 000 Grep #1 and #3: matches with counts; no match suggests path", () =>
  withWave(async (wave) => {
    wave.put(".gitignore", "vendor/\n");
    wave.put("src/x.ts", "TODO one\nTODO two\n");
    wave.put("vendor/y.ts", "TODO vendored\n");
    wave.put(".env", "TODO=secret\n");
    const r = await wave.callTool("Grep", {
      pattern: "TODO",
      output_mode: "content",
    });
    assert.equal(r.content, "src/x.ts:1:TODO one\nsrc/x.ts:2:TODO two");
    assert.equal(r.structured.matches, 2);
    const none = await wave.callTool("Grep", { pattern: "vendored" });
    assert.match(none.content, /set the path field to it/);
    const there = await wave.callTool("Grep", {
      pattern: "vendored",
      path: "vendor",
    });
    assert.equal(there.content, "Found 1 file\nvendor/y.ts");
  }));

Deno.test("e2e 000: ripgrep missing is a tool error, and wave keeps serving", () =>
  withWave(async (wave) => {
    wave.put("a.txt", "a\n");
    const g = await wave.callTool("Grep", { pattern: "a" });
    assert.equal(g.is_error, true);
    assert.match(g.content, /^ripgrep is not available/);
    const glob = await wave.callTool("Glob", { pattern: "*" });
    assert.match(glob.content, /^ripgrep is not available/);
    const read = await wave.callTool("Read", { file_path: "a.txt" });
    assert.equal(read.content, "     1\ta");
  }, { env: { WAVE_RG_PATH: "" } }));

Deno.test("e2e 000: file tools go through the resolver and approvals", () =>
  withWave(async (wave) => {
    const r = await wave.callTool("Read", { file_path: "/etc/hostname" });
    assert.equal(r.is_error, true);
    assert.match(
      r.content,
      /^Read was denied: path outside the workspace: \/etc\/hostname/,
    );
    wave.put(".env", "KEY=1\n");
    const env = await wave.callTool("Read", { file_path: ".env" });
    assert.match(env.content, /^Read was denied: sensitive file \(\.env\)/);
    const w = await wave.callTool("Write", {
      file_path: "../escape.txt",
      content: "x",
    });
    assert.equal(w.is_error, true);
  }));

Deno.test("e2e 000: modes: ask binds the tools that only read", () =>
  withWave(async (wave) => {
    assert.deepEqual(wave.messages[0].tools, [
      "Read",
      "Glob",
      "Grep",
      "TaskGet",
      "TaskList",
    ]);
    const w = await wave.request({
      subtype: "call_tool",
      tool_name: "Write",
      input: { file_path: "x", content: "y" },
    });
    assert.equal(
      w.error,
      "Write is not available in ask mode; it needs agent mode or wider (set_permission_mode)",
    );
  }, { args: ["--mode", "ask"] }));

Deno.test("e2e: inputs no file system can take get a tool error that says why, and the session goes on", () =>
  withWave(async (wave) => {
    wave.put("a.txt", "x\n");
    const parentIsFile = await wave.callTool("Write", {
      file_path: "a.txt/b.txt",
      content: "y",
    });
    assert.equal(parentIsFile.is_error, true);
    assert.equal(
      parentIsFile.content,
      "Could not write a.txt/b.txt: a parent of a.txt/b.txt is not a directory.",
    );
    const tooLong = await wave.callTool("Read", {
      file_path: "x".repeat(5000),
    });
    assert.equal(tooLong.is_error, true);
    assert.match(
      tooLong.content,
      /^cannot resolve the path "x{200}…": File name too long \(os error 36\)$/,
    );
    const nul = await wave.callTool("Bash", { command: "echo a\u0000b" });
    assert.equal(nul.is_error, true);
    assert.match(nul.content, /^The command contains a NUL character/);
    assert.equal(
      (await wave.callTool("Read", { file_path: "a.txt" })).content,
      "     1\tx",
    );
  }));
