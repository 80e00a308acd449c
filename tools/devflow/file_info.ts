/**
 * file_info (toolset `devflow`, F-FILE-03): a file's size, line count,
 * times, type and encoding, without its content.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { openRegularFile } from "../kernel/regular_file.ts";
import { countNewlines } from "../_core/bytes.ts";
import { kindOf } from "../_core/reader.ts";
import { formatBytes, plural } from "../_core/text.ts";
import { devflowPath, existingTarget } from "./_dialect.ts";

const description =
  `Describes a file or directory without returning its content: type, size, line count (text files), modified time, permissions, whether it is text, its encoding, and for binary files their format.

Use it instead of read_file to learn a file's size or length.`;

const input = z.object({ path: z.string().min(1) }).strict();

/** Lines in a file, counted in chunks: memory stays flat. A last line without a newline counts. */
async function countLines(real: string): Promise<number> {
  using file = openRegularFile(real);
  const buffer = new Uint8Array(1024 * 1024);
  let lines = 0;
  let last = 10;
  while (true) {
    const n = await file.read(buffer);
    if (n === null) break;
    lines += countNewlines(buffer.subarray(0, n), n);
    last = buffer[n - 1];
  }
  return last === 10 ? lines : lines + 1;
}

export default defineTool({
  name: "file_info",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [{ path: devflowPath(i.path), access: "read" }],
  warmup: [{ path: "notes.txt" }],
  async run(i, ctx) {
    const { real, abs, shown, info } = await existingTarget(
      ctx,
      i.path,
      true,
    );
    // The link itself exists when its target does.
    const link = await Deno.lstat(abs);
    const base = {
      path: devflowPath(i.path),
      type: info.isDirectory ? "directory" : "file",
      symlink: link.isSymlink,
      size: info.size,
      modified: info.mtime?.toISOString() ?? null,
      created: info.birthtime?.toISOString() ?? null,
      mode: info.mode === null ? null : (info.mode & 0o7777).toString(8),
    };
    if (info.isDirectory) {
      return {
        content: `${shown}: directory, modified ${base.modified}.`,
        structured: base,
      };
    }
    const kind = await kindOf(real);
    const isText = kind.kind === "text" || kind.kind === "notebook";
    const structured = {
      ...base,
      is_text: isText,
      encoding: kind.kind === "text"
        ? kind.encoding
        : kind.kind === "notebook"
        ? "utf-8"
        : null,
      lines: isText ? (info.size === 0 ? 0 : await countLines(real)) : null,
      format: kind.kind === "binary"
        ? kind.name
        : kind.kind === "image"
        ? kind.mediaType
        : null,
    };
    const what = isText
      ? `${structured.encoding} text, ${plural(structured.lines ?? 0, "line")}`
      : `binary (${structured.format})`;
    return {
      content: `${shown}: ${what}, ${
        formatBytes(info.size)
      } (${info.size} bytes), modified ${base.modified}.`,
      structured,
    };
  },
});
