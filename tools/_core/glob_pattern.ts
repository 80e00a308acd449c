/**
 * Glob patterns as tools take them, for every dialect that finds files by
 * name: an absolute pattern made relative to the search path, and whether
 * a pattern constrains names at all (one made only of wildcards does not).
 *
 * @module
 */

import { isAbsolute, relative } from "../kernel/posix_path.ts";
import { ToolError } from "../kernel/tool.ts";
import type { SearchRoot } from "./reader.ts";

/**
 * The pattern relative to the search path. Models often send an absolute
 * one ("/repo/src/**\/*.ts"); inside the search path it is made relative,
 * outside it is a {@linkcode ToolError} that tells the model to set
 * `dirField` (the dialect's name for the search path) instead.
 */
export function relativePattern(
  pattern: string,
  root: SearchRoot,
  dirField: string,
): string {
  if (!isAbsolute(pattern)) return pattern;
  for (const base of [root.abs, root.real]) {
    const rest = relative(base, pattern);
    if (rest && !rest.startsWith("..") && !isAbsolute(rest)) return rest;
  }
  throw new ToolError(
    `The pattern ${pattern} is an absolute path outside the search path (${root.place}). Set ${dirField} to the directory to search, and give a pattern relative to it.`,
    { type: "pattern_outside" },
  );
}

/**
 * Whether a glob has at least one literal character: one that is not a
 * wildcard (`*`, `?`, a `[…]` class), a separator (`/`), brace syntax
 * (`{`, `,`, `}`) or a leading `!`. `"**\/*"`, `"*"` and `"?*"` have none,
 * so they match every file; `"*.ts"` and `"src/**"` have some. An escaped
 * character (`\*`) is literal.
 *
 * @example
 * ```ts
 * import { hasLiteral } from "./glob_pattern.ts";
 * console.assert(!hasLiteral("**\/*") && hasLiteral("**\/*.ts"));
 * ```
 */
export function hasLiteral(pattern: string): boolean {
  for (let i = pattern.startsWith("!") ? 1 : 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") return i + 1 < pattern.length;
    if (c === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close === -1) return true; // an unclosed "[" is a literal "["
      i = close;
      continue;
    }
    if (!"*?/{},".includes(c)) return true;
  }
  return false;
}
