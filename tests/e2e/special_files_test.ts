/**
 * End-to-end: a named pipe in the workspace. Opening one for reading waits
 * for a writer that never comes, so every file tool of every toolset must
 * refuse it at once, and the session must go on (and end on EOF) as usual,
 * also when the pipe is swapped in between a tool's check and its open.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { withWave } from "../_wave.ts";

const RACER = fileURLToPath(new URL("./_racer.ts", import.meta.url));

const FIFO_REFUSED =
  /pipe is a named pipe \(FIFO\), not a regular file; file tools do not open it/;
/** The refusal, of whichever name the pipe is under by then. */
const FIFO_REFUSED_ANYWHERE =
  /is a named pipe \(FIFO\), not a regular file; file tools do not open it/;

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

/**
 * The calls that read a file in wave, per toolset: each is raced against a
 * pipe swapped in. (A search of one path opens it in ripgrep, which waits
 * on a pipe; the README says so.)
 */
const READS: Record<string, [string, Record<string, unknown>][]> = {
  wave: [["Read", { file_path: "f" }]],
  sata: [["read", { Path: "f" }]],
  devflow: [["read_file", { path: "f" }], ["file_info", { path: "f" }]],
  files: [["read_files", { files: [{ path: "f" }] }]],
};

for (const [toolset, calls] of Object.entries(READS)) {
  Deno.test(`${toolset} file tools: a named pipe swapped in after the check is refused at once, never waited on`, () =>
    withWave({ args: ["--toolset", toolset] }, async (wave) => {
      wave.put("f", "fine\n");
      const mkfifo = await new Deno.Command("mkfifo", {
        args: [`${wave.workspace}/pipe`],
      }).output();
      assert.equal(mkfifo.code, 0);
      // Exchanges the file and the pipe in a loop: a call's check and its
      // open meet different things about half the time.
      const racer = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-ffi",
          RACER,
          `${wave.workspace}/f`,
          `${wave.workspace}/pipe`,
        ],
        stdout: "null",
        stderr: "null",
      }).spawn();
      const seen = { read: 0, refused: 0, other: [] as string[] };
      try {
        for (let i = 0; i < 40; i++) {
          for (const [tool, input] of calls) {
            // A call waiting on the pipe would time out here (20 s).
            const result = await wave.callTool(tool, input);
            const text = String(result.content);
            // read_files reports a file it cannot read inside its result.
            if (FIFO_REFUSED_ANYWHERE.test(text)) {
              seen.refused++;
            } else if (!result.is_error) seen.read++;
            else seen.other.push(`${tool}: ${text}`);
          }
        }
      } finally {
        racer.kill("SIGKILL");
        await racer.status;
      }
      assert.deepEqual(seen.other, []);
      // The race ran both ways.
      assert.ok(seen.read > 0, "no call read the file");
      assert.ok(seen.refused > 0, "no call met the pipe");
      assert.equal((await wave.finish()).code, 0);
    }));
}
