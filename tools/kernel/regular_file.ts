/**
 * Opening a file to read it without ever waiting on what is not a file.
 *
 * A file tool checks a path (it stats it) and then opens it; between the
 * two, a process can swap a named pipe in. Deno's open would then wait for
 * a writer that may never come, holding the thread, and on a confined
 * worker every call queued behind it. Here the open is non-blocking
 * (`O_NONBLOCK` returns at once on a FIFO and changes nothing for a regular
 * file), on the calling thread (which Landlock holds, see landlock.ts), and
 * the descriptor's own `fstat` refuses whatever is not a regular file, so
 * what is read is what was opened, whatever the path names by then.
 *
 * @module
 */

import { ToolError } from "./tool_error.ts";
import { libc } from "./_libc.js";
import { assertOpenedAsChecked } from "./checked_files.ts";

/**
 * `node:fs`, taken when a file is first opened, not when this module
 * loads: every isolate loads this module (the main thread with the tools'
 * definitions), and a `node:` import loads Deno's Node compatibility
 * layer (kernel/posix_path.ts says what it costs). A worker takes it while
 * it warms up (`_tool_worker.ts`'s `prepare`).
 */
export function nodeFs(): typeof import("node:fs") {
  return loadedFs ??= process.getBuiltinModule(
    "node:fs",
  ) as typeof import("node:fs");
}
let loadedFs: typeof import("node:fs") | undefined;

/** The kind of a file that is neither regular nor a directory, in {@linkcode specialFileWords}. */
export interface SpecialKind {
  isFifo: boolean | null;
  isSocket: boolean | null;
  isCharDevice: boolean | null;
  isBlockDevice: boolean | null;
}

/** "a named pipe (FIFO)", "a socket", ...: what a special file is, for a message. */
export function specialFileWords(kind: SpecialKind): string {
  return kind.isFifo
    ? "a named pipe (FIFO)"
    : kind.isSocket
    ? "a socket"
    : kind.isCharDevice
    ? "a character device"
    : kind.isBlockDevice
    ? "a block device"
    : "a special file";
}

/**
 * The refusal of a special file by a file tool (`not_regular_file`), in
 * the one wording every tool uses.
 */
export function notRegularFileError(shown: string, words: string): ToolError {
  return new ToolError(
    `${shown} is ${words}, not a regular file; file tools do not open it, since reading it could wait forever. Use a command if you mean to.`,
    { type: "not_regular_file" },
  );
}

/** A regular file open for reading, from {@linkcode openRegularFile}. */
export interface RegularFile extends Disposable {
  /** Its size when it was opened. */
  readonly size: number;
  /** The device and inode it was opened as. */
  readonly dev: number;
  readonly ino: number;
  /** When it was last modified when it was opened, in milliseconds since the epoch. */
  readonly mtime: number;
  /** The descriptor, to hand to a child process as its stdin; valid until {@linkcode RegularFile.close}. */
  readonly fd: number;
  /** Reads into `buffer` on this thread; `null` at the end. */
  readSync(buffer: Uint8Array): number | null;
  /** Reads into `buffer` off this thread (from the descriptor: no path is resolved); `null` at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Its bytes from where reading stands, in chunks of up to `chunkSize`; the file is closed at the end, on an error and on cancel. */
  readable(chunkSize?: number): ReadableStream<Uint8Array>;
  /** Closes it; closing twice is harmless. */
  close(): void;
}

/**
 * Opens the regular file at `path` for reading, on this thread, without
 * waiting. Rejects as `Deno.openSync` does (`Deno.errors.NotFound`,
 * `PermissionDenied`, `NotADirectory`, `FilesystemLoop`, `NotCapable`), a
 * directory with `Deno.errors.IsADirectory`, and a named pipe, socket or
 * device with {@linkcode notRegularFileError} (naming it as `shown`). In
 * a tool call, a file other than the one its check judged under `path`
 * (swapped in since) is refused as `changed_during_call` (checked_files.ts).
 */
export function openRegularFile(path: string, shown = path): RegularFile {
  const fd = openNonBlocking(path, shown);
  try {
    const info = fstatOf(fd);
    if ((info.mode & S_IFMT) === S_IFDIR) {
      throw new Deno.errors.IsADirectory(
        `Is a directory (os error 21): open '${path}'`,
      );
    }
    if ((info.mode & S_IFMT) !== S_IFREG) {
      throw notRegularFileError(shown, specialFileWords(kindOf(info.mode)));
    }
    assertOpenedAsChecked(path, info, shown);
    return new OpenFile(fd, info);
  } catch (error) {
    nodeFs().closeSync(fd);
    throw error;
  }
}

/**
 * Up to `length` bytes from the start of the regular file at `path`,
 * opened and checked as {@linkcode openRegularFile} opens and checks it
 * (and rejecting as it does). Checked, not merely bounded: the bytes a
 * tool tells a file's kind by must be the file's. Bytes taken from a named
 * pipe swapped in for a moment (at once, nothing: text) would have an
 * image read after, once the file is back, returned as lines of text.
 */
export function readPrefix(
  path: string,
  length: number,
  shown = path,
): Uint8Array {
  using file = openRegularFile(path, shown);
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const n = file.readSync(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/**
 * A descriptor of `path` for reading, opened on this thread without
 * waiting; failures as `Deno.openSync`'s, but a socket (which cannot be
 * opened: ENXIO) refused as the special file it is.
 */
function openNonBlocking(path: string, shown: string): number {
  try {
    const { constants, openSync } = nodeFs();
    return openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENXIO") {
      throw notRegularFileError(shown, "a socket or a device with no driver");
    }
    throw asDenoError(error, path);
  }
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

interface FdInfo {
  mode: number;
  size: number;
  dev: number;
  ino: number;
  mtime: number;
}

function kindOf(mode: number): SpecialKind {
  const type = mode & S_IFMT;
  return {
    isFifo: type === 0o010000,
    isSocket: type === 0o140000,
    isCharDevice: type === 0o020000,
    isBlockDevice: type === 0o060000,
  };
}

class OpenFile implements RegularFile {
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
  readonly mtime: number;
  readonly fd: number;
  #closed = false;

  constructor(fd: number, info: FdInfo) {
    this.fd = fd;
    this.size = info.size;
    this.dev = info.dev;
    this.ino = info.ino;
    this.mtime = info.mtime;
  }

  readSync(buffer: Uint8Array): number | null {
    if (buffer.length === 0) return 0;
    const n = nodeFs().readSync(this.fd, buffer, 0, buffer.length, null);
    return n === 0 ? null : n;
  }

  read(buffer: Uint8Array): Promise<number | null> {
    if (buffer.length === 0) return Promise.resolve(0);
    return new Promise((resolve, reject) =>
      nodeFs().read(
        this.fd,
        buffer,
        0,
        buffer.length,
        null,
        (error, n) => error ? reject(error) : resolve(n === 0 ? null : n),
      )
    );
  }

  readable(chunkSize = 64 * 1024): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const chunk = new Uint8Array(chunkSize);
          const n = await this.read(chunk);
          if (n === null) {
            this.close();
            controller.close();
          } else controller.enqueue(chunk.subarray(0, n));
        } catch (error) {
          this.close();
          controller.error(error);
        }
      },
      cancel: () => this.close(),
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    nodeFs().closeSync(this.fd);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * The descriptor's type, size and identity: by the `fstat` system call
 * where libc can be called (x86-64 Linux, whose `struct stat` layout the
 * offsets below are), else by `node:fs`, which builds a whole `Stats` (a
 * few times slower, and this runs on every read).
 */
function fstatOf(fd: number): FdInfo {
  const lib = fstatByLibc ? libc() : null;
  let done = false;
  if (lib) {
    try {
      statPointer ??= Deno.UnsafePointer.value(
        Deno.UnsafePointer.of(statBuffer),
      );
      done = lib.syscall(SYS_FSTAT, BigInt(fd), BigInt(statPointer), 0n, 0n) ===
        0n;
    } catch {
      // A worker without FFI permission (libc was opened before it was narrowed).
      fstatByLibc = false;
    }
  }
  if (done) {
    return {
      dev: Number(statView.getBigUint64(0, true)),
      ino: Number(statView.getBigUint64(8, true)),
      mode: statView.getUint32(24, true),
      size: Number(statView.getBigInt64(48, true)),
      mtime: Number(statView.getBigInt64(88, true)) * 1000 +
        Math.floor(Number(statView.getBigInt64(96, true)) / 1e6),
    };
  }
  const info = nodeFs().fstatSync(fd);
  return {
    mode: info.mode,
    size: info.size,
    dev: info.dev,
    ino: info.ino,
    mtime: info.mtimeMs,
  };
}

const SYS_FSTAT = 5n;
let fstatByLibc = Deno.build.arch === "x86_64";
// Larger than a typed array V8 keeps on its heap, so the pointer is stable.
const statBuffer = new Uint8Array(256);
const statView = new DataView(statBuffer.buffer);
let statPointer: number | bigint | undefined;

/** Deno's error classes for the open failures a caller tells apart. */
const DENO_ERRORS: Record<string, new (message: string) => Error> = {
  ENOENT: Deno.errors.NotFound,
  EACCES: Deno.errors.PermissionDenied,
  EPERM: Deno.errors.PermissionDenied,
  ENOTDIR: Deno.errors.NotADirectory,
  ELOOP: Deno.errors.FilesystemLoop,
  EISDIR: Deno.errors.IsADirectory,
};

/** A `node:fs` open's error as the `Deno.errors` one Deno's own open throws, with its wording. */
function asDenoError(error: unknown, path: string): unknown {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  if (typeof code !== "string" || !Object.hasOwn(DENO_ERRORS, code)) {
    return error;
  }
  // "ENOENT: no such file or directory, open 'x'" → "No such file or directory (os error 2): open 'x'"
  const text = (error as Error).message.replace(/^[A-Z]+: /, "")
    .replace(/, [a-z]+( '.*)?$/, "");
  const words = text.charAt(0).toUpperCase() + text.slice(1);
  const number = typeof errno === "number" ? ` (os error ${-errno})` : "";
  return new DENO_ERRORS[code](`${words}${number}: open '${path}'`);
}
