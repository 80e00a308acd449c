/**
 * How the stdio front shows the events a running tool emits
 * (`tools/kernel/events.ts`): command output as `system/tool_progress`, a
 * changed task list as `system/task_list`.
 *
 * @module
 */

import type { ToolEvent } from "../tools/kernel/events.ts";
import type { ProtocolWriter } from "./output.ts";
import type { TaskListAnnouncer } from "./task_list_announcer.ts";

/**
 * Renders one tool event of call `toolUseId`. What it returns is awaited
 * before the call's result goes out, so a call's `system/task_list` comes
 * before its answer.
 */
export type ToolEventRenderer = (
  toolUseId: string,
  event: ToolEvent,
  sessionId: string,
) => Promise<void> | void;

/**
 * The renderer that writes through `writer` and announces through `taskList`.
 *
 * Progress is best-effort: while `writer` is congested (the parent leaves
 * too much output unread) a call's `system/tool_progress` is dropped, and
 * the first one dropped is replaced by one notice; once the writer has
 * caught up, progress flows again (and a later congestion has its notice).
 */
export function toolEventRenderer(
  writer: ProtocolWriter,
  taskList: TaskListAnnouncer,
): ToolEventRenderer {
  /** The calls whose progress was dropped while the writer is congested. */
  const dropped = new Set<string>();
  return (toolUseId, event) => {
    switch (event.type) {
      case "output":
        if (!writer.congested) dropped.clear();
        else {
          if (dropped.has(toolUseId)) return;
          dropped.add(toolUseId);
          return writer.send({
            type: "system",
            subtype: "tool_progress",
            tool_use_id: toolUseId,
            stream: event.stream,
            text: progressDroppedNotice(writer.queuedBytes),
          });
        }
        return writer.send({
          type: "system",
          subtype: "tool_progress",
          tool_use_id: toolUseId,
          stream: event.stream,
          text: event.text,
        });
      case "task_list_changed":
        return taskList.announce();
      default:
        // A worker is another thread: an event it made up is logged, not sent.
        console.error(
          "wave: a tool emitted an unknown event:",
          JSON.stringify(event).slice(0, 200),
        );
    }
  };
}

/** What replaces the progress dropped while `queuedBytes` wait for the parent. */
export function progressDroppedNotice(queuedBytes: number): string {
  return `\n[wave: the parent has not read ${queuedBytes} bytes of wave's output yet; this command's output is not streamed until it catches up (the result still has it)]\n`;
}
