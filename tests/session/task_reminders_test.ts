/**
 * Spec 003's reminders and the system prompt's task advice follow what the
 * tool definitions declare (`emits: ["task_list_changed"]`), not names the
 * session knows.
 */
import assert from "node:assert/strict";
import { TaskStore } from "../../tools/kernel/tasks.ts";
import { builtinRef, TOOLSETS } from "../../tools/toolsets.ts";
import { ToolRegistry } from "../../session/registry.ts";
import { listOf, systemPrompt } from "../../session/system_prompt.ts";
import {
  reminderText,
  TaskReminders,
  type TaskTrackers,
} from "../../session/task_reminders.ts";
import { tempDir } from "../_temp.ts";

function registryOf(toolset: string): Promise<ToolRegistry> {
  return ToolRegistry.load(TOOLSETS[toolset].map(builtinRef));
}

function trackersOf(
  registry: ToolRegistry,
  mode: () => "ask" | "plan" | "agent",
): TaskTrackers {
  const all = new Set(registry.emitters("task_list_changed"));
  return {
    isTracker: (name) => all.has(name),
    bound: () => registry.emitters("task_list_changed", mode()),
  };
}

Deno.test("the tools that change the task list are the ones that declare it: TaskCreate and TaskUpdate, bound from plan mode on", async () => {
  const wave = await registryOf("wave");
  assert.deepEqual(wave.emitters("task_list_changed"), [
    "TaskCreate",
    "TaskUpdate",
  ]);
  assert.deepEqual(wave.emitters("task_list_changed", "ask"), []);
  assert.deepEqual(wave.emitters("task_list_changed", "plan"), [
    "TaskCreate",
    "TaskUpdate",
  ]);
  for (const toolset of ["sata", "devflow"]) {
    assert.deepEqual(
      (await registryOf(toolset)).emitters("task_list_changed"),
      [],
      toolset,
    );
  }
});

Deno.test("003 提醒: counters reset on TaskCreate/TaskUpdate only; due after 10 turns, then every 10", async () => {
  const store = new TaskStore(await tempDir(), "r");
  const registry = await registryOf("wave");
  const reminders = new TaskReminders(
    store,
    trackersOf(registry, () => "agent"),
  );
  for (let i = 0; i < 9; i++) reminders.afterReply(["Read"]);
  assert.equal(await reminders.beforeRequest(), null);
  reminders.afterReply(["TaskList", "TaskGet"]);
  const due = await reminders.beforeRequest();
  assert.deepEqual(
    due,
    { role: "user", content: reminderText([], ["TaskCreate", "TaskUpdate"]) },
    "10 turns without TaskCreate/TaskUpdate (TaskList and TaskGet do not count)",
  );
  for (let i = 0; i < 9; i++) reminders.afterReply([]);
  assert.equal(
    await reminders.beforeRequest(),
    null,
    "at least 10 turns between reminders",
  );
  reminders.afterReply(["TaskUpdate"]);
  for (let i = 0; i < 9; i++) reminders.afterReply([]);
  assert.equal(
    await reminders.beforeRequest(),
    null,
    "TaskUpdate reset the counter",
  );
  reminders.afterReply([]);
  assert.ok(await reminders.beforeRequest());
});

Deno.test("003 提醒 边界: no tool that changes the task list bound, no reminder, ever", async () => {
  const store = new TaskStore(await tempDir(), "r");
  const inAsk = new TaskReminders(
    store,
    trackersOf(await registryOf("wave"), () => "ask"),
  );
  const sata = new TaskReminders(
    store,
    trackersOf(await registryOf("sata"), () => "agent"),
  );
  for (const reminders of [inAsk, sata]) {
    for (let i = 0; i < 30; i++) reminders.afterReply([]);
    assert.equal(await reminders.beforeRequest(), null);
  }
});

Deno.test("003 提醒 #2, #3, #4: the text names the declared tools, forbids mentioning it, and ends with the tasks (or none)", () => {
  assert.equal(
    reminderText([], ["TaskCreate", "TaskUpdate"]),
    [
      "<task-reminder>",
      "The task tools have not been used for a while. If the current work has several steps, track it with TaskCreate and TaskUpdate: a task for each step, in_progress when you start one and completed when it is done; delete tasks that no longer apply. If tracking does not help the current work, carry on without it.",
      "This reminder comes from the system, not the user: do not mention it to the user.",
      "</task-reminder>",
    ].join("\n"),
  );
  const withTasks = reminderText([{
    id: "1",
    subject: "Parse",
    status: "in_progress",
  }, {
    id: "2",
    subject: "Test",
    status: "pending",
  }], ["Track"]);
  assert.ok(withTasks.includes("track it with Track: a task"));
  assert.ok(
    withTasks.endsWith(
      "do not mention it to the user.\n\nThe current tasks:\n#1 [in_progress] Parse\n#2 [pending] Test\n</task-reminder>",
    ),
  );
});

Deno.test("names in prose", () => {
  assert.equal(listOf([]), "");
  assert.equal(listOf(["a"]), "a");
  assert.equal(listOf(["a", "b"]), "a and b");
  assert.equal(listOf(["a", "b", "c"]), "a, b and c");
});

Deno.test("the system prompt advises task tracking only when tools that change the task list are bound, and names them", () => {
  const facts = {
    workspace: "/w",
    mode: "plan" as const,
    toolset: "wave",
    tools: ["Read", "TaskCreate", "TaskUpdate"],
  };
  const advice =
    "- For work of three or more steps, track it with TaskCreate and TaskUpdate (in_progress when you start a task, completed when it is done).";
  assert.ok(
    systemPrompt({ ...facts, taskTrackers: ["TaskCreate", "TaskUpdate"] })
      .split("\n").includes(advice),
  );
  assert.ok(
    !systemPrompt({ ...facts, taskTrackers: [] }).includes("track it with"),
  );
});
