/**
 * The expected failure of a tool: its message is what the model reads.
 *
 * @module
 */

/**
 * An expected failure (a missing file, a stale read, a refused path). A tool
 * throws it anywhere below its `run`; the tool contract turns it into an
 * error result, so it never escapes as an exception.
 *
 * @example
 * ```ts
 * import { ToolError } from "./tool_error.ts";
 * throw new ToolError("notes.txt has not been read", { type: "not_read" });
 * ```
 */
export class ToolError extends Error {
  /** Metadata for `structured` alongside the message. */
  readonly structured?: unknown;
  /** `message` is what the model reads; `structured` goes to the parent. */
  constructor(message: string, structured?: unknown) {
    super(message);
    this.name = "ToolError";
    this.structured = structured;
  }
}
