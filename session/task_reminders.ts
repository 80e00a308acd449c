/**
 * Task reminders (spec 003 任务提醒注入): when tools that change the task
 * list are bound and the model has gone 10 assistant turns without calling
 * one, and at least 10 since the last reminder, the next request carries a
 * reminder as a meta user message. The counters are rebuilt from the
 * transcript on resume, where reminders are recorded.
 *
 * Which tools change the task list is what their definitions declare
 * (`emits: ["task_list_changed"]`); this module knows no tool by name.
 *
 * @module
 */

import type { Message } from "./messages.ts";
import { taskLines, type TaskStore } from "../tools/kernel/tasks.ts";
import type { TranscriptEntry } from "./transcript.ts";
import { listOf } from "./system_prompt.ts";

/** Assistant turns without task management before a reminder, and between two reminders. */
export const REMINDER_INTERVAL = 10;
/** Marks a reminder in the conversation, so a resumed session recognizes it. */
export const REMINDER_TAG = "<task-reminder>";

/** The tools that change the task list (their definitions declare `task_list_changed`). */
export interface TaskTrackers {
  /** Whether calling the tool named `name` counts as managing tasks, bound or not. */
  isTracker(name: string): boolean;
  /** The trackers bound now, in toolset order; with none there are no reminders. */
  bound(): readonly string[];
}

/** Counts turns and says when to remind. */
export class TaskReminders {
  /** Assistant turns since a tool that changes the task list was called. */
  sinceManaged = 0;
  /** Assistant turns since the last reminder. */
  sinceReminder = 0;
  #store: TaskStore;
  #trackers: TaskTrackers;

  /** Reminds about `store`'s tasks; `trackers` says which tools count. */
  constructor(store: TaskStore, trackers: TaskTrackers) {
    this.#store = store;
    this.#trackers = trackers;
  }

  /** Rebuilds the counters from a resumed transcript. */
  restore(entries: TranscriptEntry[]): void {
    for (const entry of entries) {
      if (entry.type === "assistant") this.afterReply(toolNames(entry.message));
      else if (entry.isMeta && isReminder(entry.message)) {
        this.sinceReminder = 0;
      }
    }
  }

  /** Counts a model reply and the tools it called. */
  afterReply(names: string[]): void {
    this.sinceManaged++;
    this.sinceReminder++;
    if (names.some((n) => this.#trackers.isTracker(n))) this.sinceManaged = 0;
  }

  /** The reminder to send before the next request, if it is due. */
  async beforeRequest(): Promise<Message | null> {
    const trackers = this.#trackers.bound();
    if (trackers.length === 0) return null;
    if (
      this.sinceManaged < REMINDER_INTERVAL ||
      this.sinceReminder < REMINDER_INTERVAL
    ) return null;
    this.sinceReminder = 0;
    let tasks: { id: string; subject: string; status: string }[] = [];
    try {
      tasks = (await this.#store.view()).tasks;
    } catch { /* an unreadable list: remind without it */ }
    return { role: "user", content: reminderText(tasks, trackers) };
  }
}

/**
 * The reminder's text: how to use the `trackers` (tool names), never to be
 * mentioned, then the tasks.
 */
export function reminderText(
  tasks: { id: string; subject: string; status: string }[],
  trackers: readonly string[],
): string {
  const lines = [
    REMINDER_TAG,
    `The task tools have not been used for a while. If the current work has several steps, track it with ${
      listOf(trackers)
    }: a task for each step, in_progress when you start one and completed when it is done; delete tasks that no longer apply. If tracking does not help the current work, carry on without it.`,
    "This reminder comes from the system, not the user: do not mention it to the user.",
  ];
  if (tasks.length) lines.push("", "The current tasks:", taskLines(tasks));
  lines.push("</task-reminder>");
  return lines.join("\n");
}

function toolNames(message: Message): string[] {
  return typeof message.content === "string"
    ? []
    : message.content.flatMap((b) => b.type === "tool_use" ? [b.name] : []);
}

function isReminder(message: Message): boolean {
  const text = typeof message.content === "string" ? message.content : "";
  return text.startsWith(REMINDER_TAG);
}
