/**
 * Reading a whole file the way a confined worker must
 * (tools/kernel/landlock.ts): the path is opened on the calling thread,
 * which Landlock holds, and only then are the bytes read, off that thread,
 * from the descriptor, which no rename or symlink can redirect.
 * `Deno.readFile` would resolve the path on a pool thread that Landlock
 * does not hold.
 *
 * @module
 */

/** Reads below this size in one synchronous read: a hop to the pool costs more. */
const SMALL_FILE = 64 * 1024;

/**
 * The bytes of the file at `path`, opened on this thread. Rejects as
 * `Deno.readFile` does (NotFound, PermissionDenied, IsADirectory when
 * read, ...); a file that grows while it is read is read to its end.
 */
export async function readFileBytes(path: string): Promise<Uint8Array> {
  using file = Deno.openSync(path, { read: true });
  const size = file.statSync().size;
  let buffer = new Uint8Array(size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const grown = new Uint8Array(buffer.length * 2);
      grown.set(buffer);
      buffer = grown;
    }
    const target = buffer.subarray(length);
    const n = size < SMALL_FILE
      ? file.readSync(target)
      : await file.read(target);
    if (n === null) break;
    length += n;
  }
  return buffer.subarray(0, length);
}

/** The file at `path` as UTF-8 text (see {@linkcode readFileBytes}). */
export async function readTextFile(path: string): Promise<string> {
  return new TextDecoder().decode(await readFileBytes(path));
}
