/**
 * Read-before-write and staleness (spec 000 "编辑前读取", "写入前读取",
 * "陈旧检测"), for every dialect's tools that change existing files (the
 * write path, `write_path.ts`, applies it).
 *
 * @module
 */

import type { ReadRecord } from "../kernel/read_state.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { contentHash } from "./content_hash.ts";
import { readFileBytes } from "../kernel/read_file.ts";
import { type BufferText, freshBuffer } from "./buffers.ts";

/** What a fresh file looks like now. */
export interface FreshFile {
  info: Deno.FileInfo;
  /** The file's bytes, when the check had to read them (the hash fallback). */
  bytes?: Uint8Array;
  /**
   * The editor's buffer, when the file was last read from it
   * (`ctx.buffers`): its text is what a change starts from and goes back to.
   */
  buffer?: BufferText;
}

/** The rule of one check, and its words: what the caller was about to do, and the dialect's read tool. */
export interface FreshnessRule {
  /** A file this session has not read is refused (read-before-write); otherwise it passes. */
  readRequired: boolean;
  /** "edit", "overwrite", "append to". */
  action: string;
  /** The tool that reads, in this dialect ("Read", "read", "read_file"). */
  readTool: string;
}

/**
 * Checks that `real` has not changed since this session read it, and, when
 * `rule.readRequired`, that this session read it at all.
 *
 * The rule: a file whose mtime is not newer than recorded (and whose size
 * is the same) is fresh. A newer one is fresh only if the last read was
 * whole and the content hash still matches (a checkout, an editor's save or
 * a sync tool touched it). After a partial read a newer mtime is stale.
 * Throws a {@linkcode ToolError} telling the model to read the file first
 * (`not_read`), or again (`stale`). A file last read from the editor's
 * buffer is fresh when the buffer's text still hashes as recorded,
 * whatever the disk holds.
 */
export async function checkFresh(
  ctx: ToolContext,
  real: string,
  shown: string,
  info: Deno.FileInfo,
  rule: FreshnessRule,
): Promise<FreshFile> {
  const record: ReadRecord | undefined = ctx.readState.get(real);
  if (!record) {
    if (!rule.readRequired) return { info };
    throw new ToolError(
      `${shown} has not been read in this session. Call ${rule.readTool} on it first, then ${rule.action} it.`,
      { type: "not_read" },
    );
  }
  if (record.buffer) {
    const buffer = await freshBuffer(ctx, real, shown, record, rule);
    return { info, bytes: buffer.bytes, buffer };
  }
  const mtime = info.mtime?.getTime() ?? 0;
  if (mtime <= record.mtimeMs && info.size === record.size) return { info };
  if (record.whole && record.hash) {
    const bytes = await readFileBytes(real);
    if (contentHash(bytes) === record.hash) return { info, bytes };
  }
  throw new ToolError(
    `${shown} has changed on disk since it was last read (by the user, a formatter or another process)` +
      (record.whole
        ? ""
        : "; the last read was partial, so its content could not be compared") +
      `. Call ${rule.readTool} on it again, then ${rule.action} it.`,
    { type: "stale" },
  );
}

/**
 * A read-state record for content this session now knows in full (after a
 * whole read or its own write). `info` is the stat taken before the bytes
 * were read; without it the file is stat'ed now (after a write).
 */
export function wholeRecord(
  real: string,
  bytes: Uint8Array,
  reader: string,
  info?: Deno.FileInfo,
): ReadRecord {
  info ??= Deno.statSync(real);
  return {
    mtimeMs: info.mtime?.getTime() ?? 0,
    size: info.size,
    hash: contentHash(bytes),
    whole: true,
    reader,
  };
}

/**
 * A read-state record for part of a file (a ranged or cut read): its mtime
 * and size, no hash, so a newer mtime is stale whatever the content.
 */
export function partialRecord(
  info: Deno.FileInfo,
  reader: string,
): ReadRecord {
  return {
    mtimeMs: info.mtime?.getTime() ?? 0,
    size: info.size,
    whole: false,
    reader,
  };
}
