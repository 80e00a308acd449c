/**
 * Plan documents (spec 001 计划文档): markdown files under the workspace's
 * `.cursor/`, and nowhere else.
 *
 * @module
 */

import * as posix from "../kernel/posix_path.ts";
import { ToolError } from "../kernel/tool.ts";

/** The directory plans live in, relative to the workspace. */
export const PLAN_DIR = ".cursor";
const MARKDOWN = /\.(md|markdown)$/i;

/**
 * The workspace-relative path of the plan `name`: a name without a suffix
 * gets `.md`. Throws a {@linkcode ToolError} for a name that would leave
 * `.cursor/` (absolute, `..`, nested traversal) or is not markdown.
 */
export function planPath(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.includes("\0")) {
    throw new ToolError(
      'A plan needs a name, such as "refactor" or "refactor.md".',
      { type: "invalid_name" },
    );
  }
  if (
    trimmed.startsWith("/") || trimmed.startsWith("\\") ||
    /^[A-Za-z]:/.test(trimmed)
  ) {
    throw new ToolError(
      `Plan names are relative to ${PLAN_DIR}/; "${name}" is absolute.`,
      { type: "invalid_name" },
    );
  }
  const parts = trimmed.replaceAll("\\", "/").split("/");
  if (parts.includes("..")) {
    throw new ToolError(
      `Plan names may not contain "..": "${name}" would leave ${PLAN_DIR}/.`,
      {
        type: "invalid_name",
      },
    );
  }
  let file = posix.normalize(parts.join("/"));
  const base = posix.basename(file);
  if (base.includes(".") && !base.startsWith(".") && !MARKDOWN.test(base)) {
    throw new ToolError(
      `Plans are markdown: "${name}" has the suffix ${
        posix.extname(base)
      }; use .md.`,
      {
        type: "invalid_name",
      },
    );
  }
  if (!MARKDOWN.test(base)) file += ".md";
  return `${PLAN_DIR}/${file}`;
}
