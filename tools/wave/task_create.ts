/**
 * TaskCreate (toolset `wave`, spec 003): adds a task to the session's list.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { describeTask, storage } from "./_tasks.ts";

const description =
  `Adds a task to the task list, to plan and track multi-step work.

- Use it for work of three or more steps, or when the user gives several things to do; not for a single quick action.
- subject: a short imperative title ("Run the test suite"). description: what done means. activeForm: the subject in the present continuous ("Running the test suite"), shown while the task is in progress.
- New tasks are pending. Mark a task in_progress with TaskUpdate when you start it, and completed as soon as it is done.`;

const input = z.object({
  subject: z.string().min(1).describe("A short imperative title"),
  description: z.string().describe("What the task is, and what done means"),
  activeForm: z.string().min(1).optional().describe(
    'Present-continuous form shown while in progress, e.g. "Fixing the login bug"',
  ),
  metadata: z.record(z.string(), z.unknown()).optional().describe(
    "Extra data to keep with the task",
  ),
}).strict();

export default defineTool({
  name: "TaskCreate",
  description,
  input,
  scopes: { read: true, write: "state" },
  emits: ["task_list_changed"],
  async run(i, ctx) {
    const task = await storage(ctx, () => ctx.tasks.create(i));
    ctx.emit({ type: "task_list_changed" });
    return {
      content: `Created task #${task.id}.\n${describeTask(task)}`,
      structured: { type: "task", task },
    };
  },
});
