/**
 * The part of a session's core that needs no tool module: the process
 * prepared for commands, its process groups and the sandbox executor. The
 * CLI starts it as soon as `system/init` is written and boots the file
 * readers' worker with it ({@linkcode bootReaders}), so that worker starts
 * and loads its tools on its own thread while this one loads the session;
 * {@linkcode openCore} (core.ts) then builds the rest on what was started.
 * Its graph is small on purpose: everything it imports the session needs
 * too, so starting it early moves work, it adds none; and it loads neither
 * Node's compatibility layer nor `node:crypto` (together ~40 ms), which
 * the session loads after the worker has started.
 *
 * @module
 */

import { pathOfFileUrl } from "./_paths.ts";
import { dirname } from "../tools/kernel/posix_path.ts";
import { type Config, spillDirOf, warmupDirOf } from "./config.ts";
import { FILE_PROGRAMS, SandboxExecutor } from "./executor.ts";
import {
  becomeNonDumpable,
  becomeSubreaper,
  COMMAND_MARKER,
  newMarkerPrefix,
  ProcessGroups,
} from "../tools/kernel/processes.ts";
import { findOnPath, resolvePrograms } from "../tools/kernel/programs.ts";
import { Sentinel } from "../tools/kernel/sentinel.ts";
import type { Scopes } from "../tools/kernel/tool.ts";
import { historyDirAsync } from "../tools/_core/history_key.ts";

/**
 * The scopes of the worker all read-only file tools share (the session's
 * `workerScopes`): it reads, and may run the file programs (ripgrep).
 */
export const READERS_SCOPES: Scopes = { read: true, run: [...FILE_PROGRAMS] };

/** What {@linkcode startCore} made, for {@linkcode openCore} to finish. */
export interface StartedCore {
  /** The config it was started for. */
  readonly from: Config;
  /** That config with WAVE_HOME's real location. */
  readonly config: Config;
  readonly processes: ProcessGroups;
  readonly executor: SandboxExecutor;
}

/**
 * Prepares the process (subreaper, non-dumpable, WAVE_HOME made 700) and
 * makes the session's process groups and sandbox executor for `config`.
 * Starts no worker and no process.
 */
export async function startCore(config: Config): Promise<StartedCore> {
  const from = config;
  // What a command detaches becomes wave's child, so it can be cleaned up.
  becomeSubreaper();
  // Before the first command runs: a process of wave's uid can then no
  // longer read wave's environment or memory, nor open its stdin or stdout.
  becomeNonDumpable();
  // WAVE_HOME exists before any command runs (mode 700), so no command can
  // make it first, or link its parts elsewhere, for wave to write through.
  try {
    Deno.mkdirSync(config.waveHome, { recursive: true, mode: 0o700 });
  } catch { /* read-only: commands cannot make it either; writes will say */ }
  // WAVE_HOME's real location, so paths under it compare with resolved ones.
  config = { ...config, waveHome: await realWaveHome(config.waveHome) };
  const markerPrefix = newMarkerPrefix();
  const processes = new ProcessGroups({
    markerPrefix,
    sentinel: new Sentinel(COMMAND_MARKER, markerPrefix, () => ({
      sh: findOnPath("sh"),
      setsid: findOnPath("setsid"),
    })),
  });
  const executor = new SandboxExecutor({
    workspace: config.workspace,
    waveHome: config.waveHome,
    historyDir: await historyDirAsync(config),
    processes,
    deadlineMs: config.toolDeadlineMs,
    fileBoundary: config.fileBoundary,
    spillDir: spillDirOf(config),
    warmupDir: warmupDirOf(config),
    // An extra module may import any of wave's own modules, not all of
    // which are in a worker's module graph; wave's source is no secret.
    moduleDirs: config.toolModules.length === 0 ? [] : [
      pathOfFileUrl(new URL("..", import.meta.url)),
      ...config.toolModules.map((url) => dirname(pathOfFileUrl(url))),
    ],
  });
  return { from, config, processes, executor };
}

/**
 * The real location of WAVE_HOME, which {@linkcode startCore} has just
 * made: `realpath`; where it could not be made (a read-only file system),
 * the resolver's `realPathOf`, which resolves its nearest existing
 * ancestor (loaded only then: it needs Node's path module).
 */
async function realWaveHome(waveHome: string): Promise<string> {
  try {
    return Deno.realPathSync(waveHome);
  } catch {
    const { realPathOf } = await import("../tools/kernel/workspace.ts");
    return realPathOf(waveHome);
  }
}

/**
 * Starts the file readers' worker of `started` and has it load `modules`
 * (references as `tools/loaders.ts` takes them: the read-only tools the
 * toolset names). It is the very worker the session's first read-only call
 * would start: same scopes, same programs, so the same permissions and
 * Landlock rules. Settles once the worker is started, its modules loading
 * on its own thread (a caller that goes on to hold this thread, as the
 * session's import does, would otherwise hold the start back until after);
 * never fails (a module that cannot load says so when its tool is called).
 */
export async function bootReaders(
  started: StartedCore,
  modules: readonly string[],
): Promise<void> {
  try {
    const programs = await resolvePrograms(
      READERS_SCOPES.run!,
      started.config.waveHome,
    );
    started.executor.prewarm(READERS_SCOPES, Object.values(programs), modules);
  } catch { /* the first call says why */ }
}

/**
 * Ends what {@linkcode startCore} started: every worker, every process group,
 * and the warm-up's scratch directory, if the session ended before the
 * warm-up did (or it never ran).
 */
export function stopStarted(started: StartedCore): void {
  started.executor.close();
  started.processes.killAll();
  try {
    Deno.removeSync(warmupDirOf(started.config), { recursive: true });
  } catch { /* already gone, or never made */ }
}
