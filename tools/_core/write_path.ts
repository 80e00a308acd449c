/**
 * The write path: the one way every tool of every dialect changes a file
 * (wave Write and Edit; sata write, edit and write_plan; devflow
 * write_file, patch_file, append_file and restore_file).
 *
 * Resolution, approvals and the write queue happen before a tool runs, in
 * the session. In the tool the path goes: what is there (a directory or a
 * special file refused) → freshness → file history → atomic write, recorded
 * as read → the diff, made while the new bytes are flushed to disk.
 *
 * A dialect declares once, as {@linkcode WriteRules}, what its spec asks:
 * whether changing a file needs a read of it first, and whether changes
 * are kept in file history. One rule holds in every dialect: a file this
 * session read that changed on disk since is never overwritten blind.
 *
 * @module
 */

import { atomicWrite, describeFsError } from "../kernel/atomic_write.ts";
import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { chunksLength } from "./bytes.ts";
import { checkFresh } from "./freshness.ts";
import {
  detachBlob,
  type Recorded,
  recordLinked,
  recordVersion,
  type Version,
} from "./history.ts";
import { decodeText, type FileRef, kindOf, statFile } from "./reader.ts";
import { formatBytes, plural } from "./text.ts";
import { contentHash } from "./content_hash.ts";
import { diffable, diffForModel, diffTexts, type FileDiff } from "./diff.ts";
import { readFileBytes } from "../kernel/read_file.ts";
import { writeBuffer } from "./buffers.ts";

/**
 * What a dialect's spec asks of a change to a file, and its words for the
 * messages the path writes. Declared once per dialect.
 */
export interface WriteRules {
  /**
   * `"existing"`: a file that exists is changed only after this session
   * read it (wave, spec 000 "编辑前读取", "写入前读取"); a new file needs no
   * read. `"never"`: no read is needed (sata, devflow). Under both, a file
   * this session did read that changed on disk since is refused as stale.
   */
  requireRead: "existing" | "never";
  /**
   * Keep what a file held before each change in file history, so it can be
   * listed and undone: `true` in every dialect (spec 004's snapshot layer
   * is under all of them); `false` only to measure what history costs.
   */
  history: boolean;
  /** The dialect's read tool, named in messages ("Read", "read", "read_file"). */
  readTool: string;
  /** The message for a directory where a file is meant. */
  directory(shown: string): string;
  /** The error for a missing file a change needs (an edit). */
  missing(file: FileRef, ctx: ToolContext): ToolError;
}

/** A file past the checks, about to be changed. */
export interface WriteTarget extends FileRef {
  /** What is there now; `null`: nothing, the write creates it. */
  info: Deno.FileInfo | null;
  /** Its bytes now, once read (by the freshness check or {@linkcode currentBytes}). */
  bytes?: Uint8Array;
  /**
   * The content hash of its bytes when this session's read-state already has
   * it: the last whole read or write of the file, with the same mtime and
   * size now (or its hash just checked), so history need not hash a large
   * file again.
   */
  hash?: string;
  /**
   * The file was last read from the editor's buffer (`ctx.buffers`): its
   * bytes are the buffer's text, and the change goes back to the editor.
   */
  buffer?: boolean;
}

/** What a tool is about to do, for {@linkcode openForWrite}. */
export interface WriteIntent {
  /** The verb for messages: "edit", "overwrite", "append to", "restore". */
  action: string;
  /** The change needs the file to exist (an edit): nothing there is an error. */
  mustExist?: boolean;
}

/**
 * The checks before a change: a directory or special file is refused, a
 * missing file when `intent.mustExist`; then freshness under the dialect's
 * rules. Throws a {@linkcode ToolError} saying why; on success nothing has
 * been written.
 */
export async function openForWrite(
  ctx: ToolContext,
  rules: WriteRules,
  file: FileRef,
  intent: WriteIntent,
): Promise<WriteTarget> {
  const info = await statFile(
    file.real,
    file.shown,
    rules.directory(file.shown),
  );
  if (!info) {
    if (intent.mustExist) throw rules.missing(file, ctx);
    return { ...file, info: null };
  }
  const fresh = await checkFresh(ctx, file.real, file.shown, info, {
    readRequired: rules.requireRead === "existing",
    action: intent.action,
    readTool: rules.readTool,
  });
  if (fresh.buffer) {
    return {
      ...file,
      info,
      bytes: fresh.buffer.bytes,
      hash: fresh.buffer.hash,
      buffer: true,
    };
  }
  const record = ctx.readState.get(file.real);
  const known = record?.whole && record.hash &&
      (fresh.bytes || sameFile(info, record))
    ? record.hash
    : undefined;
  return { ...file, info, bytes: fresh.bytes, hash: known };
}

/** Whether `info` has exactly the mtime and size `record` was taken at. */
function sameFile(
  info: Deno.FileInfo,
  record: { mtimeMs: number; size: number },
): boolean {
  return (info.mtime?.getTime() ?? 0) === record.mtimeMs &&
    info.size === record.size;
}

/** The bytes the target holds now (empty for a new file), read at most once. */
export async function currentBytes(target: WriteTarget): Promise<Uint8Array> {
  if (target.bytes) return target.bytes;
  if (!target.info) return target.bytes = new Uint8Array();
  target.bytes = await readFileBytes(target.real);
  // A change since the checks' stat: the known hash may not be of these bytes.
  if (target.hash !== undefined) {
    let now: Deno.FileInfo | undefined;
    try {
      now = Deno.statSync(target.real);
    } catch { /* gone: the hash is not known */ }
    const info = target.info;
    if (
      !now || (now.mtime?.getTime() ?? 0) !== (info.mtime?.getTime() ?? 0) ||
      now.size !== info.size || now.size !== target.bytes.length
    ) target.hash = undefined;
  }
  return target.bytes;
}

/**
 * The text the target holds now, for a diff: decoded when it is text (in
 * its encoding) or a notebook; `undefined` for a new file or other content.
 */
export async function currentText(
  target: WriteTarget,
): Promise<string | undefined> {
  if (!target.info) return undefined;
  if (target.buffer) {
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(
      await currentBytes(target),
    );
  }
  const kind = await kindOf(target.real);
  if (kind.kind !== "text" && kind.kind !== "notebook") return undefined;
  return decodeText(
    await currentBytes(target),
    kind.kind === "text" ? kind.encoding : "utf-8",
  );
}

/** What a write did. */
export interface WriteOutcome {
  created: boolean;
  previousSize?: number;
  bytesWritten: number;
}

/** Options of {@linkcode commitWrite}. */
export interface CommitOptions {
  /** The tool whose change this is (for file history and the read-state). */
  tool: string;
  /** Create missing parent directories. */
  createParents?: boolean;
  /** Work to overlap with the flush to disk (a diff). */
  whileFlushing?: () => void;
}

/**
 * Writes `content` (bytes, or chunks in order) over the target: its old
 * content into file history first when the dialect keeps one, then through
 * the atomic writer; the new content is recorded as read, so the model can
 * change the file again without reading it. Throws a {@linkcode ToolError}
 * that says why a write failed; the file then keeps its old bytes. A
 * target read from the editor's buffer is written to the editor instead
 * ({@linkcode commitToBuffer}).
 */
export async function commitWrite(
  ctx: ToolContext,
  rules: WriteRules,
  target: WriteTarget,
  content: Uint8Array | readonly Uint8Array[],
  options: CommitOptions,
): Promise<WriteOutcome> {
  if (target.buffer) {
    return await commitToBuffer(ctx, rules, target, content, options);
  }
  // The old content goes into history after the new bytes are flushed and
  // before they replace it: hashed while the disk flushes, its inode
  // linked as the blob where it can be (the rename leaves it untouched).
  const old = rules.history && target.info ? await currentBytes(target) : null;
  let oldHash: string | undefined;
  let recorded: Recorded | undefined;
  const chunks = content instanceof Uint8Array ? [content] : content;
  let hash: string | undefined;
  let result;
  try {
    result = await atomicWrite(target.real, chunks, {
      createParents: options.createParents,
      // Hashing and diffing a large file cost about what its fsync does: overlap them.
      whileFlushing: () => {
        hash = contentHash(chunks);
        if (old) oldHash = target.hash ?? contentHash(old);
        options.whileFlushing?.();
      },
      beforeRename: rules.history
        ? async () => {
          recorded = await recordLinked(ctx, target.real, options.tool, old, {
            hash: oldHash,
            linkFrom: target.info?.nlink === 1 ? target.real : undefined,
          });
        }
        : undefined,
    });
  } catch (error) {
    if (recorded?.linked && old) {
      await detachBlob(ctx, recorded.version, old).catch(() => {});
    }
    throw new ToolError(
      `Could not write ${target.shown}: ${
        describeFsError(error, target.shown)
      }.`,
      { type: "write_failed" },
    );
  }
  const info = Deno.statSync(target.real);
  ctx.readState.record(target.real, {
    mtimeMs: info.mtime?.getTime() ?? 0,
    size: info.size,
    hash: hash ?? contentHash(chunks),
    whole: true,
    reader: options.tool,
  });
  return {
    created: !result.existed,
    previousSize: result.previousSize,
    bytesWritten: chunksLength(chunks),
  };
}

/**
 * A change to a file last read from the editor's buffer: its old text into
 * file history when the dialect keeps one, then the new text to the editor
 * (the disk is the editor's business), recorded as read from the buffer.
 * Throws a {@linkcode ToolError} when the editor refuses; the buffer then
 * holds what it held.
 */
async function commitToBuffer(
  ctx: ToolContext,
  rules: WriteRules,
  target: WriteTarget,
  content: Uint8Array | readonly Uint8Array[],
  options: CommitOptions,
): Promise<WriteOutcome> {
  const old = await currentBytes(target);
  const bytes = content instanceof Uint8Array ? content : concat(content);
  if (rules.history) {
    await recordVersion(ctx, target.real, options.tool, old, {
      hash: target.hash,
    });
  }
  options.whileFlushing?.();
  let record;
  try {
    record = await writeBuffer(
      ctx,
      target.real,
      bytes,
      options.tool,
      target.info,
    );
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(
      `Could not write ${target.shown}: ${
        error instanceof Error ? error.message : String(error)
      }.`,
      { type: "write_failed" },
    );
  }
  ctx.readState.record(target.real, record);
  return {
    created: false,
    previousSize: old.length,
    bytesWritten: bytes.length,
  };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunksLength(chunks));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Options of {@linkcode writeWhole}. */
export interface WholeWriteOptions {
  /** The verb for refusals: "overwrite", "write". */
  action: string;
  /** The tool whose write this is. */
  tool: string;
  /** Return the text the file held before (for a diff). */
  oldText?: boolean;
}

/**
 * A whole-file write, creating the file (and missing parents) or replacing
 * it: {@linkcode openForWrite}, then {@linkcode commitWrite}. With
 * `options.oldText`, also the file's text before ({@linkcode currentText}).
 */
export async function writeWhole(
  ctx: ToolContext,
  rules: WriteRules,
  file: FileRef,
  content: Uint8Array,
  options: WholeWriteOptions,
): Promise<{ outcome: WriteOutcome; oldText?: string; shown: string }> {
  const target = await openForWrite(ctx, rules, file, options);
  const oldText = options.oldText ? await currentText(target) : undefined;
  const outcome = await commitWrite(ctx, rules, target, content, {
    tool: options.tool,
    createParents: true,
  });
  return { outcome, oldText, shown: target.shown };
}

/**
 * Removes the target (an undone create), its content kept in file history
 * first when the dialect keeps one; the read-state forgets it. Nothing
 * there is not an error. Returns the version recorded, if one was.
 */
export async function removeFile(
  ctx: ToolContext,
  rules: WriteRules,
  target: WriteTarget,
  tool: string,
): Promise<Version | undefined> {
  const version = await keepHistory(ctx, rules, target, tool);
  try {
    Deno.removeSync(target.real);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  ctx.readState.forget(target.real);
  return version;
}

async function keepHistory(
  ctx: ToolContext,
  rules: WriteRules,
  target: WriteTarget,
  tool: string,
): Promise<Version | undefined> {
  if (!rules.history) return undefined;
  return await recordVersion(
    ctx,
    target.real,
    tool,
    target.info ? await currentBytes(target) : null,
  );
}

/** What a whole-file write tells the model (see {@linkcode describeWholeWrite}). */
export interface WholeWriteReport {
  /** `VERB shown (N lines, SIZE).`, then the diff against the old text when there was one. */
  text: string;
  /** Lines of the new content (a last line without a newline counts). */
  lines: number;
  /** The diff against the old text, when the file existed. */
  diff?: FileDiff;
}

/**
 * The report of a whole-file write of `content` to the file shown as
 * `shown`: "Created" for a new file, else `replaced` ("Updated",
 * "Overwrote": the dialect's word), its line count and size, and the
 * diff against `oldText` (the content it replaced, when there was one).
 */
export function describeWholeWrite(
  shown: string,
  content: string,
  oldText: string | undefined,
  outcome: WriteOutcome,
  replaced: string,
): WholeWriteReport {
  const diff = oldText === undefined
    ? undefined
    : diffTexts(shown, diffable(oldText), diffable(content));
  const lines = content === ""
    ? 0
    : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  const summary = `${outcome.created ? "Created" : replaced} ${shown} (${
    plural(lines, "line")
  }, ${formatBytes(outcome.bytesWritten)}).`;
  return {
    text: diff?.unified ? `${summary}\n${diffForModel(diff.unified)}` : summary,
    lines,
    diff,
  };
}
