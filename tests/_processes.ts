/**
 * Looking for processes in /proc, for tests that check nothing is left
 * behind.
 *
 * @module
 */

import { waitUntil } from "./_waiting.ts";

/** Live (not zombie) processes whose command line is exactly `cmdline`, not a shell whose script mentions it. */
export function processesWith(cmdline: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`)
        .replaceAll("\0", " ").trim();
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (line === cmdline && stat.split(") ")[1]?.[0] !== "Z") {
        pids.push(Number(entry.name));
      }
    } catch { /* gone */ }
  }
  return pids;
}

/**
 * Waits until `count` live processes run exactly `cmdline` (a command's
 * children exist only once they have been exec'd, a moment after the
 * command went on), and returns their pids. On timeout the error says how
 * many of how many were there.
 */
export async function processesStarted(
  cmdline: string,
  count = 1,
  timeoutMs?: number,
): Promise<number[]> {
  return await waitUntil(
    () => {
      const pids = processesWith(cmdline);
      return pids.length >= count && pids;
    },
    `${count} process(es) running \`${cmdline}\``,
    {
      timeoutMs,
      detail: () => `${processesWith(cmdline).length} were running`,
    },
  );
}

/**
 * The processes with `cmdline` still there after at most `withinMs`: a
 * SIGKILL is delivered at once, but a process takes a moment to die.
 */
export async function processesLeft(
  cmdline: string,
  withinMs = 2000,
): Promise<number[]> {
  for (const end = Date.now() + withinMs; Date.now() < end;) {
    if (processesWith(cmdline).length === 0) return [];
    await new Promise((r) => setTimeout(r, 50));
  }
  return processesWith(cmdline);
}

/** A process wave made ahead for a command (see tools/_core/shell.ts). */
export interface PreparedProcess {
  pid: number;
  /** Its command line, arguments joined by spaces. */
  cmdline: string;
}

/**
 * The live processes that `parent` made ahead for commands (a sandbox or
 * a shell waiting for its script), oldest first.
 */
export function processesPreparedBy(parent: number): PreparedProcess[] {
  const found: (PreparedProcess & { started: number })[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`)
        .replaceAll("\0", " ").trim();
      // After the command name: the state, the parent, ..., the start time (22nd).
      const fields = Deno.readTextFileSync(`/proc/${entry.name}/stat`)
        .split(") ")[1].split(" ");
      if (
        fields[0] !== "Z" && Number(fields[1]) === parent &&
        cmdline.includes('IFS= read -r -d "" BASH_EXECUTION_STRING')
      ) {
        found.push({
          pid: Number(entry.name),
          cmdline,
          started: Number(fields[19]),
        });
      }
    } catch { /* gone */ }
  }
  return found.sort((a, b) => a.started - b.started || a.pid - b.pid)
    .map(({ pid, cmdline }) => ({ pid, cmdline }));
}
