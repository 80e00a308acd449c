/**
 * The task list as the parent sees it (spec 003 列表 UI; docs/protocol.md
 * `system/task_list`, `get_tasks`): what the list looks like now, and its
 * announcements.
 *
 * @module
 */

import type { TaskListView, TaskStore } from "../tools/kernel/tasks.ts";
import type { ProtocolWriter } from "./output.ts";

/** The task list and the id it goes by, as `system/task_list` and `get_tasks` show it. */
export interface NamedTaskListView extends TaskListView {
  task_list_id: string;
}

/** Reads the session's task list for the parent, and announces it. */
export class TaskListAnnouncer {
  #store: TaskStore;
  #listId: string;
  #writer: ProtocolWriter;
  #announcing: Promise<void> = Promise.resolve();

  /** Announces `store`, the list named `listId`, through `writer`. */
  constructor(store: TaskStore, listId: string, writer: ProtocolWriter) {
    this.#store = store;
    this.#listId = listId;
    this.#writer = writer;
  }

  /** The list as it is now. Rejects when it cannot be read. */
  async view(): Promise<NamedTaskListView> {
    return { task_list_id: this.#listId, ...await this.#store.view() };
  }

  /**
   * Writes `system/task_list`. Announcements run one after another and
   * each reads the list when it runs, so the last event always shows the
   * latest state. Never rejects: a list that cannot be read is logged.
   */
  announce(): Promise<void> {
    this.#announcing = this.#announcing.then(async () => {
      try {
        this.#writer.send({
          type: "system",
          subtype: "task_list",
          ...await this.view(),
        });
      } catch (error) {
        console.error("wave: cannot read the task list:", error);
      }
    });
    return this.#announcing;
  }

  /** At start: announces a list that already has tasks (shared, or resumed), finished or not. */
  async announceIfAny(): Promise<void> {
    const { tasks } = await this.#store.view().catch(() => ({ tasks: [] }));
    if (tasks.length > 0) await this.announce();
  }
}
