/**
 * Child process groups, tracked by the main thread: sandbox workers cannot
 * signal a group (`Deno.kill` needs full `run`), and shutdown must reach
 * every group even when the worker that started it is stuck or gone.
 *
 * @module
 */

import { libc } from "./_libc.js";
import type { ProcessGroupsView } from "./tool.ts";
import type { Sentinel } from "./sentinel.ts";

/**
 * The worker id of the session's own thread, where a command tool's
 * calls run (workers are numbered from 1): its groups end at shutdown.
 */
export const SESSION_THREAD = 0;

/**
 * Sends a signal to a whole process group, or, when there is no such
 * group, to its would-be leader: a child started under `setsid` that has
 * not yet made its group, or one started in wave's own group. A process
 * that is gone is ignored.
 */
export function signalGroup(pgid: number, signal: Deno.Signal): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  // A command's group is signalled once more after its leader has exited
  // (nothing may outlive the call): asked first, a group and a leader that
  // are gone cost no exceptions (a few hundred microseconds on the answer's
  // path).
  if (!exists(pgid) && !exists(-pgid)) return;
  // bubblewrap's sandbox (its pid 1) is a child of the group's leader in
  // a session of its own; killed while it is being made, before it asked
  // to die with its parent, it would wait for that parent forever. It is
  // killed with the leader (its children are looked up before the leader
  // dies and they become wave's).
  const children = signal === "SIGKILL" ? childrenOf(pgid) : [];
  for (const target of [-pgid, pgid]) {
    try {
      Deno.kill(target, signal);
      break;
    } catch (error) {
      // ESRCH surfaces as NotFound; anything else is worth a log line.
      if (!(error instanceof Deno.errors.NotFound)) {
        console.error(`wave: could not signal process group ${pgid}:`, error);
        break;
      }
    }
  }
  for (const child of children) {
    try {
      Deno.kill(child, signal);
    } catch { /* gone */ }
  }
}

/** A system call's number on this machine's architecture, where wave knows it. */
function syscallNumber(
  numbers: { x86_64: bigint; aarch64: bigint },
): bigint | undefined {
  const arch = Deno.build.arch;
  return arch === "x86_64" || arch === "aarch64" ? numbers[arch] : undefined;
}

/** `kill(2)`'s number where wave calls it through libc ({@linkcode exists}). */
const SYS_KILL = syscallNumber({ x86_64: 62n, aarch64: 129n });

/**
 * Whether a process (`pid`) or a group (`-pgid`) exists, asked with
 * `kill(target, 0)` through libc, which fails without an exception; true
 * where it cannot be asked. A process this thread may not signal counts as
 * gone (wave's commands are its own children, of its own user).
 */
function exists(target: number): boolean {
  const lib = libc();
  if (SYS_KILL === undefined || !lib) return true;
  return lib.syscall(SYS_KILL, BigInt(target), 0n, 0n, 0n) === 0n;
}

/** `wait4(2)`'s number, for reaping what wave inherits ({@linkcode reap}). */
const SYS_WAIT4 = syscallNumber({ x86_64: 61n, aarch64: 260n });

/**
 * Reaps `pid`, a child of wave that has exited, if it has (`wait4` with
 * `WNOHANG`); whether it is gone now. Only for a process wave inherited as
 * subreaper, never one Deno started: Deno waits for its own children, and
 * would find the status taken.
 */
function reap(pid: number): boolean {
  const lib = libc();
  if (SYS_WAIT4 === undefined || !canReap() || !lib) return false;
  const WNOHANG = 1n;
  return lib.syscall(SYS_WAIT4, BigInt(pid), 0n, WNOHANG, 0n) === BigInt(pid);
}

/**
 * Whether wave can reap and ask for processes here (the syscalls' numbers
 * are known, libc opens): else it keeps no record of what to reap.
 */
function canReap(): boolean {
  return SYS_WAIT4 !== undefined && SYS_KILL !== undefined && libc() !== null;
}

/** How many pid namespaces deep this process is (its `NSpid` line's pids). */
function pidNamespaceDepth(pid: number | "self"): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const line = /^NSpid:(.*)$/m.exec(status)?.[1];
    return line ? line.trim().split(/\s+/).length : 0;
  } catch {
    return 0;
  }
}

let ownDepth: number | undefined;

/**
 * Whether a child of wave is the first process of a pid namespace below
 * wave's (bubblewrap's pid 1, which becomes wave's child when the
 * bubblewrap that started it exits first): never a process Deno started,
 * which all live in wave's own namespace.
 */
function isNamespaceInit(pid: number): boolean {
  ownDepth ??= pidNamespaceDepth("self");
  return ownDepth > 0 && pidNamespaceDepth(pid) > ownDepth;
}

/**
 * When a process started (`/proc/<pid>/stat`'s starttime, in clock ticks
 * since boot; a zombie keeps it), or null where it is gone. A pid with
 * another start time is another process: the pid was used again.
 */
function startTimeOf(pid: number): number | null {
  // starttime is the 22nd field of the line, the 20th after the name.
  const fields = statFields(pid);
  return fields ? Number(fields[19]) : null;
}

/** Whether `pid` has died: gone, or a zombie (its children are reparented by then). */
function hasDied(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state === undefined || state === "Z" || state === "X";
}

/**
 * The fields of `/proc/<pid>/stat` after the name (which may hold spaces
 * and parentheses): state first. Null where the process is gone.
 */
function statFields(pid: number): string[] | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Sleeps this thread for `ms` (shutdown's short waits for processes to exit: a sleep, not a spin). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The processes in a cgroup v2 (none once it is gone). */
function cgroupMembers(dir: string): number[] {
  try {
    return Deno.readTextFileSync(`${dir}/cgroup.procs`).split("\n")
      .filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * The leaders of the groups wave's sessions in this process started,
 * which Deno started and reaps itself, until they are gone: no sweep
 * reaps one (a group killed outright is forgotten before Deno has reaped
 * its leader).
 */
const spawned = new Set<number>();

/** A process's children, as /proc lists them per thread (none once it is gone). */
function childrenOf(pid: number): number[] {
  const pids: number[] = [];
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const text = Deno.readTextFileSync(
        `/proc/${pid}/task/${task.name}/children`,
      );
      for (const child of text.split(" ")) if (child) pids.push(Number(child));
    }
  } catch { /* gone, or no /proc */ }
  return pids;
}

/** The environment variable that marks every process a command starts (see {@linkcode ProcessGroups}). */
export const COMMAND_MARKER = "WAVE_COMMAND";

/**
 * A session's marker prefix: wave's pid and a random part. Every marker
 * of the session's commands starts with it ({@linkcode newCommandMarker}):
 * that is how its sentinel (sentinel.ts) finds what they left, also a
 * process being made as wave died, and none of another session's in the
 * same process.
 */
export function newMarkerPrefix(): string {
  return `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A new command marker: the session's `prefix`, `label` if given (an MCP server's), then a UUID. */
export function newCommandMarker(prefix: string, label?: string): string {
  return `${prefix}-${
    label === undefined ? "" : `${label}-`
  }${crypto.randomUUID()}`;
}

/** `prctl(2)` with one argument; false where it failed or cannot be called. */
function prctl(option: number, value: bigint): boolean {
  return libc()?.prctl(option, value, 0n, 0n, 0n) === 0;
}

/**
 * Makes this process the subreaper of its descendants (Linux
 * `PR_SET_CHILD_SUBREAPER`): what a command detaches becomes wave's child
 * once its parents are gone, so the sweep can find it. False where it
 * cannot be.
 */
export function becomeSubreaper(): boolean {
  const PR_SET_CHILD_SUBREAPER = 36;
  return prctl(PR_SET_CHILD_SUBREAPER, 1n);
}

/**
 * Makes this process non-dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`):
 * its `/proc/<pid>/environ`, `mem` and `fd/` then belong to root, so a
 * process of the same uid (a command wave runs) can neither read wave's
 * environment or memory nor open its stdin or stdout to forge protocol
 * lines. A process with `CAP_SYS_PTRACE` (root, in most containers) still
 * can. wave's own threads are unaffected, and so are its children: exec
 * makes a program dumpable again. Call it before the first command runs.
 */
export function becomeNonDumpable(): boolean {
  const PR_SET_DUMPABLE = 4;
  return prctl(PR_SET_DUMPABLE, 0n);
}

/** This process's children. */
function children(): number[] {
  return childrenOf(Deno.pid);
}

/**
 * The command marker in a process's environment: the marker, `""` when it
 * has none, `null` when its environment cannot be read (it has exited: a
 * zombie waiting to be reaped, or it is gone).
 */
function markerOf(pid: number): string | null {
  try {
    const environ = Deno.readTextFileSync(`/proc/${pid}/environ`);
    const entry = environ.split("\0").find((e) =>
      e.startsWith(`${COMMAND_MARKER}=`)
    );
    return entry?.slice(COMMAND_MARKER.length + 1) ?? "";
  } catch {
    return null;
  }
}

/** How long wave waits for a killed cgroup to empty before removing it (it is removed later otherwise). */
const CGROUP_EMPTY_WAIT_MS = 200;
/** How long a killed cgroup that has not emptied is retried for, in the background. */
const CGROUP_REMOVE_RETRY_MS = 10_000;

let cgroupsMade = 0;
/** How many emptied cgroups a session keeps for its next commands. */
const IDLE_CGROUPS = 4;

/**
 * Kills every process in a cgroup v2 at once (`cgroup.kill`, which also
 * reaches what is forked meanwhile), and waits up to `waitMs` for it to
 * empty; whether it did.
 */
function killCgroup(dir: string, waitMs: number): boolean {
  try {
    Deno.writeTextFileSync(`${dir}/cgroup.kill`, "1");
  } catch {
    return true; // gone already
  }
  const end = performance.now() + waitMs;
  while (true) {
    try {
      const events = Deno.readTextFileSync(`${dir}/cgroup.events`);
      if (/^populated 0$/m.test(events)) return true;
    } catch {
      return true;
    }
    if (performance.now() >= end) return false;
    // A process killed takes a moment to exit.
    sleepSync(2);
  }
}

/** How long shutdown waits for the command cgroups to empty so it can remove them. */
const SHUTDOWN_REMOVE_MS = 2000;

/** Removes a cgroup now; whether it is gone. */
function tryRemoveCgroup(dir: string): boolean {
  try {
    Deno.removeSync(dir);
    return true;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}

/** Removes an emptied cgroup; a busy one is retried in the background for a while. */
function removeCgroup(
  dir: string,
  until = performance.now() + CGROUP_REMOVE_RETRY_MS,
): void {
  try {
    Deno.removeSync(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    if (performance.now() > until) {
      console.error(`wave: could not remove the command cgroup ${dir}:`, error);
      return;
    }
    Deno.unrefTimer(setTimeout(() => {
      killCgroup(dir, 0);
      removeCgroup(dir, until);
    }, 50));
  }
}

/**
 * Kills and removes the command cgroups of waves that are gone (killed
 * before they could remove them): what is still in one outlived its
 * command.
 */
function removeStaleCgroups(parent: string): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(parent)];
  } catch {
    return;
  }
  for (const { name, isDirectory } of entries) {
    const pid = /^wave-command-(\d+)-\d+$/.exec(name)?.[1];
    if (!isDirectory || !pid || Number(pid) === Deno.pid) continue;
    try {
      Deno.statSync(`/proc/${pid}`);
      continue; // that wave still runs
    } catch { /* gone */ }
    killCgroup(`${parent}/${name}`, CGROUP_EMPTY_WAIT_MS);
    removeCgroup(`${parent}/${name}`);
  }
}

/** How many ended commands' markers are remembered for sweeps. */
const MARKERS_KEPT = 256;
/** A second sweep after a command ends, for descendants orphaned late (their parent took a moment to die). */
const LATE_SWEEP_MS = 250;

/**
 * The process groups this session has started and not yet seen exit, and
 * what escaped them. A command runs in a group of its own, which wave
 * kills when it ends; a process that left the group (`setsid`, a daemon)
 * still carries the command's marker in its environment, and once its
 * parents are gone it is wave's child (see {@linkcode becomeSubreaper}):
 * a sweep of wave's children kills those of ended commands.
 */
export class ProcessGroups {
  /** What kills this session's groups, cgroups and marked processes if wave is killed outright. */
  readonly #sentinel?: Sentinel;
  /** The start of every marker of this session's commands ({@linkcode newMarkerPrefix}). */
  readonly markerPrefix: string;
  /** pgid → the call (and worker) that started it, and the command's marker. */
  #groups = new Map<
    number,
    {
      callId: string;
      workerId: number;
      marker?: string;
      cgroup?: string;
      /** Started ahead of its call (a prepared process): its cgroup is no call's to release. */
      ahead?: boolean;
    }
  >();
  /** The cgroups a running group has joined (ended with it), or a worker holds for one it is starting. */
  #bound = new Set<string>();
  /** The cgroups held for processes workers are starting ahead: cgroup → worker. */
  #held = new Map<string, number>();
  /** Markers of commands that have ended, oldest first. */
  #ended = new Set<string>();
  /**
   * Processes the sweep killed, children of wave (their subreaper) and
   * none of them Deno's, by pid with their start time: reaped once they
   * have died, if that pid is still theirs. (One reaped by another parent
   * frees its pid, which a process Deno starts may take: reaping that one
   * would take its exit status from Deno.)
   */
  #killed = new Map<number, number>();
  /** The cgroups made for calls' commands and not yet ended. */
  #cgroups = new Set<string>();
  /** Ended cgroups not yet seen empty, watched in the background. */
  #draining = new Set<string>();
  /** Emptied cgroups kept for the next commands. */
  #idleCgroups: string[] = [];
  /** The parents whose cgroups left by waves that are gone have been removed. */
  #tidied = new Set<string>();
  /** Set by {@linkcode killAll}: no cgroup is kept after it. */
  #closed = false;
  /** A sweep is waiting to run (the ended groups' sweeps are one). */
  #sweepDue = false;
  /** A late sweep is waiting to run. */
  #lateSweepDue = false;
  /** A group ended after the waiting late sweep was set: another follows it. */
  #lateSweepAgain = false;

  /**
   * Runs work that must not delay a call's answer (a sweep, the next
   * command's process) once the answer is out: the session sets it to run
   * after its next write (`ProtocolWriter.afterNextWrite`). By default, at
   * the next turn.
   */
  offPath: (task: () => void) => void = (task) => setTimeout(task, 0);

  /**
   * With a `sentinel` (made for the same `markerPrefix`), what this
   * registers is also killed when wave is killed outright (the session's;
   * tests of the registry go without).
   */
  constructor(
    options: { sentinel?: Sentinel; markerPrefix?: string } = {},
  ) {
    this.#sentinel = options.sentinel;
    this.markerPrefix = options.markerPrefix ?? newMarkerPrefix();
  }

  /**
   * Makes an empty cgroup v2 under `parent` (see
   * `commandCgroupParent` in session/command_sandbox.ts) for one command,
   * which joins it before it runs; the end of the group that joined it
   * ({@linkcode started}), {@linkcode releaseCgroups} when none did,
   * {@linkcode endCgroup} and {@linkcode killAll} kill whatever is in it.
   * Throws when it cannot be made, and once {@linkcode killAll} has run.
   */
  makeCgroup(parent: string): string {
    // Nothing would remove it (a process prepared after the last call).
    if (this.#closed) throw new Error("wave is shutting down");
    if (!this.#tidied.has(parent)) {
      this.#tidied.add(parent);
      removeStaleCgroups(parent);
    }
    this.#sentinel?.watchCgroups(parent);
    // An emptied cgroup is used again: making and removing one costs more
    // than the command `true`.
    let dir = this.#idleCgroups.pop();
    if (dir === undefined || !dir.startsWith(`${parent}/`)) {
      if (dir !== undefined) removeCgroup(dir);
      dir = `${parent}/wave-command-${Deno.pid}-${++cgroupsMade}`;
      Deno.mkdirSync(dir);
    }
    this.#cgroups.add(dir);
    return dir;
  }

  /**
   * Kills every process in a call's cgroup, whatever it did to leave its
   * group or clear its environment, and removes the cgroup.
   */
  endCgroup(dir: string): void {
    if (!this.#cgroups.delete(dir)) return;
    if (this.#closed) {
      killCgroup(dir, CGROUP_EMPTY_WAIT_MS);
      return removeCgroup(dir);
    }
    if (killCgroup(dir, 0)) return this.#keepOrRemove(dir);
    // A call's answer does not wait for its cgroup to empty (what was
    // killed takes a moment to exit): it is watched in the background, and
    // at shutdown ({@linkcode killAll}) waited for.
    this.#draining.add(dir);
    const end = performance.now() + CGROUP_EMPTY_WAIT_MS;
    const check = () => {
      if (!this.#draining.has(dir)) return; // killAll took it
      const empty = killCgroup(dir, 0);
      if (!empty && performance.now() < end) {
        return Deno.unrefTimer(setTimeout(check, 2));
      }
      this.#draining.delete(dir);
      if (empty) this.#keepOrRemove(dir);
      else removeCgroup(dir);
    };
    Deno.unrefTimer(setTimeout(check, 2));
  }

  /** Keeps an emptied cgroup for the next commands, or removes it. */
  #keepOrRemove(dir: string): void {
    if (!this.#closed && this.#idleCgroups.length < IDLE_CGROUPS) {
      this.#idleCgroups.push(dir);
    } else removeCgroup(dir);
  }

  /**
   * Records a group a call started (or one started `ahead` of its call,
   * a prepared process), and the cgroup (one this made) its command
   * joins: when the group ends or is killed, so is everything in that
   * cgroup.
   */
  started(
    pgid: number,
    callId: string,
    workerId: number,
    marker?: string,
    cgroup?: string,
    ahead = false,
  ): boolean {
    // A worker's word is not enough: it could name any group of wave's
    // user (the parent's, an editor's) for wave to kill or signal.
    if (!this.#mayTake(pgid, workerId)) return false;
    // After shutdown nothing new may live (a process prepared as it began).
    if (this.#closed) {
      signalGroup(pgid, "SIGKILL");
      return false;
    }
    const bound = cgroup !== undefined && this.#cgroups.has(cgroup)
      ? cgroup
      : undefined;
    if (canReap()) spawned.add(pgid);
    this.#sentinel?.watchGroup(pgid);
    this.#groups.set(pgid, {
      callId,
      workerId,
      marker,
      cgroup: bound,
      ahead,
    });
    if (bound) {
      this.#bound.add(bound);
      this.#held.delete(bound);
    }
    return true;
  }

  /**
   * Whether a group reported by `workerId` may be recorded as its own: one
   * wave started (its leader is wave's child, alive or a zombie; or, the
   * leader gone already, one of wave's children, a process the command
   * left and wave inherited as subreaper, is in it), neither the
   * sentinel's nor one recorded for another worker or an MCP server.
   */
  #mayTake(pgid: number, workerId: number): boolean {
    if (!Number.isSafeInteger(pgid) || pgid <= 1) return false;
    if (pgid === this.#sentinel?.pid) return false;
    const owner = this.#groups.get(pgid);
    if (owner) return owner.workerId === workerId;
    const leader = statFields(pgid);
    if (leader) return Number(leader[1]) === Deno.pid;
    return children().some((pid) => Number(statFields(pid)?.[2]) === pgid);
  }

  /**
   * Keeps a call's cgroup for a process its worker is about to start
   * ahead (then {@linkcode started} with it): not released when the call
   * ends, and ended with the worker ({@linkcode releaseHeld}) if no
   * process joins it.
   */
  hold(cgroup: string, workerId: number): void {
    if (!this.#cgroups.has(cgroup) || this.#bound.has(cgroup)) return;
    this.#bound.add(cgroup);
    this.#held.set(cgroup, workerId);
  }

  /** Ends the cgroups a worker held and no process of its joined (the worker has ended). */
  releaseHeld(workerId: number): void {
    for (const [cgroup, holder] of [...this.#held]) {
      if (holder !== workerId) continue;
      this.#held.delete(cgroup);
      this.#bound.delete(cgroup);
      this.endCgroup(cgroup);
    }
  }

  /**
   * Ends the cgroups a call was given that no group of its has joined (a
   * command that never started, a prepared sandbox that was not made).
   */
  releaseCgroups(dirs: Iterable<string>): void {
    for (const dir of dirs) if (!this.#bound.has(dir)) this.endCgroup(dir);
  }

  /**
   * Hands a group to another call of the same worker (a sandbox prepared
   * by one call, run by the next); from now on only that call may signal it.
   */
  adopt(pgid: number, callId: string, workerId: number): boolean {
    const owner = this.#groups.get(pgid);
    if (owner?.workerId !== workerId) return false;
    owner.callId = callId;
    return true;
  }

  /**
   * Forgets a group whose leader has exited, and sweeps what its command
   * left behind; only `workerId`'s own (as its worker reports it).
   */
  ended(pgid: number, workerId: number): void {
    if (this.#groups.get(pgid)?.workerId !== workerId) return;
    if (this.#forget(pgid)) this.#sweepNowAndSoon();
  }

  /**
   * Sweeps off the call's path ({@linkcode offPath}, after the other work
   * there: the group and its cgroup are dead already, what
   * the sweep finds left them, and the call's answer need not wait for a
   * look at every child of wave), and again a little later. Sweeps asked
   * for while one waits are that one (it looks at every child); a late
   * one runs at least {@linkcode LATE_SWEEP_MS} after each end, at most
   * one per that time.
   */
  #sweepNowAndSoon(): void {
    if (!this.#sweepDue) {
      this.#sweepDue = true;
      // After the other work there (the next command's process), without
      // a timer's wait, which could put it on the next call's path.
      this.offPath(() =>
        queueMicrotask(() => {
          this.#sweepDue = false;
          this.sweep();
        })
      );
    }
    if (this.#lateSweepDue) {
      this.#lateSweepAgain = true;
      return;
    }
    this.#lateSweepDue = true;
    const late = () => {
      this.sweep();
      if (this.#lateSweepAgain) {
        this.#lateSweepAgain = false;
        Deno.unrefTimer(setTimeout(late, LATE_SWEEP_MS));
      } else this.#lateSweepDue = false;
    };
    Deno.unrefTimer(setTimeout(late, LATE_SWEEP_MS));
  }

  /**
   * Forgets a group, and kills what is left in its cgroup; whether it was
   * a command's (its marker is now an ended one).
   */
  #forget(pgid: number): boolean {
    const group = this.#groups.get(pgid);
    const marker = group?.marker;
    this.#groups.delete(pgid);
    if (group) this.#sentinel?.forgetGroup(pgid);
    if (group?.cgroup) {
      this.#inherit(group.cgroup, pgid);
      this.#bound.delete(group.cgroup);
      // The call that was given the cgroup releases it (and may not reuse
      // it before); one made for a process started ahead is no call's.
      if (group.ahead) this.endCgroup(group.cgroup);
      else killCgroup(group.cgroup, 0);
    }
    if (marker === undefined) return false;
    this.#ended.add(marker);
    if (this.#ended.size > MARKERS_KEPT) {
      this.#ended.delete(this.#ended.values().next().value!);
    }
    return true;
  }

  /**
   * Kills wave's children that are not running groups and carry the
   * marker of a command that has ended. Only markers these groups issued
   * count: another's are left alone (a process that runs several sessions,
   * as a test run does, holds several of these).
   */
  sweep(): void {
    const all = children();
    for (const pid of all) {
      // A running group, or the leader of one Deno has not reaped yet.
      if (this.#groups.has(pid) || spawned.has(pid)) continue;
      const marker = markerOf(pid);
      if (marker === null) {
        // Exited: reaped when it is what wave inherited from a command.
        const killedAt = this.#killed.get(pid);
        if (
          (killedAt !== undefined && startTimeOf(pid) === killedAt) ||
          isNamespaceInit(pid)
        ) reap(pid);
      } else if (marker && this.#ended.has(marker)) {
        const started = canReap() ? startTimeOf(pid) : null;
        signalGroup(pid, "SIGKILL");
        if (started !== null) this.#killed.set(pid, started);
      }
    }
    // Those gone (reaped) are forgotten.
    for (const [pid, started] of this.#killed) {
      if (startTimeOf(pid) !== started) this.#killed.delete(pid);
    }
    for (const pid of spawned) if (!exists(pid)) spawned.delete(pid);
  }

  /**
   * What a call run on the session's own thread ({@linkcode SESSION_THREAD})
   * reports its groups through: the same records a worker's messages make.
   */
  viewFor(callId: string): ProcessGroupsView {
    const thread = SESSION_THREAD;
    return {
      markerPrefix: this.markerPrefix,
      started: (pgid, marker, cgroup) =>
        this.started(pgid, callId, thread, marker, cgroup),
      ended: (pgid) => this.ended(pgid, thread),
      adopted: (pgid) => {
        this.adopt(pgid, callId, thread);
      },
      prepared: (pgid, marker, cgroup) =>
        this.started(pgid, callId, thread, marker, cgroup, true),
      hold: (cgroup) => this.hold(cgroup, thread),
      signal: (pgid, signal) => this.signal(pgid, callId, signal),
      offPath: (task) => this.offPath(task),
    };
  }

  /** Signals a group, but only one a call of this session started. */
  signal(pgid: number, callId: string, signal: Deno.Signal): void {
    const owner = this.#groups.get(pgid);
    if (owner?.callId !== callId) return;
    this.#inherit(owner.cgroup, pgid);
    signalGroup(pgid, signal);
  }

  /**
   * Remembers what is in a group's cgroup but its leader (Deno's own
   * child): what the command started, wave's children (their subreaper)
   * once their parents are gone, reaped by a sweep once killed.
   */
  #inherit(cgroup: string | undefined, pgid: number): void {
    if (cgroup === undefined || !canReap()) return;
    for (const pid of cgroupMembers(cgroup)) {
      const started = pid === pgid ? null : startTimeOf(pid);
      if (started !== null) this.#killed.set(pid, started);
    }
  }

  /** The groups started by calls on one worker. */
  ofWorker(workerId: number): number[] {
    return [...this.#groups].filter(([, o]) => o.workerId === workerId).map((
      [pgid],
    ) => pgid);
  }

  /** Kills groups outright (SIGKILL), forgets them, and sweeps what their commands left behind. */
  kill(pgids: Iterable<number>): void {
    let commands = false;
    for (const pgid of pgids) {
      signalGroup(pgid, "SIGKILL");
      if (this.#forget(pgid)) commands = true;
    }
    if (commands) this.#sweepNowAndSoon();
  }

  /** Kills every tracked group, and every process a command left behind. */
  killAll(): void {
    // Killed groups' markers become ended ones, which the sweep looks for.
    const leaders = [...this.#groups.keys()];
    this.kill(leaders);
    this.#closed = true;
    // Every cgroup is removed before wave exits (a background retry would
    // not outlive it): each is killed, then removed as soon as it empties.
    const dirs = [
      ...this.#cgroups,
      ...this.#draining,
      ...this.#idleCgroups.splice(0),
    ];
    this.#cgroups.clear();
    this.#draining.clear();
    for (const dir of dirs) killCgroup(dir, 0);
    const end = performance.now() + SHUTDOWN_REMOVE_MS;
    let left = dirs;
    while (left.length > 0) {
      left = left.filter((dir) => !tryRemoveCgroup(dir));
      if (left.length === 0 || performance.now() >= end) break;
      for (const dir of left) killCgroup(dir, 0);
      sleepSync(5);
    }
    for (const dir of left) removeCgroup(dir);
    // Not waited for: wave's exit ends it as well.
    this.#sentinel?.close();
    // bubblewrap killed while it was making a sandbox leaves the child it
    // had just made waiting for it forever (not yet asked to die with it).
    // That child becomes wave's once bubblewrap has died, and the sweep
    // kills it by its marker: so the sweep waits, briefly, for the killed
    // leaders to be dead (else the child outlives wave, under init).
    const until = performance.now() + SHUTDOWN_DEATH_MS;
    while (
      leaders.some((pid) => !hasDied(pid)) && performance.now() < until
    ) sleepSync(2);
    this.sweep();
  }
}

/** How long shutdown waits for the groups it killed to have died, before its last sweep. */
const SHUTDOWN_DEATH_MS = 250;
