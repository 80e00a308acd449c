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
) => Promise<void> | void;

/** The renderer that writes through `writer` and announces through `taskList`. */
export function toolEventRenderer(
  writer: ProtocolWriter,
  taskList: TaskListAnnouncer,
): ToolEventRenderer {
  return (toolUseId, event) => {
    switch (event.type) {
      case "output":
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
