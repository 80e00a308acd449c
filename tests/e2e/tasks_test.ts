/**
 * End-to-end: spec 003's task tools, their storage shared by OS processes,
 * the task list events a UI needs, and reminders counted against the mock
 * model server.
 */

import assert from "node:assert/strict";
import { MockModel } from "../_mock_model.ts";
import { type Message, startWave, type WaveProcess } from "../_wave.ts";
import { TOOLSET_NAMES } from "../../tools/toolsets.ts";
import { tempDir } from "../_temp.ts";

Deno.test("003 边界 并发创建: 8 OS processes × 25 TaskCreate on one list → ids 1..200, no duplicate, no gap", async () => {
  const waveHome = await tempDir();
  const waves = await Promise.all(
    Array.from(
      { length: 8 },
      () => startWave({ waveHome, args: ["--task-list", "shared"] }),
    ),
  );
  try {
    const created = await Promise.all(waves.map(async (wave, p) => {
      const calls = Array.from(
        { length: 25 },
        (_, i) =>
          wave.callTool("TaskCreate", {
            subject: `p${p} t${i}`,
            description: "",
          }),
      );
      return (await Promise.all(calls)).map((r) => {
        assert.equal(r.is_error, false, r.content);
        return Number(r.structured.task.id);
      });
    }));
    const ids = created.flat().sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 200 }, (_, i) => i + 1));
    const files = [...Deno.readDirSync(`${waveHome}/tasks/shared`)].map((e) =>
      e.name
    ).filter((n) => n.endsWith(".json"));
    assert.equal(files.length, 200);
  } finally {
    await Promise.all(waves.map((w) => w.kill()));
  }
});

Deno.test("003 列表 UI #1, #2: system/task_list after every change, tasks in id order, visible until all are completed", async () => {
  const wave = await startWave();
  try {
    assert.ok(
      !wave.messages.some((m) => m.subtype === "task_list"),
      "an empty list is not announced at start",
    );
    await wave.callTool("TaskCreate", { subject: "first", description: "" });
    await wave.callTool("TaskCreate", { subject: "second", description: "" });
    await wave.callTool("TaskUpdate", { taskId: "1", status: "completed" });
    await wave.callTool("TaskList", {});
    await wave.callTool("TaskUpdate", { taskId: "2", status: "completed" });
    const events = wave.messages.filter((m) => m.subtype === "task_list");
    assert.equal(events.length, 4, "one per change; TaskList changes nothing");
    assert.deepEqual(events[1].tasks, [
      { id: "1", subject: "first", status: "pending" },
      { id: "2", subject: "second", status: "pending" },
    ]);
    assert.deepEqual(events.map((e) => e.visible), [true, true, true, false]);
    const answer = await wave.request({ subtype: "get_tasks" });
    assert.deepEqual(answer.response, {
      task_list_id: wave.messages[0].session_id,
      tasks: [{ id: "1", subject: "first", status: "completed" }, {
        id: "2",
        subject: "second",
        status: "completed",
      }],
      visible: false,
    });
  } finally {
    await wave.kill();
  }
});

Deno.test("003 列表 UI #3: a resumed list whose tasks are all completed says visible: false in its very first event", async () => {
  const waveHome = await tempDir();
  const first = await startWave({
    waveHome,
    args: ["--task-list", "done-list"],
  });
  await first.callTool("TaskCreate", { subject: "only task", description: "" });
  await first.callTool("TaskUpdate", { taskId: "1", status: "completed" });
  await first.finish();
  const second = await startWave({
    waveHome,
    args: ["--task-list", "done-list"],
  });
  try {
    const event = await second.waitFor((m) => m.subtype === "task_list");
    assert.equal(second.messages.indexOf(event), 1, "right after system/init");
    assert.equal(event.visible, false);
    assert.deepEqual(event.tasks, [{
      id: "1",
      subject: "only task",
      status: "completed",
    }]);
    assert.equal(
      second.messages.filter((m) => m.subtype === "task_list").length,
      1,
    );
  } finally {
    await second.kill();
  }
});

Deno.test("003 TodoWrite #1: no toolset has TodoWrite; list_tools proves it", async () => {
  for (const toolset of TOOLSET_NAMES) {
    const wave = await startWave({ args: ["--toolset", toolset] });
    try {
      const listed = await wave.request({ subtype: "list_tools" });
      const names = listed.response.tools.map((t: { name: string }) => t.name);
      assert.ok(!names.includes("TodoWrite"), toolset);
      if (toolset === "wave") {
        for (
          const name of ["TaskCreate", "TaskGet", "TaskUpdate", "TaskList"]
        ) assert.ok(names.includes(name), name);
      }
    } finally {
      await wave.kill();
    }
  }
});

Deno.test("003 边界: an unwritable task store is a tool error, and the runtime keeps serving", async () => {
  const waveHome = await tempDir();
  await Deno.writeTextFile(`${waveHome}/tasks`, "not a directory");
  const wave = await startWave({ waveHome });
  try {
    const r = await wave.callTool("TaskCreate", {
      subject: "x",
      description: "",
    });
    assert.equal(r.is_error, true);
    assert.match(r.content, /^The task list could not be saved/);
    const still = await wave.callTool("Glob", { pattern: "*" });
    assert.equal(still.is_error, false);
  } finally {
    await wave.kill();
  }
});

/** Runs a model turn whose replies each call `tools[i]`, then ends; returns the requests the model got. */
async function turnsWithMock(
  tools: { name: string; input: Record<string, unknown> }[][],
  options: { args?: string[]; waveHome?: string; workspace?: string } = {},
): Promise<{ requests: Message[][]; wave: WaveProcess; mock: MockModel }> {
  const mock = new MockModel();
  for (const calls of tools) {
    mock.script({
      reply: calls.map((c) => ({
        type: "tool_use" as const,
        name: c.name,
        input: c.input,
      })),
    });
  }
  mock.script({ reply: [{ type: "text", text: "done" }] });
  const wave = await startWave({
    args: [
      "--model",
      "anthropic:m",
      "--base-url",
      mock.url,
      "--max-turns",
      "100",
      ...(options.args ?? []),
    ],
    env: { ANTHROPIC_API_KEY: "k", PATH: Deno.env.get("PATH")! },
    waveHome: options.waveHome,
    workspace: options.workspace,
  });
  await wave.send({ type: "user", message: { role: "user", content: "work" } });
  const result = await wave.waitFor((m) => m.type === "result", 60_000);
  assert.equal(result.subtype, "success", result.result);
  return {
    requests: mock.requests.map((r) => r.body.messages as Message[]),
    wave,
    mock,
  };
}

/** The reminder text in a request's last message, if there is one. */
function reminderIn(messages: Message[]): string | undefined {
  const last = messages.at(-1)!;
  const blocks = typeof last.content === "string"
    ? [{ type: "text", text: last.content }]
    : last.content;
  return (blocks as { type: string; text?: string }[]).find((b) =>
    b.type === "text" && b.text?.includes("<task-reminder>")
  )
    ?.text;
}

const glob = { name: "Glob", input: { pattern: "*" } };

Deno.test("003 提醒 #1: after 10 assistant turns without TaskCreate/TaskUpdate the next request carries the reminder, recorded as isMeta", async () => {
  const waveHome = await tempDir();
  const { requests, wave, mock } = await turnsWithMock(
    [
      [{ name: "TaskCreate", input: { subject: "Audit", description: "" } }],
      ...Array(11).fill([glob]),
    ],
    { waveHome },
  );
  try {
    // Request 1 is the user's; reply 1 created a task; replies 2..11 are ten turns without.
    const withReminder = requests.map((r, i) => reminderIn(r) ? i + 1 : 0)
      .filter(Boolean);
    assert.deepEqual(withReminder, [12]);
    const text = reminderIn(requests[11])!;
    assert.match(text, /do not mention it to the user/);
    assert.ok(text.includes("#1 [pending] Audit"));
    const transcript = (await Deno.readTextFile(
      `${waveHome}/sessions/${wave.messages[0].session_id}.jsonl`,
    ))
      .trim().split("\n").map((l) => JSON.parse(l));
    const meta = transcript.filter((e) => e.isMeta);
    assert.equal(meta.length, 1);
    assert.equal(meta[0].type, "user");
    assert.match(meta[0].message.content, /^<task-reminder>/);
  } finally {
    await wave.kill();
    await mock.close();
  }
});

Deno.test("003 提醒 #5, #6: TaskUpdate resets the count, TaskList and TaskGet do not; an empty list still gets the reminder", async () => {
  const { requests, wave, mock } = await turnsWithMock([
    ...Array(5).fill([{ name: "TaskList", input: {} }]),
    [{ name: "TaskGet", input: { taskId: "1" } }],
    ...Array(4).fill([glob]),
    [glob],
    [glob],
  ]);
  try {
    // Ten replies without task management (TaskList/TaskGet do not count): request 11 reminds.
    assert.ok(reminderIn(requests[10]), "request 11 carries the reminder");
    assert.ok(
      !reminderIn(requests[10])!.includes("The current tasks"),
      "empty list: none listed",
    );
  } finally {
    await wave.kill();
    await mock.close();
  }
  const second = await turnsWithMock([
    ...Array(5).fill([glob]),
    [{ name: "TaskCreate", input: { subject: "a", description: "" } }],
    ...Array(9).fill([glob]),
  ]);
  try {
    const reminded = second.requests.map((r, i) => reminderIn(r) ? i + 1 : 0)
      .filter(Boolean);
    assert.deepEqual(
      reminded,
      [],
      "TaskCreate at reply 6 reset the count: only 9 turns since",
    );
  } finally {
    await second.wave.kill();
    await second.mock.close();
  }
});

Deno.test("003 提醒 边界: without TaskCreate/TaskUpdate in the toolset, no reminder, ever", async () => {
  const { requests, wave, mock } = await turnsWithMock(
    Array(15).fill([{ name: "list", input: {} }]),
    {
      args: ["--toolset", "sata"],
    },
  );
  try {
    assert.equal(requests.length, 16);
    assert.ok(requests.every((r) => !reminderIn(r)));
  } finally {
    await wave.kill();
    await mock.close();
  }
});

Deno.test("003 提醒 #1: the count survives a resume (the transcript has the turns)", async () => {
  const waveHome = await tempDir();
  const workspace = await Deno.realPath(await tempDir());
  const first = await turnsWithMock(Array(7).fill([glob]), {
    waveHome,
    workspace,
  });
  const sessionId = first.wave.messages[0].session_id;
  await first.wave.kill();
  await first.mock.close();
  // 8 assistant turns so far (7 tool turns and the final answer); 2 more make 10.
  const second = await turnsWithMock([[glob], [glob]], {
    waveHome,
    workspace,
    args: ["--resume", sessionId],
  });
  try {
    const reminded = second.requests.map((r, i) => reminderIn(r) ? i + 1 : 0)
      .filter(Boolean);
    assert.deepEqual(reminded, [3]);
  } finally {
    await second.wave.kill();
    await second.mock.close();
  }
});
