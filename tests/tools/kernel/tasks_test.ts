/** Spec 003: the task store and its lock, in-process (the reminders: tests/session/task_reminders_test.ts). */
import assert from "node:assert/strict";
import {
  type LockFs,
  STALE_LOCK_MS,
  TaskStore,
  withListLock,
} from "../../../tools/kernel/tasks.ts";
import { zodSchemaOf } from "../../../tools/kernel/tool.ts";
import TaskCreate from "../../../tools/wave/task_create.ts";
import TaskGet from "../../../tools/wave/task_get.ts";
import TaskList from "../../../tools/wave/task_list.ts";
import TaskUpdate from "../../../tools/wave/task_update.ts";
import { TestSession, text } from "../../_context.ts";
import { tempDir } from "../../_temp.ts";

Deno.test("003 创建 #1: TaskCreate stores a task with a unique id at WAVE_HOME/tasks/{taskListId}/{taskId}.json", async () => {
  const s = await TestSession.create();
  const r = await s.call(TaskCreate, {
    subject: "Write the parser",
    description: "Handle every case",
    activeForm: "Writing the parser",
  });
  assert.equal(r.isError, undefined);
  assert.equal(
    text(r),
    "Created task #1.\n#1 [pending] Write the parser\nHandle every case\nActive form: Writing the parser",
  );
  const stored = JSON.parse(
    await Deno.readTextFile(`${s.waveHome}/tasks/test-list/1.json`),
  );
  assert.deepEqual({ ...stored, createdAt: "", updatedAt: "" }, {
    id: "1",
    subject: "Write the parser",
    description: "Handle every case",
    activeForm: "Writing the parser",
    status: "pending",
    blocks: [],
    blockedBy: [],
    metadata: {},
    createdAt: "",
    updatedAt: "",
  });
  const second = await s.call(TaskCreate, {
    subject: "Test it",
    description: "",
  });
  assert.equal((second.structured as { task: { id: string } }).task.id, "2");
});

Deno.test("003 创建 #2: TaskGet returns the whole task", async () => {
  const s = await TestSession.create();
  await s.call(TaskCreate, {
    subject: "A",
    description: "details",
    metadata: { priority: "high" },
  });
  const r = await s.call(TaskGet, { taskId: "1" });
  assert.equal(
    text(r),
    '#1 [pending] A\ndetails\nMetadata: {"priority":"high"}',
  );
  const byNumber = await s.call(TaskGet, { taskId: 1 });
  assert.equal(
    (byNumber.structured as { task: { subject: string } }).task.subject,
    "A",
  );
});

Deno.test("003 更新 #1 and #2: status, description and metadata updates are stored; metadata merges", async () => {
  const s = await TestSession.create();
  await s.call(TaskCreate, {
    subject: "A",
    description: "old",
    metadata: { keep: 1, drop: 2 },
  });
  const r = await s.call(TaskUpdate, {
    taskId: "1",
    status: "in_progress",
    description: "new",
    metadata: { drop: null, add: 3 },
  });
  assert.equal(r.isError, undefined);
  const stored = JSON.parse(
    await Deno.readTextFile(`${s.waveHome}/tasks/test-list/1.json`),
  );
  assert.equal(stored.status, "in_progress");
  assert.equal(stored.description, "new");
  assert.deepEqual(stored.metadata, { keep: 1, add: 3 });
  await s.call(TaskUpdate, {
    taskId: "1",
    status: "completed",
    owner: "agent-2",
    addBlockedBy: ["5"],
  });
  const done = JSON.parse(
    await Deno.readTextFile(`${s.waveHome}/tasks/test-list/1.json`),
  );
  assert.equal(done.status, "completed");
  assert.equal(done.owner, "agent-2");
  assert.deepEqual(done.blockedBy, ["5"]);
});

Deno.test("003 列出 #1: TaskList gives every task's id, subject and status in ascending id order", async () => {
  const s = await TestSession.create();
  for (let i = 1; i <= 12; i++) {
    await s.call(TaskCreate, { subject: `task ${i}`, description: "" });
  }
  await s.call(TaskUpdate, { taskId: "10", status: "completed" });
  const r = await s.call(TaskList, {});
  const ids = (r.structured as { tasks: { id: string }[] }).tasks.map((t) =>
    t.id
  );
  assert.deepEqual(ids, [
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "11",
    "12",
  ]);
  assert.match(text(r), /^#1 \[pending\] task 1\n#2 \[pending\] task 2\n/);
  assert.match(text(r), /#10 \[completed\] task 10\n#11/);
});

Deno.test('003 边界: an unknown id is "task N not found" for TaskGet and TaskUpdate', async () => {
  const s = await TestSession.create();
  const get = await s.call(TaskGet, { taskId: "42" });
  assert.equal(get.isError, true);
  assert.match(text(get), /^task 42 not found/);
  const update = await s.call(TaskUpdate, {
    taskId: "42",
    status: "completed",
  });
  assert.match(text(update), /^task 42 not found/);
});

Deno.test("003 边界: an invalid status is refused with the allowed values", () => {
  const parsed = zodSchemaOf(TaskUpdate).safeParse({
    taskId: "1",
    status: "done",
  });
  assert.equal(parsed.success, false);
  assert.equal(
    parsed.error!.issues[0].message,
    "status must be one of pending, in_progress, completed, deleted",
  );
});

Deno.test("003 边界: a storage directory that cannot be written is a tool error, not a crash", async () => {
  const s = await TestSession.create();
  await Deno.writeTextFile(
    `${s.waveHome}/tasks`,
    "a file where the directory should be",
  );
  const r = await s.call(TaskCreate, { subject: "A", description: "" });
  assert.equal(r.isError, true);
  assert.match(
    text(r),
    /^The task list could not be saved under .*\/tasks\/test-list: .*Nothing was changed\.$/,
  );
});

Deno.test("003: ids are never reused, even after a deletion", async () => {
  const s = await TestSession.create();
  await s.call(TaskCreate, { subject: "A", description: "" });
  await s.call(TaskCreate, { subject: "B", description: "" });
  await s.call(TaskUpdate, { taskId: "2", status: "deleted" });
  await assert.rejects(Deno.stat(`${s.waveHome}/tasks/test-list/2.json`));
  const c = await s.call(TaskCreate, { subject: "C", description: "" });
  assert.equal((c.structured as { task: { id: string } }).task.id, "3");
  const list = await s.call(TaskList, {});
  assert.equal(text(list), "#1 [pending] A\n#3 [pending] C");
});

Deno.test("003 边界 并发创建: concurrent creates in one process get 1..50, no duplicate, no gap", async () => {
  const store = new TaskStore(await tempDir(), "shared");
  const tasks = await Promise.all(
    Array.from(
      { length: 50 },
      (_, i) => store.create({ subject: `t${i}`, description: "" }),
    ),
  );
  const ids = tasks.map((t) => Number(t.id)).sort((a, b) => a - b);
  assert.deepEqual(ids, Array.from({ length: 50 }, (_, i) => i + 1));
});

Deno.test("003 边界 进程崩溃: a lock older than 10 s is taken as a dead holder's, removed, and the create goes on", async () => {
  const home = await tempDir();
  const store = new TaskStore(home, "list");
  await Deno.mkdir(store.dir, { recursive: true });
  await Deno.writeTextFile(`${store.dir}/.lock`, "");
  const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
  await Deno.utime(`${store.dir}/.lock`, old, old);
  const task = await store.create({
    subject: "after a crash",
    description: "",
  });
  assert.equal(task.id, "1");
  await assert.rejects(Deno.stat(`${store.dir}/.lock`), "the lock is released");
});

Deno.test("003 边界 进程崩溃: a fresh lock is waited for, not broken", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/.lock`, "");
  let ran = false;
  // Counts the tries, so the test knows the lock was found taken three times.
  let tries = 0;
  let triedThrice!: () => void;
  const thrice = new Promise<void>((r) => triedThrice = r);
  const counting: LockFs = {
    async createNew(path) {
      if (++tries === 3) triedThrice();
      const file = await Deno.open(path, { write: true, createNew: true });
      file.close();
    },
  };
  const waiting = withListLock(dir, () => {
    ran = true;
    return Promise.resolve();
  }, counting);
  await thrice;
  assert.equal(ran, false, "a live holder's lock is respected");
  await Deno.remove(`${dir}/.lock`);
  await waiting;
  assert.equal(ran, true);
});

Deno.test("003 边界 Windows: EPERM on creating the lock is retried, not a failure", async () => {
  const dir = await tempDir();
  let attempts = 0;
  const flaky: LockFs = {
    async createNew(path) {
      if (++attempts <= 3) {
        throw new Deno.errors.PermissionDenied("pending delete");
      }
      (await Deno.open(path, { write: true, createNew: true })).close();
    },
  };
  const value = await withListLock(dir, () => Promise.resolve("ok"), flaky);
  assert.equal(value, "ok");
  assert.equal(attempts, 4);
  // Bounded: a lasting EPERM is a failure in the end.
  const stuck: LockFs = {
    createNew: () => Promise.reject(new Deno.errors.PermissionDenied("no")),
  };
  await assert.rejects(
    withListLock(dir, () => Promise.resolve(), stuck),
    Deno.errors.PermissionDenied,
  );
});

Deno.test("003 列表 UI: TaskCreate and TaskUpdate emit task_list_changed after a change; reads and a failed update do not", async () => {
  const s = await TestSession.create();
  await s.call(TaskCreate, { subject: "a", description: "" });
  await s.call(TaskList, {});
  await s.call(TaskGet, { taskId: "1" });
  const missing = await s.call(TaskUpdate, { taskId: "9", status: "pending" });
  assert.equal(missing.isError, true);
  await s.call(TaskUpdate, { taskId: "1", status: "completed" });
  assert.deepEqual(s.events, [
    { type: "task_list_changed" },
    { type: "task_list_changed" },
  ]);
});
