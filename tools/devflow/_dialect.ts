/**
 * What DevFlow's tools share: its path rule (`/` and `\` both separate),
 * its error texts (Rust io errors, with their `os error N`), and file
 * history for every change. Private to the `devflow` toolset.
 *
 * @module
 */

import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { displayPath, type ResolvedPath } from "../kernel/workspace.ts";
import { recordVersion } from "../_core/history.ts";
import { refuseSpecialFile, statOrNull } from "../_core/reader.ts";
import { writeAndRecord, type WriteOutcome } from "../_core/writer.ts";

/** A DevFlow path: backslashes are separators too. */
export function devflowPath(raw: string): string {
  return raw.replaceAll("\\", "/");
}

/** Resolves a DevFlow path through the session's resolver. */
export function resolve(
  ctx: ToolContext,
  raw: string,
): { file: ResolvedPath; shown: string } {
  const file = ctx.path(devflowPath(raw));
  return { file, shown: displayPath(ctx.workspace, file.abs) };
}

/** A missing file, as DevFlow's manual reports it. */
export function noFile(shown: string): ToolError {
  return new ToolError(
    `cannot open ${shown}: No such file or directory (os error 2)`,
    {
      type: "not_found",
      os_error: 2,
    },
  );
}

/** A missing directory, as DevFlow's manual reports it. */
export function noDirectory(shown: string): ToolError {
  return new ToolError(
    `cannot list ${shown}: the system cannot find the path specified (os error 3)`,
    {
      type: "not_found",
      os_error: 3,
    },
  );
}

/** Writes through the atomic writer, recording the old content in file history first, so the change can be undone. */
export async function writeWithHistory(
  ctx: ToolContext,
  file: ResolvedPath,
  shown: string,
  content: Uint8Array | readonly Uint8Array[],
  tool: string,
): Promise<WriteOutcome> {
  await recordVersion(ctx, file.real, tool);
  return await writeAndRecord(ctx, file.real, shown, content, {
    createParents: true,
    reader: tool,
  });
}

/** Bytes from `content` in an `encoding` (utf8 text, or base64 for binary data). */
export function contentBytes(
  content: string,
  encoding: "utf8" | "base64",
): Uint8Array {
  if (encoding === "utf8") return new TextEncoder().encode(content);
  const clean = content.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new ToolError(
      'content is not valid base64 (encoding: "base64"): check it for stray characters.',
      {
        type: "invalid_base64",
      },
    );
  }
  return Uint8Array.from(atob(clean), (c) => c.charCodeAt(0));
}

/** A resolved DevFlow path and what is there now (`null`: nothing). */
export interface Target {
  file: ResolvedPath;
  shown: string;
  info: Deno.FileInfo | null;
}

/**
 * Resolves a path a tool reads or writes as a file. Throws for a directory
 * there, and, when `mustExist`, for nothing there (os error 2).
 */
export async function fileTarget(
  ctx: ToolContext,
  raw: string,
  mustExist: boolean,
): Promise<Target> {
  const { file, shown } = resolve(ctx, raw);
  const info = await statOrNull(file.real);
  if (!info && mustExist) throw noFile(shown);
  if (info?.isDirectory) {
    throw new ToolError(
      `${shown} is a directory, not a file; list_directory shows what is in it.`,
      {
        type: "is_directory",
      },
    );
  }
  if (info) refuseSpecialFile(info, shown);
  return { file, shown, info };
}
