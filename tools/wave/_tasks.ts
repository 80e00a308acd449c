/**
 * What the four task tools share: the id field, errors a model can act on,
 * and how a task reads. Private to the `wave` toolset.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import type { Task } from "../kernel/tasks.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";

/** A task id: "3" or 3. */
export const TaskId = z.union([
  z.string().regex(/^\d+$/, 'a task id is a number, such as "3"'),
  z.number().int().min(1),
])
  .transform(String)
  .describe('The task\'s id, e.g. "3"');

/** The error for an unknown id. */
export function notFound(id: string): ToolError {
  return new ToolError(
    `task ${id} not found; TaskList shows the tasks there are.`,
    { type: "not_found", taskId: id },
  );
}

/** Runs a store operation; a storage failure (a directory that cannot be written) is a tool error. */
export async function storage<T>(
  ctx: ToolContext,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(
      `The task list could not be saved under ${ctx.tasks.dir}: ${
        (error as Error).message
      }. Nothing was changed.`,
      { type: "storage_error" },
    );
  }
}

/** A task for a model to read. */
export function describeTask(task: Task): string {
  const lines = [`#${task.id} [${task.status}] ${task.subject}`];
  if (task.description) lines.push(task.description);
  if (task.activeForm) lines.push(`Active form: ${task.activeForm}`);
  if (task.owner) lines.push(`Owner: ${task.owner}`);
  if (task.blockedBy.length) {
    lines.push(
      `Blocked by: ${task.blockedBy.map((id) => `#${id}`).join(", ")}`,
    );
  }
  if (task.blocks.length) {
    lines.push(`Blocks: ${task.blocks.map((id) => `#${id}`).join(", ")}`);
  }
  if (Object.keys(task.metadata).length) {
    lines.push(`Metadata: ${JSON.stringify(task.metadata)}`);
  }
  return lines.join("\n");
}
