/**
 * The task the session's tool calls belong to (docs/protocol.md "Tasks"):
 * file history records it with every version, and `edit_file` restores by
 * it. A user turn is a task of its own while it runs; a parent driving
 * `call_tool` names its task with `control_request` `set_task`; until it
 * does, its calls belong to one task per session.
 *
 * @module
 */

import type { CallTask } from "../tools/kernel/tool.ts";

/** The longest goal kept, in characters. */
export const MAX_GOAL_CHARS = 200;

/** What a task is for, from a user message: its first non-empty line, cut to {@linkcode MAX_GOAL_CHARS}. */
export function goalOf(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l) ?? "";
  return [...line].slice(0, MAX_GOAL_CHARS).join("");
}

/** The session's current task. */
export class CurrentTask {
  #session: CallTask;
  #parent: CallTask | undefined;
  #turn: CallTask | undefined;

  /** The tasks of session `sessionId`: its own is `session-<id>`, with no goal. */
  constructor(sessionId: string) {
    this.#session = { id: `session-${sessionId}`, goal: "" };
  }

  /** The task running now: the user turn's, else the parent's, else the session's own. */
  get current(): CallTask {
    return this.#turn ?? this.#parent ?? this.#session;
  }

  /** A user turn begins: a new task whose goal is the message's first line. Returns it. */
  beginTurn(message: string): CallTask {
    this.#turn = { id: `turn-${crypto.randomUUID()}`, goal: goalOf(message) };
    return this.#turn;
  }

  /** The user turn ended: calls belong to the parent's (or the session's) task again. */
  endTurn(): void {
    this.#turn = undefined;
  }

  /** The parent names the task its calls belong to (`set_task`). */
  set(id: string, goal: string): CallTask {
    this.#parent = { id, goal: [...goal].slice(0, MAX_GOAL_CHARS).join("") };
    return this.#parent;
  }
}
