/**
 * diff_file (toolset `devflow`, F-FILE-08): a unified diff between two
 * files, or between a file and given content.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, type ToolContext } from "../kernel/tool.ts";
import { diffable, diffForModel, diffTexts } from "../_core/diff.ts";
import { decodeText, kindOf, requireUtf8Text } from "../_core/reader.ts";
import { devflowPath, existingTarget } from "./_dialect.ts";
import { readFileBytes } from "../kernel/read_file.ts";

const description =
  `Shows the differences between two text files (path and other_path), or between a file and some content (path and content), as a unified diff.

Returns {diff, identical, added, removed} (lines added and removed going from path to the other side).`;

const input = z.object({
  path: z.string().min(1),
  other_path: z.string().min(1).optional(),
  content: z.string().optional(),
}).strict().refine(
  (i) => (i.other_path === undefined) !== (i.content === undefined),
  {
    message: "give either other_path or content",
  },
);

async function textOf(
  ctx: ToolContext,
  raw: string,
): Promise<{ text: string; shown: string }> {
  const { real, shown } = await existingTarget(ctx, raw);
  requireUtf8Text(await kindOf(real), shown, {
    binary: "diff_file compares text files only.",
    encoding: "diff_file compares UTF-8 text files only.",
  });
  return { text: decodeText(await readFileBytes(real), "utf-8"), shown };
}

export default defineTool({
  name: "diff_file",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [
    { path: devflowPath(i.path), access: "read" },
    ...(i.other_path
      ? [{ path: devflowPath(i.other_path), access: "read" as const }]
      : []),
  ],
  async run(i, ctx) {
    const a = await textOf(ctx, i.path);
    const b = i.other_path !== undefined
      ? await textOf(ctx, i.other_path)
      : { text: i.content!, shown: "(content)" };
    const diff = diffTexts(a.shown, diffable(a.text), diffable(b.text));
    const unified = diff.unified.replace(/^\+\+\+ .*$/m, `+++ ${b.shown}`);
    const identical = diff.hunks.length === 0;
    return {
      content: identical
        ? `${a.shown} and ${b.shown} are identical.`
        : diffForModel(unified),
      structured: {
        diff: identical ? "" : unified,
        identical,
        added: diff.added,
        removed: diff.removed,
      },
    };
  },
});
