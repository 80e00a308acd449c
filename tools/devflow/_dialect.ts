/**
 * What DevFlow's tools share: its path rule (`/` and `\` both separate),
 * its error texts (Rust io errors, with their `os error N`), and file
 * history for every change. Private to the `devflow` toolset.
 *
 * @module
 */

import { type ToolContext, ToolError } from "../kernel/tool.ts";
import { type FileRef, fileRef, statFile } from "../_core/reader.ts";
import type { WriteRules } from "../_core/write_path.ts";

/** A DevFlow path: backslashes are separators too. */
export function devflowPath(raw: string): string {
  return raw.replaceAll("\\", "/");
}

/** Resolves a DevFlow path through the session's resolver. */
export function devflowRef(
  ctx: ToolContext,
  raw: string,
): FileRef & { abs: string } {
  return fileRef(ctx, devflowPath(raw));
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

function isDirectory(shown: string): string {
  return `${shown} is a directory, not a file; list_directory shows what is in it.`;
}

/**
 * Spec 002 asks for no read before a change (DevFlow's recipe is read,
 * replace, write, but nothing checks it); every change keeps the old
 * content in file history, for restore_file. As everywhere, a file this
 * session read that changed on disk since is refused, until read again.
 */
export const DEVFLOW_WRITES: WriteRules = {
  requireRead: "never",
  history: true,
  readTool: "read_file",
  directory: isDirectory,
  missing: (file) => noFile(file.shown),
};

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

/** A resolved DevFlow path and what is there. */
export interface Target extends FileRef {
  abs: string;
  info: Deno.FileInfo;
}

/**
 * Resolves a path a tool reads, and stats it. Throws for nothing there
 * (os error 2), for a special file, and for a directory unless
 * `directories` (a tool that takes either).
 */
export async function existingTarget(
  ctx: ToolContext,
  raw: string,
  directories = false,
): Promise<Target> {
  const file = devflowRef(ctx, raw);
  const info = await statFile(
    file.real,
    file.shown,
    directories ? undefined : isDirectory(file.shown),
  );
  if (!info) throw noFile(file.shown);
  return { ...file, info };
}
