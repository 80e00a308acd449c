/**
 * A `Read` deny rule against the tools that write, and against wave's file
 * history, through the real CLI: a writer reads what it replaces (its
 * diff, its size, the version history keeps), so a rule that keeps a file
 * from being read keeps it from being written; the history's copies of
 * covered files, and their names, are kept from every tool; a restore
 * does not read through a link.
 */

import assert from "node:assert/strict";
import { startWave, type WaveProcess } from "../_wave.ts";
import { tempDir } from "../_temp.ts";

const RULES = ["--disallowedTools", "Read(secrets/**) Read(*.env)"];
const KEY = "alpha\nSECRET-KEY-1\nomega\n";
const ENV = "DB=SECRET-ENV-2\n";

/** wave in `toolset` under bypassPermissions, with `rules`. */
function start(
  toolset: string,
  options: { workspace?: string; waveHome?: string; rules?: string[] } = {},
): Promise<WaveProcess> {
  return startWave({
    workspace: options.workspace,
    waveHome: options.waveHome,
    args: [
      "--toolset",
      toolset,
      ...(options.rules ?? RULES),
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
    ],
  });
}

async function plant(ws: string): Promise<void> {
  await Deno.mkdir(`${ws}/secrets`, { recursive: true });
  await Deno.writeTextFile(`${ws}/secrets/key.txt`, KEY);
  await Deno.writeTextFile(`${ws}/prod.env`, ENV);
}

/** The files under WAVE_HOME's history, relative to it. */
function historyFiles(waveHome: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory) walk(`${dir}/${e.name}`);
      else out.push(`${dir}/${e.name}`);
    }
  };
  walk(`${waveHome}/history`);
  return out;
}

Deno.test("deny writers: a Read rule binds every tool that writes a covered path (sata edit and write, devflow patch_file, write_file and append_file, files edit_file, wave Write): refused with the rule's words whether the file exists or not, nothing of it shown, the file unchanged, nothing kept in history", async () => {
  const calls: [string, string, Record<string, unknown>, string][] = [
    [
      "sata",
      "edit",
      { Path: "secrets/key.txt", Old: "SECRET", New: "X" },
      "secrets/**",
    ],
    ["sata", "write", { Path: "prod.env", Content: "new\n" }, "*.env"],
    ["sata", "write", { Path: "secrets/none.txt", Content: "x" }, "secrets/**"],
    ["devflow", "patch_file", {
      path: "secrets/key.txt",
      start_line: 2,
      end_line: 2,
      new_text: "x\n",
    }, "secrets/**"],
    ["devflow", "write_file", { path: "prod.env", content: "x" }, "*.env"],
    ["devflow", "append_file", { path: "prod.env", content: "x" }, "*.env"],
    [
      "files",
      "edit_file",
      { path: "secrets/key.txt", mode: "remove" },
      "secrets/**",
    ],
    ["files", "edit_file", {
      path: "prod.env",
      mode: "write",
      content: "x",
    }, "*.env"],
    ["wave", "Write", { file_path: "prod.env", content: "x" }, "*.env"],
  ];
  for (const toolset of ["sata", "devflow", "files", "wave"]) {
    const wave = await start(toolset);
    try {
      await plant(wave.workspace);
      for (const [set, tool, input, rule] of calls) {
        if (set !== toolset) continue;
        const answer = await wave.callTool(tool, input);
        assert.equal(
          answer.is_error,
          true,
          `${tool} ${JSON.stringify(answer)}`,
        );
        assert.equal(
          answer.content,
          `${tool} was refused: the rule Read(${rule}) disallows it (--disallowedTools).`,
        );
      }
      assert.equal(
        await Deno.readTextFile(`${wave.workspace}/secrets/key.txt`),
        KEY,
      );
      assert.equal(await Deno.readTextFile(`${wave.workspace}/prod.env`), ENV);
      await assert.rejects(Deno.stat(`${wave.workspace}/secrets/none.txt`));
      assert.deepEqual(
        historyFiles(wave.waveHome).filter((f) => f.includes("/blobs/")),
        [],
      );
    } finally {
      await wave.kill();
    }
  }
});

Deno.test("deny writers: wave's file history is covered while a Read rule is set: a covered file's version kept by a session without the rule is not read, searched, listed, restored or named, in any toolset", async () => {
  const ws = await Deno.realPath(await tempDir());
  const waveHome = await Deno.realPath(await tempDir());
  await plant(ws);
  // A session without the rule changes both files: history keeps them.
  const before = await start("files", { workspace: ws, waveHome, rules: [] });
  let secretVersion: string;
  let task: string;
  try {
    const removed = await before.callTool("edit_file", {
      path: "secrets/key.txt",
      mode: "remove",
    });
    assert.equal(removed.is_error, false, JSON.stringify(removed));
    secretVersion = removed.structured.version_id;
    const notes = await before.callTool("edit_file", {
      path: "public.txt",
      mode: "write",
      content: "made\n",
    });
    assert.equal(notes.is_error, false, JSON.stringify(notes));
    const listed = await before.callTool("file_history", {});
    task = listed.structured.versions[0].task_id;
  } finally {
    await before.kill();
  }
  const blob = historyFiles(waveHome).find((f) =>
    f.includes("/blobs/") && Deno.readTextFileSync(f) === KEY
  );
  assert.ok(blob, "history kept the file's content");
  const history = `${waveHome}/history`;
  const refusal = (tool: string) =>
    `${tool} was refused: wave's file history (${history}) keeps copies of files, so no tool reads it while a Read deny rule is set (--disallowedTools).`;

  const wave = await start("wave", { workspace: ws, waveHome });
  try {
    const read = await wave.callTool("Read", { file_path: blob });
    assert.equal(read.content, refusal("Read"));
    const grep = await wave.callTool("Grep", {
      pattern: "SECRET",
      path: history,
    });
    assert.equal(grep.content, refusal("Grep"));
    const home = await wave.callTool("Grep", {
      pattern: "SECRET",
      path: waveHome,
      output_mode: "content",
    });
    assert.ok(
      !JSON.stringify(home.content).includes("SECRET-KEY"),
      home.content,
    );
  } finally {
    await wave.kill();
  }
  const files = await start("files", { workspace: ws, waveHome });
  try {
    const search = await files.callTool("find_files", {
      queries: [{ dir: waveHome, pattern: "SECRET" }],
      output: "content",
    });
    assert.ok(
      !JSON.stringify(search).includes("SECRET-KEY"),
      JSON.stringify(search.content),
    );
    const listed = await files.callTool("file_history", {});
    const text = JSON.stringify(listed.content);
    assert.match(text, /public\.txt/);
    assert.ok(!text.includes("secrets"), text);
    const restore = await files.callTool("edit_file", {
      mode: "restore",
      version_id: secretVersion,
    });
    assert.equal(
      restore.content,
      `There is no version ${secretVersion} in this workspace's file history; file_history lists them.`,
    );
    const whole = await files.callTool("edit_file", {
      mode: "restore",
      task_id: task,
    });
    assert.equal(
      whole.content,
      `Task ${task} also changed files a Read deny rule covers, so it is not restored as a whole; restore the others by version_id (file_history lists them).`,
    );
    await assert.rejects(Deno.stat(`${ws}/secrets/key.txt`));
    assert.equal(await Deno.readTextFile(`${ws}/public.txt`), "made\n");
  } finally {
    await files.kill();
  }
});

Deno.test("deny writers: a restore over what is a symbolic link now is refused, and keeps no copy of what the link points at (a link to a covered file put in place of a file history knows)", async () => {
  const ws = await Deno.realPath(await tempDir());
  const waveHome = await Deno.realPath(await tempDir());
  await plant(ws);
  const first = await start("files", { workspace: ws, waveHome });
  let version: string;
  try {
    const made = await first.callTool("edit_file", {
      path: "pub.txt",
      mode: "write",
      content: "hello\n",
    });
    assert.equal(made.is_error, false, JSON.stringify(made));
    const listed = await first.callTool("file_history", { path: "pub.txt" });
    version = listed.structured.versions[0].version_id;
  } finally {
    await first.kill();
  }
  // What a command could do between two sessions.
  await Deno.remove(`${ws}/pub.txt`);
  await Deno.symlink("prod.env", `${ws}/pub.txt`);
  const blobsBefore = historyFiles(waveHome).filter((f) =>
    f.includes("/blobs/")
  );
  const second = await start("files", { workspace: ws, waveHome });
  try {
    const restore = await second.callTool("edit_file", {
      mode: "restore",
      version_id: version,
    });
    assert.equal(restore.is_error, true);
    assert.equal(
      restore.content,
      "pub.txt is a symbolic link now, which file history does not keep, so it was not restored over; remove the link first. Nothing was restored.",
    );
    assert.equal((await Deno.lstat(`${ws}/pub.txt`)).isSymlink, true);
    assert.deepEqual(
      historyFiles(waveHome).filter((f) => f.includes("/blobs/")),
      blobsBefore,
    );
    for (const f of historyFiles(waveHome)) {
      assert.ok(!Deno.readTextFileSync(f).includes("SECRET-ENV"), f);
    }
  } finally {
    await second.kill();
  }
});
