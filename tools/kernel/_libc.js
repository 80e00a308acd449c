// @ts-check
/**
 * The libc functions wave's kernel layer calls through FFI (`prctl`,
 * `syscall`, `open`, `close`, and `__errno_location` to read why one failed), opened once per thread that asks: the
 * dlopen costs about a millisecond, and start-up pays it once.
 *
 * Plain JavaScript, as `_landlock.js` is: a sandbox worker confines itself
 * with them before it loads any code Deno must transpile (see
 * session/_tool_worker_entry.js).
 *
 * @module
 */

const SYMBOLS = /** @type {const} */ ({
  // syscall(number, a, b, c, d): every call passes all four arguments, so
  // none reads a register left over from something else.
  syscall: {
    parameters: ["i64", "i64", "i64", "i64", "i64"],
    result: "i64",
  },
  prctl: {
    parameters: ["i32", "u64", "u64", "u64", "u64"],
    result: "i32",
  },
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
});

/**
 * The libc functions of {@linkcode libc}.
 *
 * @typedef {Deno.DynamicLibrary<typeof SYMBOLS>["symbols"]} Libc
 */

/** @type {Libc | null | undefined} */
let opened;

/**
 * libc, opened on first use; `null` off Linux or where it cannot be opened
 * (no FFI permission).
 *
 * @returns {Libc | null}
 */
export function libc() {
  if (opened !== undefined) return opened;
  opened = null;
  if (Deno.build.os !== "linux") return opened;
  try {
    opened = Deno.dlopen("libc.so.6", SYMBOLS).symbols;
  } catch { /* no libc to open, or no permission */ }
  return opened;
}
