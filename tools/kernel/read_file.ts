/**
 * Reading a whole file the way a confined worker must
 * (tools/kernel/landlock.ts): the path is opened on the calling thread,
 * which Landlock holds, and only then are the bytes read, off that thread,
 * from the descriptor, which no rename or symlink can redirect.
 * `Deno.readFile` would resolve the path on a pool thread that Landlock
 * does not hold, and would wait forever on a named pipe swapped in after a
 * tool's check ({@linkcode openRegularFile} refuses one at once).
 *
 * @module
 */

import { openRegularFile, type RegularFile } from "./regular_file.ts";

/** Reads below this size in one synchronous read: a hop to the pool costs more. */
const SMALL_FILE = 64 * 1024;

/**
 * The bytes of the regular file at `path`, opened on this thread. Rejects
 * as {@linkcode openRegularFile} does (NotFound, PermissionDenied,
 * IsADirectory, a special file as `not_regular_file`, ...); a file that
 * grows while it is read is read to its end.
 */
export async function readFileBytes(path: string): Promise<Uint8Array> {
  using file = openRegularFile(path);
  if (file.size < SMALL_FILE) return readToEndSync(file);
  let buffer = new Uint8Array(file.size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) buffer = grown(buffer);
    const n = await file.read(buffer.subarray(length));
    if (n === null) break;
    length += n;
  }
  return buffer.subarray(0, length);
}

/**
 * {@linkcode readFileBytes} with every read on this thread, for the few
 * callers that must not yield (the sensitive-content check, history).
 */
export function readFileBytesSync(path: string): Uint8Array {
  using file = openRegularFile(path);
  return readToEndSync(file);
}

function readToEndSync(file: RegularFile): Uint8Array {
  let buffer = new Uint8Array(file.size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) buffer = grown(buffer);
    const n = file.readSync(buffer.subarray(length));
    if (n === null) break;
    length += n;
  }
  return buffer.subarray(0, length);
}

function grown(buffer: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(buffer.length * 2);
  bigger.set(buffer);
  return bigger;
}

/** The file at `path` as UTF-8 text (see {@linkcode readFileBytes}). */
export async function readTextFile(path: string): Promise<string> {
  return new TextDecoder().decode(await readFileBytes(path));
}
