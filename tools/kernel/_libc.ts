/**
 * The libc functions wave's kernel layer calls through FFI (`prctl`,
 * `syscall`, `open`, `close`), opened once per thread that asks: the
 * dlopen costs about a millisecond, and start-up pays it once.
 *
 * @module
 */

const SYMBOLS = {
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
} as const;

/** The libc functions of {@linkcode libc}. */
export type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

let opened: Libc | null | undefined;

/** libc, opened on first use; `null` off Linux or where it cannot be opened (no FFI permission). */
export function libc(): Libc | null {
  if (opened !== undefined) return opened;
  opened = null;
  if (Deno.build.os !== "linux") return opened;
  try {
    opened = Deno.dlopen("libc.so.6", SYMBOLS).symbols;
  } catch { /* no libc to open, or no permission */ }
  return opened;
}
