/**
 * End-to-end: the tools' warm-up in idle time after `system/init`
 * (`ToolCalls.prewarm`, the tools' `warmup`) leaves no trace: its scratch
 * directory is gone once it is done, and also when the session ends
 * before it is; the session's workspace and file history are untouched,
 * and the first calls work as they would without it.
 */

import assert from "node:assert/strict";
import { startWave } from "../_wave.ts";
import { waitUntil } from "../_waiting.ts";
import { tempDir } from "../_temp.ts";
import { filesUnder } from "../_files.ts";
import { dirname } from "node:path";

const NOTES = "line 1\nline 2\n";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("e2e warm-up: done in idle time, it leaves no scratch directory, the workspace as it was, and no file history; a first Read then Edit work", async () => {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-ws-warmup-" }),
  );
  await Deno.writeTextFile(`${workspace}/notes.txt`, NOTES);
  const wave = await startWave({ workspace });
  try {
    const home = await Deno.realPath(wave.waveHome);
    const scratch = `${home}/spill/.warmups/${wave.messages[0].session_id}`;
    // The executor makes the directory at start (with the one all
    // sessions' are in, which stays); the warm-up removes it.
    await waitUntil(
      () => exists(dirname(scratch)),
      "the executor makes the scratch directory",
    );
    await waitUntil(
      () => !exists(scratch),
      "the warm-up's scratch directory is removed",
    );
    assert.deepEqual([...Deno.readDirSync(workspace)].map((e) => e.name), [
      "notes.txt",
    ]);
    assert.equal(await Deno.readTextFile(`${workspace}/notes.txt`), NOTES);
    // The executor makes the workspace's history directory at start (for
    // Landlock); the warm-up keeps no version in it.
    assert.deepEqual(filesUnder(`${home}/history`), [], "no file history");
    const read = await wave.callTool("Read", { file_path: "notes.txt" });
    assert.equal(read.is_error, false, JSON.stringify(read));
    const edit = await wave.callTool("Edit", {
      file_path: "notes.txt",
      old_string: "line 1\n",
      new_string: "line one\n",
    });
    assert.equal(edit.is_error, false, JSON.stringify(edit));
    assert.equal(
      await Deno.readTextFile(`${workspace}/notes.txt`),
      "line one\nline 2\n",
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e warm-up: a session whose parent closes stdin at once ends with 0 and leaves no scratch directory", async () => {
  const wave = await startWave();
  const home = await Deno.realPath(wave.waveHome);
  const scratch = `${home}/spill/.warmups/${wave.messages[0].session_id}`;
  const status = await wave.finish();
  assert.equal(status.code, 0);
  assert.equal(exists(scratch), false);
});
