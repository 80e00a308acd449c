/**
 * Writing a file back, for every dialect: atomically, with the session's
 * read-state updated to the new content.
 *
 * @module
 */

import { atomicWrite, describeFsError } from "../kernel/atomic_write.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { chunksLength } from "./bytes.ts";
import { sha256 } from "./text.ts";

/** What a write did. */
export interface WriteOutcome {
  created: boolean;
  previousSize?: number;
  bytesWritten: number;
}

/** Options of {@linkcode writeAndRecord}. */
export interface WriteOptions {
  /** Create missing parent directories. */
  createParents?: boolean;
  /** The tool whose write this is, for the read-state record. */
  reader: string;
  /** Work to overlap with the flush to disk (a diff). */
  whileFlushing?: () => void;
}

/**
 * Writes `content` (bytes, or chunks in order) to `real` through the atomic
 * writer and records it as read, so the model can edit the file again
 * without a Read. Throws a {@linkcode ToolError} that says why a write
 * failed; the file then keeps its old bytes.
 */
export async function writeAndRecord(
  ctx: ToolContext,
  real: string,
  shown: string,
  content: Uint8Array | readonly Uint8Array[],
  options: WriteOptions,
): Promise<WriteOutcome> {
  const chunks = content instanceof Uint8Array ? [content] : content;
  let hash: string | undefined;
  let result;
  try {
    result = await atomicWrite(real, chunks, {
      createParents: options.createParents,
      // Hashing and diffing a large file cost about what its fsync does: overlap them.
      whileFlushing: () => {
        hash = sha256(chunks);
        options.whileFlushing?.();
      },
    });
  } catch (error) {
    throw new ToolError(
      `Could not write ${shown}: ${describeFsError(error, shown)}.`,
      {
        type: "write_failed",
      },
    );
  }
  const info = await Deno.stat(real);
  ctx.readState.record(real, {
    mtimeMs: info.mtime?.getTime() ?? 0,
    size: info.size,
    hash: hash ?? sha256(chunks),
    whole: true,
    reader: options.reader,
  });
  return {
    created: !result.existed,
    previousSize: result.previousSize,
    bytesWritten: chunksLength(chunks),
  };
}

/** The most diff text put in a model's result; the whole diff stays in `structured`. */
export const MAX_DIFF_CHARS = 8000;

/** A diff cut for a model's context. */
export function diffForModel(unified: string): string {
  if (unified.length <= MAX_DIFF_CHARS) return unified;
  const cut = unified.slice(0, MAX_DIFF_CHARS);
  return `${cut.slice(0, cut.lastIndexOf("\n") + 1)}… (diff cut: ${
    unified.length - MAX_DIFF_CHARS
  } more characters)\n`;
}
