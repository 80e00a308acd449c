/**
 * End-to-end: spec 004's history layer under every dialect, and its tasks
 * (a user turn; `control_request` `set_task`; one task per session until
 * then), through the real CLI.
 */

import assert from "node:assert/strict";
import { MockModel } from "../_mock_model.ts";
import { startWave, type WaveProcess, withWave } from "../_wave.ts";
import { listVersions } from "../../tools/_core/history.ts";
import { historyDir } from "../../tools/_core/history_dir.ts";
import { loadContentHash } from "../../tools/_core/content_hash.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const versionsOf = (wave: WaveProcess) =>
  listVersions({
    workspace: Deno.realPathSync(wave.workspace),
    waveHome: wave.waveHome,
  });

Deno.test("e2e 004 history: every writing tool of every dialect records the version before its change, in the parent's set_task task", async () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["wave", "Write", { file_path: "f.txt", content: "new\n" }],
    ["sata", "write", { Path: "f.txt", Content: "new\n" }],
    ["devflow", "write_file", { path: "f.txt", content: "new\n" }],
  ];
  for (const [toolset, tool, input] of cases) {
    await withWave({ args: ["--toolset", toolset] }, async (wave) => {
      const sessionId = wave.messages[0].session_id;
      await wave.callTool(tool, input);
      const set = await wave.request({
        subtype: "set_task",
        task_id: "fix-1",
        goal: "Fix the login bug",
      });
      assert.deepEqual(set.response, {
        task_id: "fix-1",
        goal: "Fix the login bug",
      });
      wave.put("f.txt", "old\n");
      const read = toolset === "wave"
        ? "Read"
        : toolset === "sata"
        ? "read"
        : "read_file";
      await wave.callTool(
        read,
        toolset === "wave"
          ? { file_path: "f.txt" }
          : toolset === "sata"
          ? { Path: "f.txt" }
          : { path: "f.txt" },
      );
      const r = await wave.callTool(tool, input);
      assert.equal(r.is_error, false, JSON.stringify(r));
      const versions = await versionsOf(wave);
      assert.equal(versions.length, 2, toolset);
      const [first, second] = versions;
      assert.equal(first.existed, false);
      assert.deepEqual(first.task, { id: `session-${sessionId}`, goal: "" });
      assert.equal(second.existed, true);
      assert.equal(second.tool, tool);
      assert.equal(second.size, 4);
      assert.deepEqual(second.task, { id: "fix-1", goal: "Fix the login bug" });
      assert.equal(second.path, `${Deno.realPathSync(wave.workspace)}/f.txt`);
    });
  }
});

Deno.test("e2e 004 history: set_task cuts the goal to 200 characters and refuses a request without task_id", () =>
  withWave({}, async (wave) => {
    const set = await wave.request({
      subtype: "set_task",
      task_id: "t",
      goal: "g".repeat(300),
    });
    assert.equal(set.response.goal, "g".repeat(200));
    const bad = await wave.request({ subtype: "set_task", goal: "x" });
    assert.equal(bad.subtype, "error");
    assert.match(bad.error, /^invalid set_task request: task_id/);
  }));

Deno.test("e2e 004 history: a user turn is a task; its goal is the message's first line, cut to 200 characters", async () => {
  const mock = new MockModel();
  const wave = await startWave({
    args: ["--model", "anthropic:test-model", "--base-url", mock.url],
    env: {
      ANTHROPIC_API_KEY: "sk-test-0123456789",
      PATH: Deno.env.get("PATH")!,
    },
  });
  try {
    const write = (n: number) => ({
      reply: [{
        type: "tool_use" as const,
        id: `w${n}`,
        name: "Write",
        input: { file_path: `f${n}.txt`, content: "x" },
      }],
    });
    const done = { reply: [{ type: "text" as const, text: "done" }] };
    mock.script(write(1), done, write(2), done);
    const first = "Make f1\nwith more lines after";
    await wave.send({
      type: "user",
      message: { role: "user", content: first },
    });
    await wave.waitFor((m) => m.type === "result");
    const long = "L".repeat(250);
    await wave.send({ type: "user", message: { role: "user", content: long } });
    let results = 0;
    await wave.waitFor((m) => m.type === "result" && ++results === 2);
    await wave.callTool("Write", { file_path: "f3.txt", content: "y" });
    const versions = await versionsOf(wave);
    assert.equal(versions.length, 3);
    const [v1, v2, v3] = versions;
    assert.equal(v1.task.goal, "Make f1");
    assert.match(v1.task.id, /^turn-[0-9a-f-]{36}$/);
    assert.equal(v2.task.goal, "L".repeat(200));
    assert.notEqual(v1.task.id, v2.task.id);
    // After the turns, the parent's calls are the session's task again.
    assert.equal(v3.task.id, `session-${wave.messages[0].session_id}`);
    assert.ok(
      historyDir({
        workspace: Deno.realPathSync(wave.workspace),
        waveHome: wave.waveHome,
      }).startsWith(`${wave.waveHome}/history/`),
    );
  } finally {
    await wave.kill();
    await mock.close();
  }
});
