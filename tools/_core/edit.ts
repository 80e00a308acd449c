/**
 * The edit pipeline every dialect's edit tool shares (wave Edit, sata edit,
 * devflow patch_file): an exact replacement in a UTF-8 file's bytes, and
 * the diff of it.
 *
 * A large file is edited as bytes, without decoding it, and diffed in a
 * window around the change; a CRLF file with a multi-line string, and every
 * error, take the text path ({@linkcode applyReplacement}), which keeps the
 * BOM and the file's line endings.
 *
 * @module
 */

import { decodeText } from "./reader.ts";
import { diffable, diffBytes, diffTexts, type FileDiff } from "./diff.ts";
import {
  applyReplacement,
  applyReplacementToBytes,
  type Replacement,
} from "./matcher.ts";

/** A file's new content after an edit, and its diff. */
export interface Edited {
  /** The new content: bytes, or chunks in order (the byte path shares the old bytes). */
  content: Uint8Array | Uint8Array[];
  /** How many occurrences were replaced (or lines, for a line edit). */
  count: number;
  /** The diff from the old content: made on the first call, then remembered. */
  diff(): FileDiff;
}

/**
 * Replaces `replacement.oldString` in `bytes` (a UTF-8 file's content).
 * Guarantees what {@linkcode applyReplacement} does, by either path, and
 * throws its {@linkcode ToolError}s: none found, several without
 * `replaceAll`, nothing to change.
 */
export function editBytes(
  bytes: Uint8Array,
  replacement: Replacement,
  shown: string,
): Edited {
  const fast = applyReplacementToBytes(bytes, replacement);
  if (fast) {
    return {
      content: fast.chunks,
      count: fast.count,
      diff: once(() => diffBytes(shown, bytes, fast.chunks, fast.change)),
    };
  }
  const original = decodeText(bytes, "utf-8");
  const replaced = applyReplacement(original, replacement, shown);
  return editedText(shown, original, replaced.text, replaced.count);
}

/** An edit made on decoded text (`text` replaces `original`), written as UTF-8. */
export function editedText(
  shown: string,
  original: string,
  text: string,
  count: number,
): Edited {
  return {
    content: new TextEncoder().encode(text),
    count,
    diff: once(() => diffTexts(shown, diffable(original), diffable(text))),
  };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
