/**
 * sata's `Change` result (spec 001 改文件): the path, a line diff for
 * people, and the first changed line of the new file.
 *
 * @module
 */

import type { ToolResult } from "../kernel/tool.ts";
import { diffForModel, type FileDiff } from "../_core/diff.ts";

/** spec 001's `Change`. */
export interface Change {
  Path: string;
  Diff: string;
  Line: number;
}

/** A tool result carrying a `Change`. `verb` says what happened ("Wrote", "Edited"). */
export function changeResult(
  verb: string,
  path: string,
  diff: FileDiff | null,
  created: boolean,
): ToolResult {
  const change: Change = {
    Path: path,
    Diff: diff?.unified ?? "",
    Line: created ? 1 : diff?.firstChangedLine ?? 0,
  };
  const where = change.Line
    ? `, first change at line ${change.Line}`
    : ", no change";
  return {
    content: `${verb} ${path}${where}.${
      change.Diff ? `\n${diffForModel(change.Diff)}` : ""
    }`,
    structured: change,
  };
}
