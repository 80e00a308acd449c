/**
 * The editor's buffers as the core sees them (issue 17): a front whose
 * client is an editor that serves the text of files, unsaved changes
 * included (ACP's `fs/read_text_file` and `fs/write_text_file`), gives the
 * core an {@linkcode EditorBuffers}; a call of a tool that declares
 * `buffers` then reads and writes the text of the files it named through
 * it (`ctx.buffers`), after the resolver, the approvals and the write
 * queue, exactly as a call on the disk. The core knows no front: only
 * this interface.
 *
 * @module
 */

import { ToolError } from "../tools/kernel/tool.ts";

/** One editor's buffers, as a front reaches them. */
export interface EditorBufferChannel {
  /** The editor's whole text of `path` (a real path). Rejects when the editor cannot answer. */
  read(path: string, signal: AbortSignal): Promise<string>;
  /** Replaces the editor's text of `path` with exactly `text`. Rejects when the editor refuses. */
  write(path: string, text: string, signal: AbortSignal): Promise<void>;
}

/**
 * The editor that serves the buffers of a call (by its tool-use id and
 * its session's id), or `undefined`: that call works on the disk.
 */
export type EditorBuffers = (
  toolUseId: string,
  sessionId: string,
) => EditorBufferChannel | undefined;

/**
 * The main thread's side of one call's `ctx.buffers`: a read of a path
 * the call named, or a write (`text` given) of a path it named for
 * writing, passed to `editor`; anything else, and the editor's failures,
 * rejected with a {@linkcode ToolError} the tool throws.
 */
export function callBuffers(
  editor: EditorBufferChannel,
  named: ReadonlySet<string>,
  writable: ReadonlySet<string>,
  signal: AbortSignal,
): (path: string, text?: string) => Promise<string> {
  return async (path, text) => {
    if (!(text === undefined ? named : writable).has(path)) {
      throw new ToolError(
        `${path} is not a file this call named${
          text === undefined ? "" : " for writing"
        }, so the editor's buffer of it is not ${
          text === undefined ? "read" : "written"
        }`,
        { type: "not_granted" },
      );
    }
    try {
      if (text === undefined) return await editor.read(path, signal);
      await editor.write(path, text, signal);
      return "";
    } catch (error) {
      throw new ToolError(
        `the editor could not ${
          text === undefined ? "give the text of" : "take the new text of"
        } ${path}: ${error instanceof Error ? error.message : String(error)}`,
        { type: "buffer_failed" },
      );
    }
  };
}
