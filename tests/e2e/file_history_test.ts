/**
 * End-to-end: spec 004's file_history through `call_tool` against the real
 * CLI (`--toolset files`), in a fixed time zone (TZ=Asia/Taipei, UTC+8).
 */

import assert from "node:assert/strict";
import { type WaveProcess, withWave } from "../_wave.ts";
import { listVersions } from "../../tools/_core/history.ts";
import { tempDirSync } from "../_temp.ts";
import { loadContentHash } from "../../tools/_core/content_hash.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const files = (
  fn: (wave: WaveProcess) => Promise<void>,
  options: { workspace?: string; waveHome?: string } = {},
) =>
  withWave({
    args: ["--toolset", "files"],
    env: { TZ: "Asia/Taipei" },
    ...options,
  }, fn);

const history = (wave: WaveProcess, input: Record<string, unknown>) =>
  wave.callTool("file_history", input);
const versionsOf = (wave: WaveProcess) =>
  listVersions({
    workspace: Deno.realPathSync(wave.workspace),
    waveHome: wave.waveHome,
  });

/** A UTC ISO time as Taipei's clock shows it (UTC+8, no daylight saving). */
function taipei(iso: string): string {
  const d = new Date(Date.parse(iso) + 8 * 3600_000);
  return d.toISOString().slice(0, 19).replace("T", " ");
}

Deno.test("e2e 004 file_history: list gives versions newest first, each with when (local time), tool, task and goal, and size", () =>
  files(async (wave) => {
    await wave.request({
      subtype: "set_task",
      task_id: "T1",
      goal: "write notes",
    });
    await wave.callTool("edit_file", { path: "n.txt", content: "first\n" });
    await wave.callTool("read_files", { files: [{ path: "n.txt" }] });
    await wave.callTool("edit_file", { path: "n.txt", content: "second\n" });
    const [v1, v2] = await versionsOf(wave);
    const r = await history(wave, { mode: "list" });
    assert.equal(r.is_error, false, r.content);
    assert.equal(
      r.content,
      `2 versions (newest first):\n${v2.id}  ${
        taipei(v2.at)
      }  n.txt  before edit_file  task T1 "write notes"  6 B\n${v1.id}  ${
        taipei(v1.at)
      }  n.txt  before edit_file  task T1 "write notes"  (did not exist)\n`,
    );
    assert.deepEqual(r.structured.versions[0], {
      version_id: v2.id,
      time: taipei(v2.at),
      path: "n.txt",
      tool: "edit_file",
      task_id: "T1",
      goal: "write notes",
      existed: true,
      size: 6,
    });
    // mode defaults to list
    assert.equal((await history(wave, {})).content, r.content);
    // What it lists is what edit_file restores from.
    const back = await wave.callTool("edit_file", {
      mode: "restore",
      version_id: r.structured.versions[0].version_id,
    });
    assert.equal(back.is_error, false, back.content);
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/n.txt`),
      "first\n",
    );
  }));

Deno.test("e2e 004 file_history: list filters by path, task_id (current too), from / to in local time, and limit (at most 24)", () =>
  files(async (wave) => {
    await wave.request({ subtype: "set_task", task_id: "A", goal: "" });
    await wave.callTool("edit_file", { path: "a.txt", content: "a" });
    await wave.request({ subtype: "set_task", task_id: "B", goal: "" });
    await wave.callTool("edit_file", { path: "b.txt", content: "b" });
    const byPath = await history(wave, { path: "a.txt" });
    assert.deepEqual(
      byPath.structured.versions.map((v: { path: string }) => v.path),
      ["a.txt"],
    );
    const byTask = await history(wave, { task_id: "A" });
    assert.deepEqual(
      byTask.structured.versions.map((v: { task_id: string }) => v.task_id),
      ["A"],
    );
    const current = await history(wave, { task_id: "current" });
    assert.deepEqual(
      current.structured.versions.map((v: { task_id: string }) => v.task_id),
      ["B"],
    );
    const [va] = await versionsOf(wave);
    const local = taipei(va.at); // "YYYY-MM-DD HH:MM:SS"
    const minute = local.slice(0, 16);
    const both = await history(wave, { from: minute, to: minute });
    assert.ok(both.structured.total >= 1);
    const past = await history(wave, { to: "2000-01-01" });
    assert.equal(past.content, "No versions match.");
    const future = await history(wave, { from: "2999-01-01T00:00:00Z" });
    assert.equal(future.structured.total, 0);
    // ISO with the offset, the same instant
    const iso = await history(wave, { from: va.at, to: va.at, path: "a.txt" });
    assert.equal(iso.structured.total, 1);
    const bad = await history(wave, { from: "yesterday" });
    assert.equal(bad.is_error, true);
    assert.equal(
      bad.content,
      'from "yesterday" is not a time: give local time as "YYYY-MM-DD", "YYYY-MM-DD HH:MM" or ISO 8601.',
    );
    const tooMany = await wave.request({
      subtype: "call_tool",
      tool_name: "file_history",
      input: { limit: 25 },
    });
    assert.equal(tooMany.subtype, "error");
    assert.match(tooMany.error, /^invalid input for file_history: limit/);
    const one = await history(wave, { limit: 1 });
    assert.equal(one.structured.versions.length, 1);
    assert.match(
      one.content,
      /^2 versions, newest 1 shown \(newest first\):\n.*\n\[1 older; narrow with path, task_id, from\/to\]\n$/,
    );
  }));

Deno.test("e2e 004 file_history: list gives at most 24 versions by default", () =>
  files(async (wave) => {
    for (let n = 0; n < 26; n++) {
      await wave.callTool("edit_file", { path: `f${n}.txt`, content: "x" });
    }
    const r = await history(wave, {});
    assert.equal(r.structured.total, 26);
    assert.equal(r.structured.versions.length, 24);
    assert.equal(r.structured.versions[0].path, "f25.txt");
  }));

Deno.test("e2e 004 file_history: read diffs each path's latest recorded version against the disk now", () =>
  files(async (wave) => {
    await wave.callTool("edit_file", { path: "d.txt", content: "one\ntwo\n" });
    await wave.callTool("read_files", { files: [{ path: "d.txt" }] });
    await wave.callTool("edit_file", {
      path: "d.txt",
      targets: [{ old_string: "two", new_string: "TWO" }],
    });
    await wave.callTool("edit_file", { path: "e.txt", content: "e\n" });
    wave.put("e.txt", "e\nby the user\n");
    const [, latest, e] = await versionsOf(wave);
    const r = await history(wave, {
      mode: "read",
      paths: ["d.txt", "e.txt", "none.txt"],
    });
    assert.equal(r.is_error, false, r.content);
    assert.equal(
      r.content,
      `==> d.txt <== latest version ${latest.id} (${
        taipei(latest.at)
      }, before edit_file) against the disk now\n--- d.txt\n+++ d.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n\n` +
        `==> e.txt <== latest version ${e.id} (${
          taipei(e.at)
        }, before edit_file) against the disk now\n(It did not exist then.)\n--- e.txt\n+++ e.txt\n@@ -1,0 +1,2 @@\n+e\n+by the user\n\n` +
        `==> none.txt <==\nNo recorded versions.\n`,
    );
    assert.equal(r.structured.files[0].version_id, latest.id);
  }));

Deno.test("e2e 004 file_history: a later session on the same workspace lists what an earlier one changed", async () => {
  const workspace = tempDirSync();
  const waveHome = tempDirSync();
  await files(async (wave) => {
    await wave.callTool("edit_file", { path: "s.txt", content: "x" });
  }, { workspace, waveHome });
  await files(async (wave) => {
    const r = await history(wave, { path: "s.txt" });
    assert.equal(r.structured.total, 1);
    assert.match(r.structured.versions[0].task_id, /^session-/);
  }, { workspace, waveHome });
});
