/**
 * A file change as a coloured diff: a unified diff parsed by the `diff`
 * package (jsdiff), each line escaped and marked added, removed or context.
 *
 * @module
 */

import { createTwoFilesPatch, parsePatch } from "diff";
import { escapeHtml, escapeText } from "./_escape.ts";

/** A unified diff as HTML; text that does not parse as one is shown as it is. */
export function renderDiff(unified: string): string {
  let patches;
  try {
    patches = parsePatch(unified);
  } catch {
    return `<pre>${escapeHtml(unified)}</pre>`;
  }
  const out: string[] = [];
  for (const patch of patches) {
    if (patch.oldFileName || patch.newFileName) {
      const name = patch.newFileName && patch.newFileName !== "/dev/null"
        ? patch.newFileName
        : patch.oldFileName ?? "";
      out.push(`<span class="file">${escapeHtml(name)}</span>`);
    }
    for (const hunk of patch.hunks) {
      out.push(
        `<span class="hunk">@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@</span>`,
      );
      for (const line of hunk.lines) {
        const kind = line[0] === "+"
          ? "add"
          : line[0] === "-"
          ? "del"
          : line[0] === "\\"
          ? "hunk"
          : "ctx";
        out.push(`<span class="${kind}">${escapeText(line) || " "}</span>`);
      }
    }
  }
  if (out.length === 0) return `<pre>${escapeHtml(unified)}</pre>`;
  return `<pre class="diff">${out.join("")}</pre>`;
}

/** The unified diff of one replacement, for an edit whose result carries no diff. */
export function replacementDiff(
  path: string,
  before: string,
  after: string,
): string {
  return createTwoFilesPatch(path, path, before, after, "", "", {
    context: 2,
  });
}
