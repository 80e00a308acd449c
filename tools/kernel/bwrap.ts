/**
 * bubblewrap's sandbox for commands (docs/design.md "The sandbox", layer
 * 3): its arguments, and whether it can be made on this machine. Imports
 * nothing, so the session can decide on it before `system/init`.
 *
 * @module
 */

/**
 * How a command is confined, decided by the session's main thread (which
 * may look at the whole file system; a tool's worker may not).
 */
export type CommandConfinement =
  | UnconfinedCommand
  | BwrapConfinement;

/** A command run unconfined, as wave's user. */
export interface UnconfinedCommand {
  /** Not confined. */
  readonly kind: "none";
  /**
   * The cgroup v2 directory the command joins before it runs, made for it
   * by the session, which kills everything in it when the call ends; absent
   * where wave cannot make cgroups (then only the `WAVE_COMMAND` marker
   * finds what the command detaches).
   */
  readonly cgroup?: string;
  /**
   * A second such cgroup, for the shell the worker starts ahead for its
   * next command (see `prepare`); released by the session if unused.
   */
  readonly spareCgroup?: string;
  /**
   * Whether the worker may start the next command's process ahead, once
   * this one has ended (the session asks it; a tool run outside a session
   * does not).
   */
  readonly prepare?: boolean;
}

/** A command under bubblewrap: what it must not see, and whether it has a network. */
export interface BwrapConfinement {
  /** Run under bubblewrap. */
  readonly kind: "bwrap";
  /** Existing directories hidden under an empty tmpfs (home directories, `WAVE_HOME`, `/run` …). */
  readonly hideDirs: readonly string[];
  /**
   * Paths that do not exist (yet) where a command could make them (in the
   * workspace), sealed under an empty read-only tmpfs so a command can
   * neither create them nor link them elsewhere (a `WAVE_HOME` to come).
   */
  readonly sealDirs?: readonly string[];
  /** Existing files hidden behind `/dev/null`, which cannot be opened there (`/etc/shadow` …). */
  readonly hideFiles: readonly string[];
  /** Directories shown again, read-only, inside a hidden one (the session's spill directory). */
  readonly showReadOnly: readonly string[];
  /**
   * Directories bound writable over themselves, with the workspace's
   * rules: the roots `--add-dir` adds, and each directory between the
   * workspace (or a root) and a path a deny rule hides, which a command
   * then cannot rename (a mount point) out of the rule's reach.
   */
  readonly showWritable?: readonly string[];
  /**
   * Single files shown again, read-only, inside a hidden directory: the
   * shell's program when it is installed under a home directory (`from`,
   * its real path, appears at `to`, the path it is run by).
   */
  readonly showFiles?: readonly {
    readonly from: string;
    readonly to: string;
  }[];
  /** The command shares wave's network (`--allow-net`); else it has none, not even loopback. */
  readonly network: boolean;
  /** Whether the worker may start the next command's sandbox ahead, once this one has ended. */
  readonly prepare?: boolean;
}

/** The whole file system, read-only. */
const ROOT: readonly string[] = ["--ro-bind", "/", "/"];

/**
 * The fresh `/dev`, `/proc` and `/tmp`, each mounted by its own path so
 * that {@linkcode bwrapArgs} can put them after a workspace that holds
 * them (a workspace `/` must not bring the host's processes, devices and
 * Unix sockets back).
 */
const SYSTEM_MOUNTS: readonly { path: string; args: string[] }[] = [
  { path: "/dev", args: ["--dev", "/dev"] },
  { path: "/proc", args: ["--proc", "/proc"] },
  { path: "/tmp", args: ["--tmpfs", "/tmp"] },
];

/** Every namespace new, no capabilities, a session of its own, death with wave. */
const NAMESPACES: readonly string[] = [
  "--unshare-all",
  "--unshare-user",
  "--disable-userns",
  "--cap-drop",
  "ALL",
  "--new-session",
  "--die-with-parent",
];

/**
 * The isolation every confined command gets, and the probe checks: the
 * whole file system read-only, fresh `/dev`, `/proc` and `/tmp`, every
 * namespace new (user, pid, network, ipc, uts, cgroup) and no further
 * user namespace allowed inside, no capabilities even as root, a session
 * of its own (no terminal to inject into), and death with wave. Its own pid namespace means nothing it
 * starts outlives it: when the command exits, bubblewrap's init exits and
 * the kernel kills everything left in the namespace.
 */
const ISOLATION: readonly string[] = [
  ...ROOT,
  ...SYSTEM_MOUNTS.flatMap((m) => m.args),
  ...NAMESPACES,
];

function depth(path: string): number {
  return path.split("/").filter(Boolean).length;
}

/**
 * bubblewrap's arguments for a command run in `cwd`, up to and including
 * the `--` before the command itself.
 *
 * Guarantees: the workspace is writable and `/tmp`, `/proc` and `/dev`
 * fresh, also when the workspace holds them (`/`); each hidden path is
 * hidden unless it is the workspace or holds it (then the workspace shows
 * through it: the mounts go shallowest first, so a hidden directory inside
 * the workspace stays hidden and a workspace inside a hidden directory
 * stays visible); a sealed path is an empty directory nothing can be
 * written to; a file shown again is read-only; the network is shared only
 * when asked.
 */
export function bwrapArgs(
  confinement: BwrapConfinement,
  workspace: string,
  cwd: string,
): string[] {
  type Mount = { path: string; args: string[]; order: number };
  const mounts: Mount[] = [];
  // At the depth of a workspace, before it: a workspace /tmp is the host's.
  for (const system of SYSTEM_MOUNTS) {
    mounts.push({ path: system.path, args: system.args, order: -1 });
  }
  for (const dir of confinement.hideDirs) {
    if (dir === workspace) continue;
    mounts.push({ path: dir, args: ["--tmpfs", dir], order: 0 });
  }
  for (const dir of confinement.sealDirs ?? []) {
    if (dir === workspace) continue;
    mounts.push({
      path: dir,
      args: ["--tmpfs", dir, "--remount-ro", dir],
      order: 0,
    });
  }
  for (const file of confinement.hideFiles) {
    if (file === workspace) continue;
    mounts.push({
      path: file,
      args: ["--ro-bind", "/dev/null", file],
      order: 0,
    });
  }
  mounts.push({
    path: workspace,
    args: ["--bind", workspace, workspace],
    order: 1,
  });
  for (const dir of confinement.showReadOnly) {
    mounts.push({ path: dir, args: ["--ro-bind-try", dir, dir], order: 1 });
  }
  for (const dir of confinement.showWritable ?? []) {
    mounts.push({ path: dir, args: ["--bind", dir, dir], order: 1 });
  }
  for (const { from, to } of confinement.showFiles ?? []) {
    mounts.push({ path: to, args: ["--ro-bind", from, to], order: 1 });
  }
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || a.order - b.order);
  return [
    ...ROOT,
    ...NAMESPACES,
    ...(confinement.network ? ["--share-net"] : []),
    ...mounts.flatMap((m) => m.args),
    "--chdir",
    cwd,
    "--",
  ];
}

const checks = new Map<string, Promise<BwrapCheck>>();

/**
 * The program and first arguments that start `bwrap` already bound to die
 * with the thread that spawns it: util-linux `setpriv` sets the
 * parent-death signal (SIGKILL) and execs bubblewrap in place (same pid).
 * bubblewrap's own `--die-with-parent` comes only after it has cloned its
 * sandbox; wave killed outright before that (SIGKILL as a command was being
 * started) left bubblewrap running with nobody to end it. Without
 * `setpriv`, bubblewrap alone, with that window.
 */
export function bwrapDyingWithWave(
  bwrap: string,
  setpriv: string | undefined,
): [string, string[]] {
  return setpriv
    ? [setpriv, ["--pdeathsig", "KILL", "--", bwrap]]
    : [bwrap, []];
}

/** Whether bubblewrap made its sandbox, and if not, what it said. */
export interface BwrapCheck {
  works: boolean;
  /** bubblewrap's complaint (its stderr, or why it could not start). */
  error?: string;
}

/**
 * Whether bubblewrap can make the sandbox commands run in, on this machine:
 * it runs `true` in it, once per bwrap path (later calls share the answer),
 * through `setpriv` when given ({@linkcode bwrapDyingWithWave}).
 */
export function checkBwrap(
  bwrap: string,
  setpriv?: string,
): Promise<BwrapCheck> {
  let check = checks.get(bwrap);
  if (!check) {
    const [program, before] = bwrapDyingWithWave(bwrap, setpriv);
    check = new Deno.Command(program, {
      args: [...before, ...ISOLATION, "--", "true"],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      clearEnv: true,
    }).output().then(
      (out) =>
        out.success ? { works: true } : {
          works: false,
          error: new TextDecoder().decode(out.stderr).trim() ||
            `exit code ${out.code}`,
        },
      (error) => ({ works: false, error: String(error?.message ?? error) }),
    );
    checks.set(bwrap, check);
  }
  return check;
}
