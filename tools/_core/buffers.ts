/**
 * Files as the person's editor holds them (`ctx.buffers`, issue 17): when
 * the front's editor serves its buffers, the text a tool reads of a file
 * is the editor's (unsaved changes included), and a change goes back to
 * the editor instead of the disk. The read-state then records the
 * buffer's hash, so freshness compares what the editor holds now with
 * what the model read, and what the model read from the editor it writes
 * to the editor.
 *
 * @module
 */

import type { ReadRecord } from "../kernel/read_state.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { contentHash } from "./content_hash.ts";

/** A buffer's text as the editor gave it, its UTF-8 bytes and their content hash (`content_hash.ts`). */
export interface BufferText {
  text: string;
  bytes: Uint8Array;
  hash: string;
}

/**
 * The editor's text of `real` (a path the call named), or `undefined`
 * when this call has no editor buffers (the disk is the truth then).
 * Rejects with the {@linkcode ToolError} the editor's failure became.
 */
export async function bufferText(
  ctx: ToolContext,
  real: string,
): Promise<BufferText | undefined> {
  if (!ctx.buffers) return undefined;
  const text = await ctx.buffers.read(real);
  const bytes = new TextEncoder().encode(text);
  return { text, bytes, hash: contentHash(bytes) };
}

/**
 * The read-state record of a buffer read (or written) in full: its hash
 * and size; the disk's mtime as `info` has it, which no check compares.
 */
export function bufferRecord(
  buffer: { bytes: Uint8Array; hash: string },
  reader: string,
  info: Deno.FileInfo | null,
): ReadRecord {
  return {
    mtimeMs: info?.mtime?.getTime() ?? 0,
    size: buffer.bytes.length,
    hash: buffer.hash,
    whole: true,
    reader,
    buffer: true,
  };
}

/**
 * The freshness check of a file last read from the editor: the editor's
 * text now must hash as recorded. Returns it (the bytes a change starts
 * from); throws a `stale` {@linkcode ToolError} otherwise, or when this
 * call has no editor buffers.
 */
export async function freshBuffer(
  ctx: ToolContext,
  real: string,
  shown: string,
  record: ReadRecord,
  rule: { action: string; readTool: string },
): Promise<BufferText> {
  const buffer = await bufferText(ctx, real);
  if (buffer && buffer.hash === record.hash) return buffer;
  throw new ToolError(
    buffer
      ? `${shown} has changed in the editor since it was last read (the person typed, or another tool changed the buffer). Call ${rule.readTool} on it again, then ${rule.action} it.`
      : `${shown} was last read from the editor, which this call cannot reach. Call ${rule.readTool} on it again, then ${rule.action} it.`,
    { type: "stale" },
  );
}

/**
 * Writes `content` (UTF-8 bytes, whole) to the editor's buffer of `real`
 * and returns the record of what the buffer now holds.
 */
export async function writeBuffer(
  ctx: ToolContext,
  real: string,
  content: Uint8Array,
  reader: string,
  info: Deno.FileInfo | null,
): Promise<ReadRecord> {
  if (!ctx.buffers) {
    throw new ToolError(
      "this call cannot reach the editor's buffers",
      { type: "write_failed" },
    );
  }
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
    .decode(content);
  await ctx.buffers.write(real, text);
  return bufferRecord(
    { bytes: content, hash: contentHash(content) },
    reader,
    info,
  );
}
