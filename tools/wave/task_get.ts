/**
 * TaskGet (toolset `wave`, spec 003): one task, whole.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { describeTask, notFound, storage, TaskId } from "./_tasks.ts";

const description =
  `Gets one task by id, with its description, status, owner, dependencies and metadata.`;

const input = z.object({ taskId: TaskId }).strict();

export default defineTool({
  name: "TaskGet",
  description,
  input,
  scopes: { read: true },
  async run(i, ctx) {
    const task = await storage(ctx, () => ctx.tasks.get(i.taskId));
    if (!task) throw notFound(i.taskId);
    return { content: describeTask(task), structured: { type: "task", task } };
  },
});
