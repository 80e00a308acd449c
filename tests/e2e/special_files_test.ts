/**
 * End-to-end: a named pipe in the workspace. Opening one for reading waits
 * for a writer that never comes, so every file tool of every toolset must
 * refuse it at once, and the session must go on (and end on EOF) as usual,
 * also when the pipe is swapped in between a tool's check and its open.
 */

import assert from "node:assert/strict";
import { withWave } from "../_wave.ts";
import { exchangeInLoop } from "./_exchange.ts";
import { TINY_PNG } from "../_images.ts";

const FIFO_REFUSED =
  /pipe is a named pipe \(FIFO\), not a regular file; file tools do not open it/;
/** The refusal of a special file, of whichever name it is under by then (relative to the workspace). */
/**
 * The refusals of a swap: the special file opened, or (the check having
 * judged the special file, the open finding the file back) a file that is
 * not the one judged.
 */
const REFUSED_ANYWHERE =
  /(^|\W)(f|other) (is (a named pipe \(FIFO\)|a socket|a socket or a device with no driver), not a regular file; file tools do not open it|changed while the call ran: another file was put under its name after the check, so it was not read\. Try again\.)/;

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
 * pipe swapped in. A search of one file is among them: wave opens the file
 * and feeds it to ripgrep, which would wait on a pipe it opened itself.
 */
const READS: Record<string, [string, Record<string, unknown>][]> = {
  wave: [["Read", { file_path: "f" }], ["Grep", {
    pattern: "fine",
    path: "f",
  }]],
  sata: [["read", { Path: "f" }], ["grep", { Pattern: "fine", Path: "f" }]],
  devflow: [
    ["read_file", { path: "f" }],
    ["file_info", { path: "f" }],
    ["search_in_file", { path: "f", pattern: "fine" }],
  ],
  files: [["read_files", { files: [{ path: "f" }] }]],
};

/** What is swapped in for the file: a named pipe, or a socket (which cannot be opened at all). */
const PARTNERS = {
  "a named pipe": async (path: string) => {
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    assert.equal(made.code, 0);
    return () => {};
  },
  "a socket": (path: string) => {
    const listener = Deno.listen({ transport: "unix", path });
    return Promise.resolve(() => listener.close());
  },
};

for (const [toolset, calls] of Object.entries(READS)) {
  for (const [partner, make] of Object.entries(PARTNERS)) {
    Deno.test(`${toolset} file tools: ${partner} swapped in after the check is refused at once, never waited on, and named as the tool names paths`, () =>
      withWave({ args: ["--toolset", toolset] }, async (wave) => {
        wave.put("f", "fine\n");
        const unmake = await make(`${wave.workspace}/other`);
        // Exchanges the file and the other in a loop: a call's check and
        // its open meet different things about half the time.
        const racer = exchangeInLoop(
          `${wave.workspace}/f`,
          `${wave.workspace}/other`,
        );
        const seen = { read: 0, refused: 0, other: [] as string[] };
        try {
          for (let i = 0; i < 40; i++) {
            for (const [tool, input] of calls) {
              // A call waiting on a pipe would time out here (20 s).
              const result = await wave.callTool(tool, input);
              const text = String(result.content);
              // read_files reports a file it cannot read inside its result.
              if (
                REFUSED_ANYWHERE.test(text) &&
                !text.includes(`${wave.workspace}/`)
              ) {
                seen.refused++;
              } else if (!result.is_error) seen.read++;
              else seen.other.push(`${tool}: ${text}`);
            }
          }
        } finally {
          await racer.stop();
          unmake();
        }
        assert.deepEqual(seen.other, []);
        // The race ran both ways.
        assert.ok(seen.read > 0, "no call read the file");
        assert.ok(seen.refused > 0, `no call met ${partner}`);
        assert.equal((await wave.finish()).code, 0);
      }));
  }
}

/**
 * The first reads of each toolset, raced with an image: a tool tells a
 * file's kind from its first bytes, then reads it. Were the first bytes
 * taken from the pipe (nothing: text), the image read after would come
 * back as lines of text.
 */
const IMAGE_READS: Record<
  string,
  [string, (i: number) => Record<string, unknown>]
> = {
  // Another range each time: a Read of an unchanged file in the range it
  // read before only says so.
  wave: ["Read", (i) => ({ file_path: "f", limit: 100 + i })],
  sata: ["read", () => ({ Path: "f" })],
  devflow: ["read_file", () => ({ path: "f" })],
  files: ["read_files", () => ({ files: [{ path: "f" }] })],
};

for (const [toolset, [tool, input]] of Object.entries(IMAGE_READS)) {
  Deno.test(`${toolset} ${tool}: an image raced with a named pipe is read as the image or refused, never as text from the pipe's kind`, () =>
    withWave({ args: ["--toolset", toolset] }, async (wave) => {
      wave.put("f", TINY_PNG);
      await PARTNERS["a named pipe"](`${wave.workspace}/other`);
      const racer = exchangeInLoop(
        `${wave.workspace}/f`,
        `${wave.workspace}/other`,
      );
      const seen = { image: 0, refused: 0, other: [] as string[] };
      try {
        for (let i = 0; i < 60; i++) {
          const result = await wave.callTool(tool, input(i));
          const text = JSON.stringify(result.content);
          // The PNG's chunk names show only when its bytes come back as
          // text; each tool that knows it for the image names its type.
          if (text.includes("IHDR")) seen.other.push(text.slice(0, 200));
          else if (REFUSED_ANYWHERE.test(text)) seen.refused++;
          else if (text.includes("image/png")) seen.image++;
          else seen.other.push(text.slice(0, 200));
        }
      } finally {
        await racer.stop();
      }
      assert.deepEqual(seen.other, []);
      assert.ok(seen.image > 0, "no call met the image");
      assert.ok(seen.refused > 0, "no call met the pipe");
      assert.equal((await wave.finish()).code, 0);
    }));
}
