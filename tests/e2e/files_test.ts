/**
 * End-to-end: spec 004's find_files and read_files through `call_tool`
 * against the real CLI (`--toolset files`).
 */

import assert from "node:assert/strict";
import { type Message, type WaveProcess, withWave } from "../_wave.ts";
import { TINY_PNG } from "../_images.ts";

const files = (
  fn: (wave: WaveProcess) => Promise<void>,
  args: string[] = [],
) => withWave({ args: ["--toolset", "files", ...args] }, fn);

function answer(wave: WaveProcess, ask: Message, response: unknown) {
  return wave.send({
    type: "control_response",
    response: { subtype: "success", request_id: ask.request_id, response },
  });
}

Deno.test("e2e 004: --toolset files serves find_files, read_files, edit_file, file_history and open_file; find_files and read_files read only (bound in ask mode)", () =>
  files(async (wave) => {
    assert.deepEqual(wave.messages[0].tools, [
      "find_files",
      "read_files",
      "edit_file",
      "file_history",
      "open_file",
    ]);
    const listed = await wave.request({ subtype: "list_tools" });
    const [find, read] = listed.response.tools;
    assert.deepEqual(find.scopes, { read: true, write: false, run: ["rg"] });
    assert.deepEqual(
      Object.keys(find.input_schema.properties.queries.items.properties),
      [
        "dir",
        "pattern",
        "file_pattern",
        "recursive",
      ],
    );
    assert.deepEqual(find.input_schema.properties.mode.enum, [
      "list",
      "glob",
      "search",
    ]);
    assert.deepEqual(
      Object.keys(read.input_schema.properties.files.items.properties),
      [
        "path",
        "offset",
        "limit",
        "around",
        "context",
      ],
    );
    await wave.request({ subtype: "set_permission_mode", mode: "ask" });
    const r = await wave.callTool("find_files", { queries: [{}] });
    assert.equal(r.is_error, false);
  }));

Deno.test("e2e 004: find_files search's lines go straight to read_files' around", () =>
  files(async (wave) => {
    const body = Array.from(
      { length: 60 },
      (_, k) =>
        k === 9 || k === 49 ? `fn target_${k + 1}()` : `filler ${k + 1}`,
    ).join("\n") + "\n";
    wave.put("src/lib.rs", body);
    wave.put("src/other.rs", "nothing here\n");
    const found = await wave.callTool("find_files", {
      queries: [{ pattern: "fn target_\\d+", file_pattern: "*.rs" }],
    });
    assert.equal(
      found.content,
      '{"path":"src/lib.rs","count":2,"lines":[10,50]}\n[files 1-1 of 1; last page]',
    );
    const [row] = found.structured.rows;
    const read = await wave.callTool("read_files", {
      files: [{ path: row.path, around: row.lines, context: 1 }],
    });
    assert.equal(
      read.content,
      "==> src/lib.rs <==\n...\n9\tfiller 9\n10\tfn target_10()\n11\tfiller 11\n...\n49\tfiller 49\n50\tfn target_50()\n51\tfiller 51\n...",
    );
  }));

Deno.test("e2e 004 find_files: list, glob and search; the mode inferred from the queries", () =>
  files(async (wave) => {
    wave.put(".gitignore", "out/\n");
    wave.put("b.md", "needle\n");
    wave.put("a/x.ts", "needle\n");
    wave.put("out/y.ts", "needle\n");
    wave.put(".git/HEAD", "needle\n");
    const list = await wave.callTool("find_files", { queries: [{}] });
    assert.equal(list.content, ".git/\n.gitignore\na/\nb.md\nout/");
    const glob = await wave.callTool("find_files", {
      queries: [{ pattern: "**/*.ts" }],
    });
    assert.deepEqual(glob.content.split("\n").sort(), ["a/x.ts", "out/y.ts"]);
    const search = await wave.callTool("find_files", {
      queries: [{ pattern: "needle", file_pattern: "*" }],
      output: "content",
    });
    assert.equal(
      search.content,
      '{"path":"a/x.ts","line":1,"text":"needle"}\n{"path":"b.md","line":1,"text":"needle"}\n[lines 1-2 of 2; last page]',
    );
  }));

Deno.test("e2e 004 find_files: pages continue across calls by offset and search_id; a changed search is refused", () =>
  files(async (wave) => {
    for (let k = 0; k < 3; k++) wave.put(`f${k}.txt`, "needle\nneedle\n");
    const queries = [{ pattern: "needle", file_pattern: "*.txt" }];
    const first = await wave.callTool("find_files", {
      queries,
      output: "content",
      limit: 4,
    });
    const id = first.structured.search_id;
    assert.equal(
      first.content.split("\n").at(-1),
      `[lines 1-4 of 6; next offset=4, search_id=${id}]`,
    );
    const next = await wave.callTool("find_files", {
      queries,
      output: "content",
      limit: 4,
      offset: 4,
      search_id: id,
    });
    assert.equal(
      next.content,
      '{"path":"f2.txt","line":1,"text":"needle"}\n{"path":"f2.txt","line":2,"text":"needle"}\n[lines 5-6 of 6; last page]',
    );
    const changed = await wave.callTool("find_files", {
      queries,
      output: "files",
      offset: 4,
      search_id: id,
    });
    assert.equal(changed.is_error, true);
    assert.match(changed.content, /Start again from offset 0/);
  }));

Deno.test("e2e 004 find_files: a look-around is a tool error that says RE2 syntax is expected", () =>
  files(async (wave) => {
    wave.put("a.txt", "foobar\n");
    const r = await wave.callTool("find_files", {
      queries: [{ pattern: "foo(?=bar)", file_pattern: "*.txt" }],
    });
    assert.equal(r.is_error, true);
    assert.match(
      r.content,
      /^The pattern "foo\(\?=bar\)" is not valid RE2 syntax: look-around, including look-ahead and look-behind, is not supported\. The search expects RE2 syntax/,
    );
    assert.equal(r.structured.type, "regex_syntax");
  }));

Deno.test("e2e 004 read_files: text rows and image blocks, in order", () =>
  files(async (wave) => {
    wave.put("a.txt", "one\ntwo\n");
    wave.put("pic.png", TINY_PNG);
    const r = await wave.callTool("read_files", {
      files: [{ path: "a.txt", limit: 1 }, { path: "pic.png" }],
    });
    assert.equal(r.is_error, false);
    assert.deepEqual(r.content.map((b: { type: string }) => b.type), [
      "text",
      "image",
    ]);
    assert.equal(
      r.content[0].text,
      `==> a.txt <==\n1\tone\n[lines 1-1 of 2; call again with offset=2 for more]\n\n==> pic.png <==\nimage/png, 1×1 px, ${TINY_PNG.length} B`,
    );
    assert.equal(r.content[1].source.media_type, "image/png");
    assert.deepEqual(
      r.structured.files.map((f: { type: string }) => f.type),
      ["text", "image"],
    );
  }));

Deno.test("e2e 004 read_files: a sensitive file needs the parent's confirmation even under --approvals allow", () =>
  files(async (wave) => {
    wave.put(".env", "TOKEN=1\n");
    wave.put("keys/server.key", "KEY\n");
    wave.put("plain.txt", "fine\n");
    // A plain file under allow: no question.
    const plain = await wave.callTool("read_files", {
      files: [{ path: "plain.txt" }],
    });
    assert.equal(plain.content, "==> plain.txt <==\n1\tfine");
    assert.equal(
      wave.messages.filter((m) => m.type === "control_request").length,
      0,
    );
    const pending = wave.callTool("read_files", {
      files: [{ path: ".env" }, { path: "plain.txt" }],
    });
    const ask = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "can_use_tool"
    );
    assert.equal(ask.request.tool_name, "read_files");
    assert.equal(
      ask.request.reason,
      `sensitive file (.env): ${wave.workspace}/.env`,
    );
    await answer(wave, ask, { behavior: "allow" });
    const allowed = await pending;
    assert.equal(
      allowed.content,
      "==> .env <==\n1\tTOKEN=1\n\n==> plain.txt <==\n1\tfine",
    );
    const denied = wave.callTool("read_files", {
      files: [{ path: "keys/server.key" }],
    });
    const second = await wave.waitFor((m) =>
      m.type === "control_request" && m.request_id !== ask.request_id
    );
    await answer(wave, second, { behavior: "deny", message: "no keys" });
    const result = await denied;
    assert.equal(result.is_error, true);
    assert.equal(result.content, "read_files was denied by the user: no keys");
  }, ["--approvals", "allow"]));

Deno.test("e2e 004 read_files: under --approvals deny a sensitive file is refused", () =>
  files(async (wave) => {
    wave.put(".env.local", "TOKEN=1\n");
    const r = await wave.callTool("read_files", {
      files: [{ path: ".env.local" }],
    });
    assert.equal(r.is_error, true);
    assert.match(
      r.content,
      /^read_files was denied: sensitive file \(\.env\.local\): .*--approvals deny/,
    );
  }, ["--approvals", "deny"]));

Deno.test("e2e 004: other toolsets keep the policy: Read of a sensitive file under --approvals allow asks nothing", () =>
  withWave({ args: ["--approvals", "allow"] }, async (wave) => {
    wave.put(".env", "TOKEN=1\n");
    const r = await wave.callTool("Read", { file_path: ".env" });
    assert.equal(r.is_error, false);
    assert.equal(
      wave.messages.filter((m) => m.type === "control_request").length,
      0,
    );
  }));
