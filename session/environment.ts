/**
 * The environment commands run with: cleared, then rebuilt from an
 * allow-list, so no model API key or token reaches a shell (docs/design.md
 * "The sandbox", layer 3).
 *
 * @module
 */

import { API_KEY_VARIABLES } from "./models/model_id.ts";

/** Variables a command gets when the parent environment has them. */
export const ALLOWED_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_COLLATE",
  "LC_NUMERIC",
  "LC_TIME",
  "TERM",
  "TMPDIR",
  "TZ",
];

/** The keys wave itself uses for models: never passed on, even when asked. */
export const MODEL_KEYS: readonly string[] = [
  ...Object.values(API_KEY_VARIABLES),
  // Claude Code's other credential, never read by wave but never passed on.
  "ANTHROPIC_AUTH_TOKEN",
];

/**
 * The environment for commands: the allow-list plus `extra` names the
 * parent allowed (`--env-allow`), minus wave's model keys.
 */
export function commandEnvironment(
  env: { get(name: string): string | undefined },
  extra: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...ALLOWED_ENV, ...extra]) {
    if (MODEL_KEYS.includes(name)) continue;
    const value = env.get(name);
    if (value !== undefined) out[name] = value;
  }
  out.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return out;
}

/**
 * Deletes wave's model keys from its environment, once the config holds
 * the key it needs: nothing wave starts later (a command, a worker, an
 * SDK reading its defaults) can inherit them by mistake. The kernel keeps
 * the block a process started with, so `/proc/<pid>/environ` still shows
 * them: that is why wave also makes itself non-dumpable
 * (`becomeNonDumpable`, tools/kernel/processes.ts).
 */
export function forgetModelKeys(env: { delete(name: string): void }): void {
  for (const name of MODEL_KEYS) env.delete(name);
}

/**
 * The warning for a session whose commands can still read wave itself:
 * commands run unconfined (`--shell-sandbox none`) as root with
 * `CAP_SYS_PTRACE` in their reach (`capabilityBound`: /proc/self/status's
 * `CapBnd`, which a root command's capabilities come from) read past
 * non-dumpable: wave's memory (the API key), environment, and its stdin
 * and stdout (the protocol). Null where no such command can.
 */
export function unconfinedRootWarning(
  shellSandbox: string,
  uid: number | null,
  capabilityBound: bigint,
): string | null {
  const CAP_SYS_PTRACE = 19n;
  if (shellSandbox !== "none" || uid !== 0) return null;
  if ((capabilityBound >> CAP_SYS_PTRACE & 1n) === 0n) return null;
  return "commands run as root with --shell-sandbox none: they can read wave's memory and environment (the model API key among them) and write to its stdin and stdout; confine them (--shell-sandbox bwrap) or run wave as another user";
}

/** This process's capability bounding set (`CapBnd` in /proc/self/status); 0 where there is none to read. */
export function capabilityBound(): bigint {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const hex = /^CapBnd:\s*([0-9a-f]+)$/m.exec(status)?.[1];
    return hex ? BigInt(`0x${hex}`) : 0n;
  } catch {
    return 0n;
  }
}
