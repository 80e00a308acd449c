/**
 * End-to-end: the smaller leaks of issue 12, tried as a model would try
 * them, through `call_tool` against the real CLI with approvals denied:
 * the session's spill files (read, never written), WAVE_HOME inside the
 * workspace, a hard link to a secret, and a listing through a symlink.
 */

import assert from "node:assert/strict";
import { type Message, type WaveProcess, withWave as run } from "../_wave.ts";
import { tempDir } from "../_temp.ts";

const withWave = (
  fn: (wave: WaveProcess) => Promise<void>,
  options: Parameters<typeof run>[0] = {},
) =>
  run({ ...options, args: ["--approvals", "deny", ...options.args ?? []] }, fn);

/** The answer's refusal reason (a call the parent's approval was needed for). */
function refusal(answer: Message): string {
  assert.equal(answer.is_error, true, JSON.stringify(answer));
  assert.equal(answer.structured.type, "permission_denied");
  return answer.structured.reason;
}

Deno.test("e2e leaks: the session's spill files may be read without an approval, never written", () =>
  withWave(async (wave) => {
    const home = await Deno.realPath(wave.waveHome);
    const spill = `${home}/spill/${wave.messages[0].session_id}`;
    await Deno.mkdir(spill, { recursive: true });
    await Deno.writeTextFile(`${spill}/out.txt`, "the whole output\n");
    const read = await wave.callTool("Read", { file_path: `${spill}/out.txt` });
    assert.equal(read.content, "     1\tthe whole output");
    for (const file of [`${spill}/out.txt`, `${spill}/forged.txt`]) {
      const write = await wave.callTool("Write", {
        file_path: file,
        content: "forged\n",
      });
      assert.equal(
        refusal(write),
        `path outside the workspace: ${file}`,
      );
    }
    assert.equal(
      await Deno.readTextFile(`${spill}/out.txt`),
      "the whole output\n",
    );
    await assert.rejects(
      Deno.stat(`${spill}/forged.txt`),
      Deno.errors.NotFound,
    );
  }));

Deno.test("e2e leaks: WAVE_HOME inside the workspace is off limits: no search finds it, no tool reads or writes it", async () => {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-ws-home-" }),
  );
  const home = `${workspace}/.wave`;
  await Deno.mkdir(`${home}/sessions`, { recursive: true });
  const other = `${home}/sessions/other-session.jsonl`;
  await Deno.writeTextFile(other, '{"secret":"transcript needle"}\n');
  await Deno.writeTextFile(`${workspace}/notes.txt`, "a needle of mine\n");
  await withWave(async (wave) => {
    const grep = await wave.callTool("Grep", {
      pattern: "needle",
      glob: "**/*",
    });
    assert.equal(grep.content, "Found 1 file\nnotes.txt");
    const hidden = await wave.callTool("Grep", {
      pattern: "needle",
      "-i": true,
      glob: "*.jsonl",
    });
    assert.equal(hidden.is_error, true);
    assert.match(hidden.content, /^No file was searched/);
    const glob = await wave.callTool("Glob", { pattern: "**/*" });
    assert.equal(glob.content, "notes.txt");
    const read = await wave.callTool("Read", {
      file_path: ".wave/sessions/other-session.jsonl",
    });
    assert.equal(refusal(read), `wave's own state (WAVE_HOME): ${other}`);
    const write = await wave.callTool("Write", {
      file_path: other,
      content: '{"forged":true}\n',
    });
    assert.equal(refusal(write), `wave's own state (WAVE_HOME): ${other}`);
    const search = await wave.callTool("Grep", {
      pattern: "needle",
      path: ".wave",
    });
    assert.equal(
      refusal(search),
      `wave's own state (WAVE_HOME): ${home}`,
    );
    assert.equal(
      await Deno.readTextFile(other),
      '{"secret":"transcript needle"}\n',
    );
  }, { workspace, waveHome: home });
});

Deno.test("e2e leaks: a hard link to a sensitive file is that file: it needs the approval, and no search shows it", () =>
  withWave(async (wave) => {
    const ws = await Deno.realPath(wave.workspace);
    wave.put(".env", "API_KEY=hunter2\n");
    await Deno.link(`${ws}/.env`, `${ws}/notes.txt`);
    await Deno.mkdir(`${ws}/.ssh`);
    wave.put(".ssh/id_ed25519", "KEY hunter2\n");
    await Deno.mkdir(`${ws}/docs`);
    await Deno.link(`${ws}/.ssh/id_ed25519`, `${ws}/docs/readme.txt`);
    wave.put("plain.txt", "hunter2 is a password people use\n");
    await Deno.link(`${ws}/plain.txt`, `${ws}/plain-too.txt`);

    const read = await wave.callTool("Read", { file_path: "notes.txt" });
    assert.equal(
      refusal(read),
      `sensitive file (a hard link to .env): ${ws}/notes.txt`,
    );
    const deep = await wave.callTool("Read", { file_path: "docs/readme.txt" });
    assert.equal(
      refusal(deep),
      `sensitive file (a hard link to .ssh/id_ed25519): ${ws}/docs/readme.txt`,
    );
    const grep = await wave.callTool("Grep", {
      pattern: "hunter2",
      output_mode: "content",
    });
    assert.equal(
      grep.content,
      "plain-too.txt:1:hunter2 is a password people use\nplain.txt:1:hunter2 is a password people use",
    );
    // An ordinary file with a second name is an ordinary file.
    const plain = await wave.callTool("Read", { file_path: "plain-too.txt" });
    assert.equal(plain.content, "     1\thunter2 is a password people use");
  }));

Deno.test("e2e leaks: list_directory shows no size or kind of what a symlink leads to outside", async () => {
  const outside = await Deno.realPath(await tempDir());
  await Deno.writeTextFile(`${outside}/secret.bin`, "x".repeat(12_345));
  await withWave(async (wave) => {
    const ws = await Deno.realPath(wave.workspace);
    wave.put("src/a.txt", "12345");
    await Deno.symlink(`${outside}/secret.bin`, `${ws}/src/out-file`);
    await Deno.symlink(outside, `${ws}/src/out-dir`);
    await Deno.symlink(`${ws}/src/a.txt`, `${ws}/src/in-file`);
    const r = await wave.callTool("list_directory", {
      path: ".",
      recursive: true,
    });
    assert.equal(
      r.content,
      [
        "src/",
        "  src/a.txt (5 B)",
        "  src/in-file (5 B)",
        "  src/out-dir (0 B)",
        "  src/out-file (0 B)",
      ].join("\n"),
    );
  }, { args: ["--toolset", "devflow"] });
});
