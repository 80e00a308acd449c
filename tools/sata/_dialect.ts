/**
 * What the `sata` dialect's file tools share: spec 001's rules for changing
 * a file, and its words for the messages. Private to the `sata` toolset.
 *
 * @module
 */

import { missingFile } from "../_core/reader.ts";
import type { WriteRules } from "../_core/write_path.ts";

/**
 * Spec 001 asks for no read before write or edit; as everywhere, a file
 * this session read that changed on disk since is refused, until it is
 * read again, and every change is kept in file history (spec 004's
 * snapshot layer, under every dialect).
 */
export const SATA_WRITES: WriteRules = {
  requireRead: "never",
  history: true,
  readTool: "read",
  directory: (shown) => `${shown} is a directory; give a file path.`,
  missing: (file, ctx) => missingFile(file.real, ctx, file.shown),
};

/** The message for a directory given to read. */
export function readDirectory(shown: string): string {
  return `${shown} is a directory, not a file; list shows what is in it.`;
}
