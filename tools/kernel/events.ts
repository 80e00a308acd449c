/**
 * What a running tool tells the session besides its result: the events of
 * the tool contract (docs/design.md "Events").
 *
 * A tool emits them through its context (`ctx.emit(event)`); the worker
 * protocol carries them to the main thread in the order they were emitted,
 * ahead of the call's result; the session renders each one for its front
 * (stream-json: `system/tool_progress`, `system/task_list`). Tools never
 * write protocol messages themselves.
 *
 * @module
 */

/** A stream of a running command. */
export type OutputStream = "stdout" | "stderr";

/** Output of a running command, as it arrives (the first MiB of it). */
export interface OutputEvent {
  /** Its kind. */
  readonly type: "output";
  /** Which stream it came from. */
  readonly stream: OutputStream;
  /** The text, as decoded so far (a chunk ends where the read ended). */
  readonly text: string;
}

/**
 * The session's task list changed (a task was created, updated or deleted).
 * The session reads the list afresh and shows it to the parent before the
 * call's result goes out.
 */
export interface TaskListChangedEvent {
  /** Its kind. */
  readonly type: "task_list_changed";
}

/** Every event a tool may emit. */
export type ToolEvent = OutputEvent | TaskListChangedEvent;

/** The `type` of a {@linkcode ToolEvent}. */
export type ToolEventType = ToolEvent["type"];
