/**
 * Where a session's transcript lives, and which process holds it: a
 * session is open in one wave process at a time (two appending to one
 * transcript would interleave two histories). Small, since the CLI
 * claims a resumed session before `system/init`.
 *
 * @module
 */

import { dirname } from "../tools/kernel/posix_path.ts";

/**
 * What a session id (and a task list's) may be (`--session-id`,
 * `--resume`, ACP's `session/load`): a file name in `WAVE_HOME`'s
 * directories, never a path.
 */
export const SESSION_ID: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Where a session's transcript lives. */
export function transcriptPath(waveHome: string, sessionId: string): string {
  return `${waveHome}/sessions/${sessionId}.jsonl`;
}

/** The transcripts this process holds ({@linkcode claimTranscript}), by path: the open file each lock is on. */
const held = new Map<string, Deno.FsFile>();

/**
 * Claims the transcript at `path` for this process: an exclusive advisory
 * lock (`flock`) on it, made if missing, held until
 * {@linkcode releaseTranscript} or the process's end (the kernel drops it
 * then, so a killed wave leaves no stale claim). True when this process
 * holds it, also when it already did, and when the file cannot be opened
 * at all (nothing can be appended to it then either); false when another
 * process holds it: two waves appending to one session would interleave
 * two histories in it.
 */
export function claimTranscript(path: string): boolean {
  if (held.has(path)) return true;
  let file: Deno.FsFile;
  try {
    Deno.mkdirSync(dirname(path), { recursive: true });
    file = Deno.openSync(path, { append: true, create: true });
  } catch {
    return true;
  }
  if (!file.tryLockSync(true)) {
    file.close();
    return false;
  }
  held.set(path, file);
  return true;
}

/** Gives up this process's claim on the transcript at `path`, if it holds one. */
export function releaseTranscript(path: string): void {
  held.get(path)?.close();
  held.delete(path);
}
