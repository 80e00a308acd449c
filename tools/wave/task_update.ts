/**
 * TaskUpdate (toolset `wave`, spec 003): changes a task's status, text,
 * owner, dependencies or metadata.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { TASK_STATUSES } from "../kernel/tasks.ts";
import { defineTool } from "../kernel/tool.ts";
import { describeTask, notFound, storage, TaskId } from "./_tasks.ts";

const description =
  `Updates a task: its status, subject, description, activeForm, owner, dependencies or metadata.

- status: ${
    TASK_STATUSES.join(", ")
  }. Set in_progress when you start a task (one at a time), completed as soon as it is done, deleted for a task that no longer applies.
- metadata is merged into the task's; a key set to null is removed.
- addBlockedBy / addBlocks record dependencies between tasks, by id.`;

const input = z.object({
  taskId: TaskId,
  status: z.enum(TASK_STATUSES, {
    error: () => `status must be one of ${TASK_STATUSES.join(", ")}`,
  }).optional().describe(`One of ${TASK_STATUSES.join(", ")}`),
  subject: z.string().min(1).optional(),
  description: z.string().optional(),
  activeForm: z.string().min(1).optional(),
  owner: z.string().optional().describe(
    "Who works on the task (an agent's name)",
  ),
  metadata: z.record(z.string(), z.unknown()).optional().describe(
    "Merged in; null removes a key",
  ),
  addBlocks: z.array(TaskId).optional().describe(
    "Ids of tasks this task blocks",
  ),
  addBlockedBy: z.array(TaskId).optional().describe(
    "Ids of tasks that block this one",
  ),
}).strict();

export default defineTool({
  name: "TaskUpdate",
  description,
  input,
  scopes: { read: true, write: "state" },
  emits: ["task_list_changed"],
  async run({ taskId, ...changes }, ctx) {
    const task = await storage(ctx, () => ctx.tasks.update(taskId, changes));
    if (!task) throw notFound(taskId);
    ctx.emit({ type: "task_list_changed" });
    const verb = task.status === "deleted" ? "Deleted" : "Updated";
    return {
      content: `${verb} task #${task.id}.\n${describeTask(task)}`,
      structured: { type: "task", task },
    };
  },
});
