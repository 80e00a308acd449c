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
 * Deletes `NODE_V8_COVERAGE` from wave's environment. Node's spawn, which
 * hands ripgrep a file wave opened (tools/_core/ripgrep.ts), passes that
 * variable on to the child whatever environment it is given; wave has no
 * Node coverage to collect, and without it ripgrep's environment is `PATH`
 * alone, as every other program's is built.
 */
export function forgetNodeCoverage(env: { delete(name: string): void }): void {
  env.delete("NODE_V8_COVERAGE");
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

/**
 * The warning for a session whose unconfined commands can reach a model
 * key through a process above wave: a launcher that stays alive while wave
 * runs (`deno task start`, `npx … deno run`), or the parent itself, started
 * with the key in its environment. wave forgets its own copy and is
 * non-dumpable; such a process is neither, so a command of its uid reads
 * its `/proc/<pid>/environ`, and a launcher holds wave's stdin and stdout
 * pipes too (a command could write protocol lines into them). Looks up the
 * chain while the processes are this one's uid. Null where none above wave
 * shows a key (or /proc cannot tell).
 */
export function keyAboveWarning(pid: number = Deno.pid): string | null {
  const uidOf = (status: string) => /^Uid:\s*(\d+)/m.exec(status)?.[1];
  let status: string;
  try {
    status = Deno.readTextFileSync(`/proc/${pid}/status`);
  } catch {
    return null; // no /proc
  }
  const uid = uidOf(status);
  for (let depth = 0; depth < 16; depth++) {
    const parent = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    if (parent <= 1) return null;
    let environ: string;
    try {
      status = Deno.readTextFileSync(`/proc/${parent}/status`);
      if (uidOf(status) !== uid) return null;
      environ = Deno.readTextFileSync(`/proc/${parent}/environ`);
    } catch {
      return null; // gone, or not readable: nor by a command
    }
    const entries = environ.split("\0");
    const held = MODEL_KEYS.filter((name) =>
      entries.some((entry) =>
        entry.startsWith(`${name}=`) && entry.length > name.length + 1
      )
    );
    if (held.length > 0) {
      let command = "";
      try {
        command = Deno.readTextFileSync(`/proc/${parent}/cmdline`)
          .replaceAll("\0", " ").trim().slice(0, 100);
      } catch { /* gone */ }
      return `the process that started wave (pid ${parent}${
        command ? `: ${command}` : ""
      }) holds ${
        held.join(", ")
      } in its environment, which commands run unconfined (--shell-sandbox none, or auto where bubblewrap cannot run) can read, as they can its pipes to wave; start wave so that nothing above it keeps the key (bin/wave, which execs deno, or a parent that passes the key in a file: --api-key-file), or confine commands`;
    }
  }
  return null;
}
