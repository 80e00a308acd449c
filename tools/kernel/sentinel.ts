/**
 * What ends a session's commands when wave itself is killed outright.
 *
 * wave kills a command's processes when its call ends and when wave shuts
 * down (SIGTERM, EOF on stdin). Killed with SIGKILL, or crashed, it can do
 * nothing; a confined command dies with bubblewrap, but an unconfined one
 * (`--shell-sandbox none`, or `auto` with no namespaces) and whatever it
 * started would run on. The sentinel is a small `sh` that wave starts, in a
 * session of its own, at its first command, and tells on its stdin what to
 * kill: the process group of each running command and the cgroup parents
 * wave makes command cgroups in. Its stdin is a pipe
 * only wave writes: when wave is gone, however it went, the pipe ends, and
 * the sentinel kills every group and cgroup it was told of and every
 * process that carries a marker of its session (each starts with the
 * session's prefix, `newCommandMarker`), removes the emptied cgroups,
 * and exits. At a clean shutdown wave has killed all of it already; it
 * ends the sentinel's stdin there, and the sentinel finds nothing to kill.
 *
 * @module
 */

/**
 * The sentinel's script. `$1` is wave's pid (its cgroups are
 * `wave-command-<pid>-<n>`), `$2` the marker's variable, `$3` the
 * session's marker prefix. Lines on stdin: `g <pgid>` a running group, `G <pgid>` one
 * that ended (its id may be reused), `c <dir>` a cgroup parent. Lists are kept one item a
 * line (a cgroup's path may hold spaces), and nothing forks while wave
 * lives: `read`, `case` and expansions are the shell's own.
 */
const SCRIPT = `trap '' HUP INT TERM PIPE
nl='
'
g="$nl" c=
while IFS= read -r line; do
  arg=\${line#? }
  case $line in
    "g "*) g="$g$arg$nl" ;;
    "G "*) case $g in *"$nl$arg$nl"*) g="\${g%%"$nl$arg$nl"*}$nl\${g#*"$nl$arg$nl"}" ;; esac ;;
    "c "*) c="$c$arg$nl" ;;
  esac
done
IFS=$nl
for pg in $g; do kill -KILL "-$pg" 2>/dev/null; done
for p in $c; do
  for d in "$p"/wave-command-"$1"-*; do
    [ -d "$d" ] && echo 1 2>/dev/null >"$d/cgroup.kill"
  done
done
# Every process with a marker of this session: twice, the second time for one
# bubblewrap was making as wave died (its sandbox's first process, left
# waiting when bubblewrap was killed).
for round in 1 2; do
  for f in $(grep -lsaF "$2=$3-" /proc/[0-9]*/environ); do
    f=\${f#/proc/}
    kill -KILL "\${f%/environ}" 2>/dev/null
  done
  [ $round = 1 ] && sleep 0.5
done
for p in $c; do
  for d in "$p"/wave-command-"$1"-*; do
    n=0
    while [ -d "$d" ] && ! rmdir "$d" 2>/dev/null && [ $n -lt 25 ]; do
      n=$((n + 1))
      sleep 0.02
    done
  done
done
`;

/** How the sentinel is started: where `sh` and util-linux `setsid` are. */
export interface SentinelPrograms {
  sh?: string;
  setsid?: string;
}

/**
 * The session's sentinel: started at its first use, told of each group
 * and cgroup parent as wave starts or makes them. Every method is
 * harmless when the sentinel could not be started (no `sh`): what it
 * guarded is then unguarded against wave's own death, as it was before.
 */
export class Sentinel {
  readonly #markerVariable: string;
  readonly #markerPrefix: string;
  readonly #programs: () => SentinelPrograms;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #child?: Deno.ChildProcess;
  #failed = false;
  #closed = false;
  #parents = new Set<string>();
  #encoder = new TextEncoder();

  /**
   * `markerVariable` is the environment variable a command's marker is
   * in, `markerPrefix` the start of every marker of the session's commands;
   * `programs` is asked once, at the first use.
   */
  constructor(
    markerVariable: string,
    markerPrefix: string,
    programs: () => SentinelPrograms,
  ) {
    this.#markerVariable = markerVariable;
    this.#markerPrefix = markerPrefix;
    this.#programs = programs;
  }

  /** A command's group started. */
  watchGroup(pgid: number): void {
    // `kill -KILL -1` would be every process wave's user may signal.
    if (Number.isSafeInteger(pgid) && pgid > 1) this.#send(`g ${pgid}\n`);
  }

  /** A group ended: its id is no longer the command's. */
  forgetGroup(pgid: number): void {
    if (this.#writer && Number.isSafeInteger(pgid)) this.#send(`G ${pgid}\n`);
  }

  /** wave makes command cgroups under `parent`. */
  watchCgroups(parent: string): void {
    // One line each: a path with a line break is not told.
    if (this.#parents.has(parent) || /\n/.test(parent)) return;
    this.#parents.add(parent);
    this.#send(`c ${parent}\n`);
  }

  /**
   * wave's own shutdown: ends the sentinel, which then kills what it was
   * told of (by now, nothing is left). Resolves once it has exited.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#writer?.close().catch(() => {});
    await this.#child?.status;
  }

  /** The sentinel's process, once started (tests look at it). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  #send(lines: string): void {
    if (this.#closed || this.#failed) return;
    const writer = this.#writer ?? this.#start();
    // Writes queue in order; a failed one (the sentinel gone) is ignored.
    writer?.write(this.#encoder.encode(lines)).catch(() => {});
  }

  #start(): WritableStreamDefaultWriter<Uint8Array> | undefined {
    const { sh, setsid } = this.#programs();
    if (!sh) {
      this.#failed = true;
      return undefined;
    }
    const args = [
      "-c",
      SCRIPT,
      "wave-sentinel",
      String(Deno.pid),
      this.#markerVariable,
      this.#markerPrefix,
    ];
    const options: Deno.CommandOptions = {
      cwd: "/",
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    };
    try {
      // A session of its own: a signal to wave's group (a parent killing
      // it whole) does not reach it.
      this.#child = setsid
        ? new Deno.Command(setsid, { ...options, args: [sh, ...args] }).spawn()
        : new Deno.Command(sh, { ...options, args, detached: true }).spawn();
    } catch {
      this.#failed = true;
      return undefined;
    }
    // It outlives nothing of wave's: no exit of wave waits for it.
    this.#child.unref();
    this.#writer = this.#child.stdin.getWriter();
    return this.#writer;
  }
}
