/**
 * What the `wave` dialect's file tools share: spec 000's rules for changing
 * a file, and its words for the messages. Private to the `wave` toolset.
 *
 * @module
 */

import { missingFile } from "../_core/reader.ts";
import type { WriteRules } from "../_core/write_path.ts";

/**
 * Spec 000 "编辑前读取", "写入前读取", "陈旧检测": Write and Edit change an
 * existing file only after a Read of it in this session, and refuse one
 * changed on disk since; every change is kept in file history (spec 004's
 * snapshot layer, under every dialect).
 */
export const WAVE_WRITES: WriteRules = {
  requireRead: "existing",
  history: true,
  readTool: "Read",
  directory: (shown) => `${shown} is a directory; give a file path to write.`,
  missing: (file, ctx) => missingFile(file.real, ctx, file.shown),
};
