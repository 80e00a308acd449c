/**
 * What a call's check judged is what the call opens.
 *
 * A file tool resolves a path and judges it (inside the workspace, not a
 * sensitive file), then opens it. Landlock holds the workspace's boundary
 * at the open, but not the sensitive files inside it: a process that swaps
 * the checked file for a link (symbolic or hard) to the workspace's `.env`
 * between the check and the open would have the tool read the secret.
 * Here the check pins the identity (device and inode) of what it judged
 * (a link's own, or nothing), and the open (`openRegularFile`) refuses a
 * file with another identity under that path as changed while the call ran.
 *
 * Pins belong to one call ({@linkcode withCheckedFiles}, which the tool
 * worker runs each call in): a file rewritten since an earlier call (a
 * command's edit, an editor's save) is no change for a later one. A write
 * of the call itself (`atomicWrite`) pins the file it put there.
 * Outside a call (the main thread, unit tests) nothing is pinned and every
 * open goes through. What is pinned is the last component as `lstat`
 * finds it right after the resolution: a directory of the path swapped
 * between the two is not caught here (README: the boundary).
 *
 * @module
 */

import type { AsyncLocalStorage } from "node:async_hooks";
import { ToolError } from "./tool_error.ts";
import { fileIdentity } from "./stat.ts";

/** The identity of each regular file a call's check judged, by real path. */
type Pins = Map<string, string>;

/**
 * Each call's pins, made by the first call: `node:async_hooks` loads
 * Deno's Node compatibility layer, which a thread that runs no call (the
 * main thread, which loads this module with the tools' definitions)
 * should not pay for (kernel/posix_path.ts). Before it, no call has run,
 * so there is nothing pinned to find.
 */
let calls: AsyncLocalStorage<Pins> | undefined;

/**
 * Runs `call` (a tool call) with pins of its own: what its checks pin,
 * its opens are held to, until it returns.
 */
export function withCheckedFiles<T>(call: () => T): T {
  calls ??= new (process.getBuiltinModule(
    "node:async_hooks",
  ) as typeof import("node:async_hooks")).AsyncLocalStorage<Pins>();
  return calls.run(new Map(), call);
}

/**
 * Pins what the call's check judged at `real`: `identity`, as the
 * resolver took it in the same step as its judgment
 * (`ResolvedPath.identity`, a link's own identity when a link was there,
 * `NOTHING_THERE` when nothing was). Outside a call, nothing is pinned.
 */
export function pinChecked(real: string, identity: string): void {
  calls?.getStore()?.set(real, identity);
}

/** Pins the file the call itself has just put at `path` (its new identity). */
export function pinWritten(
  path: string,
  written: { dev: number; ino: number | null },
): void {
  calls?.getStore()?.set(path, fileIdentity(written));
}

/**
 * Throws when the file opened as `path` is not the one the call's check
 * pinned there: the path was swapped (for a link to another file, or
 * another file) after the check. `shown` names it in the message.
 */
export function assertOpenedAsChecked(
  path: string,
  opened: { dev: number; ino: number },
  shown = path,
): void {
  const pinned = calls?.getStore()?.get(path);
  if (pinned === undefined || pinned === fileIdentity(opened)) return;
  throw changedDuringCall(shown);
}

/**
 * The refusal of a file found other than its check judged it
 * (`changed_during_call`), naming it as `shown`.
 */
function changedDuringCall(shown: string): ToolError {
  return new ToolError(
    `${shown} changed while the call ran: another file was put under its name after the check, so it was not read. Try again.`,
    { type: "changed_during_call" },
  );
}

/**
 * The refusal of a path that was ordinary when the call came and is, as
 * it runs, `now` (a sensitive file, or outside the workspace): the parent,
 * whose approval that needs, was not asked (`changed_during_call`).
 */
export function changedToGuarded(shown: string, now: string): ToolError {
  return new ToolError(
    `${shown} changed while the call ran and needs the parent's approval now (${now}), so it was not used. Call again to ask for it.`,
    { type: "changed_during_call" },
  );
}
