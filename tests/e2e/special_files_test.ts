/**
 * End-to-end: a named pipe in the workspace. Opening one for reading waits
 * for a writer that never comes, so every file tool of every toolset must
 * refuse it at once, and the session must go on (and end on EOF) as usual.
 */

import assert from "node:assert/strict";
import { withWave } from "../_wave.ts";

const FIFO_REFUSED =
  /pipe is a named pipe \(FIFO\), not a regular file; file tools do not open it/;

const CALLS: Record<string, [string, Record<string, unknown>][]> = {
  wave: [
    ["Read", { file_path: "pipe" }],
    ["Edit", { file_path: "pipe", old_string: "a", new_string: "b" }],
    ["Write", { file_path: "pipe", content: "x" }],
    ["Grep", { pattern: "x", path: "pipe" }],
    ["Glob", { pattern: "*", path: "pipe" }],
  ],
  sata: [
    ["read", { Path: "pipe" }],
    ["write", { Path: "pipe", Content: "x" }],
    ["edit", { Path: "pipe", Old: "a", New: "b" }],
    ["grep", { Pattern: "x", Path: "pipe" }],
  ],
  devflow: [
    ["read_file", { path: "pipe" }],
    ["write_file", { path: "pipe", content: "x" }],
    ["append_file", { path: "pipe", content: "x" }],
    ["patch_file", { path: "pipe", old_text: "a", new_text: "b" }],
    ["file_info", { path: "pipe" }],
    ["diff_file", { path: "pipe", content: "x" }],
    ["search_in_file", { path: "pipe", pattern: "x" }],
  ],
};

for (const [toolset, calls] of Object.entries(CALLS)) {
  Deno.test(`every ${toolset} file tool refuses a named pipe at once, and the session goes on`, () =>
    withWave({ args: ["--toolset", toolset] }, async (wave) => {
      const mkfifo = await new Deno.Command("mkfifo", {
        args: [`${wave.workspace}/pipe`],
      }).output();
      assert.equal(mkfifo.code, 0);
      wave.put("ok.txt", "fine\n");
      for (const [tool, input] of calls) {
        const result = await wave.callTool(tool, input);
        assert.equal(result.is_error, true, `${tool}: ${result.content}`);
        assert.match(String(result.content), FIFO_REFUSED, tool);
      }
      // Nothing is stuck: a plain read works, and EOF ends the session.
      const [readTool, readInput] = calls[0];
      const pathField = Object.keys(readInput)[0];
      const ok = await wave.callTool(readTool, { [pathField]: "ok.txt" });
      assert.notEqual(ok.is_error, true, JSON.stringify(ok));
      assert.equal((await wave.finish()).code, 0);
      assert.equal(
        (await Deno.stat(`${wave.workspace}/pipe`)).isFifo,
        true,
        "the pipe is still a pipe",
      );
    }));
}
