// @ts-check
/**
 * The code of landlock.ts, which says what Landlock holds and types it for
 * TypeScript: plain JavaScript, so that a sandbox worker can restrict
 * itself with it before it loads anything Deno must transpile
 * (session/_tool_worker_entry.js).
 *
 * @module
 */

import { libc } from "./_libc.js";

/** @import { Libc } from "./_libc.js" */

/** The file access rights a rule may grant (Landlock's `LANDLOCK_ACCESS_FS_*`). */
export const Access = Object.freeze({
  execute: 1n << 0n,
  writeFile: 1n << 1n,
  readFile: 1n << 2n,
  readDir: 1n << 3n,
  removeDir: 1n << 4n,
  removeFile: 1n << 5n,
  makeChar: 1n << 6n,
  makeDir: 1n << 7n,
  makeReg: 1n << 8n,
  makeSock: 1n << 9n,
  makeFifo: 1n << 10n,
  makeBlock: 1n << 11n,
  makeSym: 1n << 12n,
  /** ABI 2: link or rename a file into another directory. */
  refer: 1n << 13n,
  /** ABI 3. */
  truncate: 1n << 14n,
  /** ABI 5. */
  ioctlDev: 1n << 15n,
});

/** The rights that apply to a file (a rule on a file may grant only these). */
const FILE_RIGHTS = Access.execute | Access.writeFile | Access.readFile |
  Access.truncate | Access.ioctlDev;

/** Reading a file or a tree. */
export const READ = Access.readFile | Access.readDir;
/** Reading, changing, creating and removing files and directories in a tree (no devices, FIFOs, sockets or symlinks). */
export const READ_WRITE = READ | Access.writeFile | Access.truncate |
  Access.makeReg | Access.makeDir | Access.removeFile | Access.removeDir |
  Access.refer;
/** Running a program (and reading it). */
export const EXECUTE = Access.execute | Access.readFile;

/**
 * One grant: `path` (a file or a directory and all below it) and what may
 * be done there.
 *
 * @typedef {{ path: string, access: bigint }} LandlockRule
 */

/**
 * The rights each ABI version knows; a ruleset may handle no more.
 *
 * @param {number} abi
 * @returns {bigint}
 */
function handledBy(abi) {
  let all = (1n << 13n) - 1n;
  if (abi >= 2) all |= Access.refer;
  if (abi >= 3) all |= Access.truncate;
  if (abi >= 5) all |= Access.ioctlDev;
  return all;
}

const SYS_LANDLOCK_CREATE_RULESET = 444n;
const SYS_LANDLOCK_ADD_RULE = 445n;
const SYS_LANDLOCK_RESTRICT_SELF = 446n;
const LANDLOCK_CREATE_RULESET_VERSION = 1n;
const LANDLOCK_RULE_PATH_BENEATH = 1n;
const PR_SET_NO_NEW_PRIVS = 38;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
const O_NOFOLLOW = 0o400000;
const SYS_OPENAT2 = 437n;
const AT_FDCWD = -100n;
const RESOLVE_NO_SYMLINKS = 0x04n;
const ENOSYS = 38;
const EPERM = 1;

/**
 * libc, where Landlock's syscalls can be made: x86-64 Linux (the numbers
 * above are its).
 *
 * @returns {Libc | null}
 */
function openLibc() {
  return Deno.build.arch === "x86_64" ? libc() : null;
}

/** @type {number | undefined} */
let abiVersion;

/**
 * The Landlock ABI version the kernel offers (1 = Linux 5.13; this
 * module's rules need 1 or later), or 0 where there is none: another
 * kernel, Landlock disabled at boot, or no FFI permission to ask.
 *
 * @returns {number}
 */
export function landlockAbi() {
  if (abiVersion !== undefined) return abiVersion;
  const lib = openLibc();
  const version = lib
    ? Number(
      lib.syscall(
        SYS_LANDLOCK_CREATE_RULESET,
        0n,
        0n,
        LANDLOCK_CREATE_RULESET_VERSION,
        0n,
      ),
    )
    : 0;
  abiVersion = version > 0 ? version : 0;
  return abiVersion;
}

/**
 * How the file tools are held to their roots: `landlock` (the kernel
 * checks every open, create, listing, rename and removal, symlinks and
 * races included) where the kernel offers it, else `paths` (the resolver's
 * checks and Deno's permissions, which compare path strings: a symlink
 * swapped in between a check and an open is followed).
 *
 * @returns {"landlock" | "paths"}
 */
export function fileBoundary() {
  return landlockAbi() > 0 ? "landlock" : "paths";
}

/**
 * Adds one path-beneath rule; false when the kernel refuses it.
 *
 * @param {Libc} lib
 * @param {bigint} ruleset
 * @param {number} fd
 * @param {bigint} access
 * @returns {boolean}
 */
function addRule(lib, ruleset, fd, access) {
  if (access === 0n) return true;
  // struct landlock_path_beneath_attr (packed): allowed_access u64, parent_fd s32.
  const beneath = new Uint8Array(12);
  const view = new DataView(beneath.buffer);
  view.setBigUint64(0, access, true);
  view.setInt32(8, fd, true);
  return lib.syscall(
    SYS_LANDLOCK_ADD_RULE,
    ruleset,
    LANDLOCK_RULE_PATH_BENEATH,
    pointerOf(beneath),
    0n,
  ) >= 0n;
}

/**
 * A descriptor (`O_PATH`) of what `path` names, opened without following a
 * symlink in any of its components (`openat2`'s `RESOLVE_NO_SYMLINKS`), or
 * -1 when it cannot be: a rule is granted on the directory the main
 * thread named (by its real path), never on where a symlink swapped in
 * since would lead. Where `openat2` is not offered (a seccomp filter that
 * predates it), the last component is not followed (`O_NOFOLLOW`).
 *
 * @param {Libc} lib
 * @param {string} path
 * @returns {number}
 */
function openWithoutLinks(lib, path) {
  const name = new TextEncoder().encode(`${path}\0`);
  // struct open_how: flags, mode, resolve (u64 each).
  const how = new BigUint64Array([
    BigInt(O_PATH | O_CLOEXEC),
    0n,
    RESOLVE_NO_SYMLINKS,
  ]);
  const fd = lib.syscall(
    SYS_OPENAT2,
    AT_FDCWD,
    pointerOf(name),
    pointerOf(how),
    BigInt(how.byteLength),
  );
  if (fd >= 0n) return Number(fd);
  const errno = errnoOf(lib);
  if (errno !== ENOSYS && errno !== EPERM) return -1;
  return lib.open(name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
}

/**
 * This thread's `errno`.
 *
 * @param {Libc} lib
 * @returns {number}
 */
function errnoOf(lib) {
  const at = lib.__errno_location();
  return at === null ? 0 : new Deno.UnsafePointerView(at).getInt32();
}

/**
 * @param {BufferSource} buffer
 * @returns {bigint}
 */
function pointerOf(buffer) {
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(buffer)));
}

/**
 * Restricts the calling thread (and every thread and process it starts
 * from now on) to `rules`: any file access Landlock governs that no rule
 * grants fails with EACCES. A rule whose path does not exist is skipped
 * (nothing there to grant); a rule on a file keeps only the rights that
 * apply to files.
 *
 * Returns null on success, else why it could not (no Landlock, a failing
 * system call); the thread is then not restricted at all, never half.
 *
 * @param {readonly LandlockRule[]} rules
 * @returns {string | null}
 */
export function restrictThread(rules) {
  const abi = landlockAbi();
  if (abi === 0) return "Landlock is not available on this kernel";
  const lib = /** @type {Libc} */ (openLibc());
  const handled = handledBy(abi);
  // struct landlock_ruleset_attr: handled_access_fs (u64); the later
  // fields (network, scopes) stay unhandled by passing only its first 8 bytes.
  const attr = new BigUint64Array([handled]);
  const ruleset = lib.syscall(
    SYS_LANDLOCK_CREATE_RULESET,
    pointerOf(attr),
    8n,
    0n,
    0n,
  );
  if (ruleset < 0n) return "landlock_create_ruleset failed";
  try {
    for (const rule of rules) {
      const fd = openWithoutLinks(lib, rule.path);
      if (fd < 0) continue;
      try {
        // Rights for a tree first; on a file the kernel refuses those
        // (EINVAL), and the rule is added again with a file's rights.
        const tree = rule.access & handled;
        const file = tree & FILE_RIGHTS;
        if (!addRule(lib, ruleset, fd, tree)) {
          if (file === 0n || !addRule(lib, ruleset, fd, file)) {
            return `landlock_add_rule failed for ${rule.path}`;
          }
        }
      } finally {
        lib.close(fd);
      }
    }
    // Required of a thread without CAP_SYS_ADMIN; it also keeps what the
    // thread runs from gaining privileges (setuid programs stay unprivileged).
    if (lib.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) {
      return "prctl(PR_SET_NO_NEW_PRIVS) failed";
    }
    if (lib.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0n, 0n, 0n) < 0n) {
      return "landlock_restrict_self failed";
    }
    return null;
  } finally {
    lib.close(Number(ruleset));
  }
}
