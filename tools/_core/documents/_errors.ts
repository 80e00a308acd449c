/**
 * The errors every document reader throws: the messages a model reads when
 * a document cannot be read, and the check for an interrupted read.
 *
 * @module
 */

import { ToolError } from "../../kernel/tool_error.ts";

/** The error of a read stopped by its signal. */
export function interrupted(shown: string): ToolError {
  return new ToolError(`Reading ${shown} was interrupted.`, {
    type: "interrupted",
  });
}

/** Throws {@linkcode interrupted} when `signal` has fired. */
export function checkAborted(signal: AbortSignal, shown: string): void {
  if (signal.aborted) throw interrupted(shown);
}

/**
 * The error of a document that is not what its kind says, or is damaged:
 * `format` names the kind ("PDF"), `detail` says what is wrong.
 */
export function corrupt(
  shown: string,
  format: string,
  detail: string,
): ToolError {
  return new ToolError(
    `${shown} is not a readable ${format} (${detail}); the file may be corrupt or truncated.`,
    { type: "corrupt_document", format },
  );
}

/** The error of a document that needs a password. */
export function encrypted(shown: string, format: string): ToolError {
  return new ToolError(
    `${shown} is an encrypted ${format}: it needs a password, so its text cannot be read.`,
    { type: "encrypted_document", format },
  );
}

/** The message of an unknown thrown value, for {@linkcode corrupt}. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n", 1)[0].trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || "unknown error";
}
