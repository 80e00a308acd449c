/**
 * TaskList (toolset `wave`, spec 003): every task's id, subject and status,
 * in ascending id order.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { taskLines } from "../kernel/tasks.ts";
import { defineTool } from "../kernel/tool.ts";
import { storage } from "./_tasks.ts";

const description =
  `Lists the tasks: id, status and subject (with owner and blockers), in id order. Use TaskGet for a task's details.`;

export default defineTool({
  name: "TaskList",
  description,
  input: z.object({}).strict(),
  scopes: { read: true },
  warmup: [{}],
  async run(_i, ctx) {
    const tasks = (await storage(ctx, () => ctx.tasks.list())).filter((t) =>
      t.status !== "deleted"
    );
    const summaries = tasks.map((
      { id, subject, status, owner, blockedBy },
    ) => ({
      id,
      subject,
      status,
      ...(owner ? { owner } : {}),
      ...(blockedBy.length ? { blockedBy } : {}),
    }));
    const lines = tasks.map((t) =>
      taskLines([t]) + (t.owner ? ` (owner: ${t.owner})` : "") +
      (t.blockedBy.length
        ? ` [blocked by ${t.blockedBy.map((id) => `#${id}`).join(", ")}]`
        : "")
    );
    return {
      content: lines.length ? lines.join("\n") : "No tasks yet.",
      structured: { type: "task_list", tasks: summaries },
    };
  },
});
