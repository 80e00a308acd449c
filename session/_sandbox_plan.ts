/**
 * The plan of how commands are confined, made from the flags and a few
 * stats without starting a process: what `system/init` says
 * (docs/protocol.md "Startup"). It runs before `system/init`, so it is
 * kept apart from the rest of the command sandbox (`command_sandbox.ts`,
 * which confines each command and probes bubblewrap, loads with the
 * session).
 *
 * @module
 */

import type { ShellSandbox } from "./flags.ts";

/** What `system/init` says about commands (docs/protocol.md "Startup"). */
export interface SandboxReport {
  /** `bwrap`: commands run confined by bubblewrap; `none`: unconfined. */
  commands: "bwrap" | "none";
  /** How wave makes sure nothing a command starts outlives it. */
  orphans: "pid_namespace" | "cgroup" | "marker";
  /** Whether commands can reach the network. */
  network: boolean;
}

/** The settings the choice depends on. */
export interface SandboxSettings {
  shellSandbox: ShellSandbox;
  allowNet: boolean;
  /** The workspace (its real path), to warn of a key file inside it. */
  workspace?: string;
  /** The model's key, and the file it came from (hidden from commands). */
  apiKey?: { readonly source?: string };
  /** The speech-to-text model's key, likewise. */
  sttApiKey?: { readonly source?: string };
}

/** The plan: what init says, and what the sandbox starts from. */
export interface SandboxPlan {
  report: SandboxReport;
  /** Whether commands are to run under bubblewrap (its probe has the last word). */
  confined: boolean;
  /** bubblewrap's path, when it is on PATH and wanted. */
  bwrap?: string;
  /** Where unconfined commands get their cgroups, if they can. */
  cgroupParent?: string;
}

const plans = new Map<string, SandboxPlan>();

/**
 * The plan for these settings and `PATH`, made once per process (the
 * command sandbox and `system/init` share it): no process is started.
 */
export function planSandbox(
  settings: Pick<SandboxSettings, "shellSandbox" | "allowNet">,
  path: string = Deno.env.get("PATH") ?? "",
): SandboxPlan {
  const key = [settings.shellSandbox, settings.allowNet, path].join("\0");
  let plan = plans.get(key);
  if (plan) return plan;
  const bwrap = settings.shellSandbox === "none"
    ? undefined
    : onPath("bwrap", path);
  const confined = settings.shellSandbox === "bwrap" ||
    (settings.shellSandbox === "auto" && bwrap !== undefined &&
      namespacesLikely(bwrap));
  // Unconfined commands are each put in a cgroup, where wave may make
  // one (looked for again should bubblewrap fail under auto).
  const cgroupParent = confined ? undefined : commandCgroupParent();
  plan = {
    report: confined
      ? {
        commands: "bwrap",
        orphans: "pid_namespace",
        network: settings.allowNet,
      }
      : noneReport(cgroupParent),
    confined,
    ...(bwrap ? { bwrap } : {}),
    ...(cgroupParent ? { cgroupParent } : {}),
  };
  plans.set(key, plan);
  return plan;
}

/** The first executable file `name` in `path`'s directories, if any. */
export function onPath(name: string, path: string): string | undefined {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const candidate = `${dir.replace(/\/+$/, "")}/${name}`;
    try {
      const info = Deno.statSync(candidate);
      if (info.isFile && ((info.mode ?? 0o755) & 0o111) !== 0) {
        return candidate;
      }
    } catch { /* not here */ }
  }
  return undefined;
}

/** A small system file's text, trimmed, or undefined when it cannot be read. */
export function readText(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path).trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether bubblewrap can probably make its sandbox, without running it:
 * as root, or with a setuid bwrap, or where the kernel lets this user make
 * user namespaces. A container's seccomp filter can still refuse; the
 * probe ({@linkcode checkBwrap}) has the last word.
 */
function namespacesLikely(bwrap: string): boolean {
  try {
    if (Deno.uid() === 0) return true;
    if (((Deno.statSync(bwrap).mode ?? 0) & 0o4000) !== 0) return true;
  } catch { /* no uid here: judge by the sysctls */ }
  if (readText("/proc/sys/kernel/unprivileged_userns_clone") === "0") {
    return false;
  }
  return readText("/proc/sys/user/max_user_namespaces") !== "0";
}

/** What `system/init` says of unconfined commands, by how their orphans are found. */
export function noneReport(cgroupParent: string | undefined): SandboxReport {
  return {
    commands: "none",
    orphans: cgroupParent ? "cgroup" : "marker",
    network: true,
  };
}

/**
 * The cgroup v2 directory wave may make command cgroups under: its own
 * cgroup, when the unified hierarchy is mounted and this user may make a
 * cgroup there and move processes into it (root, or a delegated subtree).
 * Checked without starting a process: a probe cgroup is made and removed.
 * `undefined` where it cannot be (no cgroup v2, not writable, not Linux).
 */
export function commandCgroupParent(): string | undefined {
  if (Deno.build.os !== "linux") return undefined;
  const own = readText("/proc/self/cgroup")?.split("\n")
    .find((line) => line.startsWith("0::"))?.slice(3);
  if (own === undefined || !own.startsWith("/")) return undefined;
  // mountinfo: id parent major:minor root mountpoint options - type source …
  const mount = (readText("/proc/self/mountinfo") ?? "").split("\n")
    .map((line) => {
      const [left, right] = line.split(" - ");
      const fields = left?.split(" ") ?? [];
      return { root: fields[3], point: fields[4], type: right?.split(" ")[0] };
    })
    .find((m) =>
      m.type === "cgroup2" && m.root !== undefined && m.point !== undefined &&
      isWithin(own, m.root)
    );
  if (!mount) return undefined;
  const rest = own.slice(mount.root === "/" ? 0 : mount.root!.length);
  const dir = `${mount.point}${rest === "/" ? "" : rest}`.replace(
    /\\040/g,
    " ",
  );
  const probe = `${dir}/wave-probe-${Deno.pid}-${crypto.randomUUID()}`;
  try {
    Deno.mkdirSync(probe);
  } catch {
    return undefined;
  }
  try {
    // Moving a process needs the new cgroup's procs file and that of the
    // common ancestor (wave's own) writable; cgroup.kill ends it whole.
    for (const file of [`${probe}/cgroup.procs`, `${dir}/cgroup.procs`]) {
      Deno.openSync(file, { write: true }).close();
    }
    Deno.statSync(`${probe}/cgroup.kill`);
    return dir;
  } catch {
    return undefined;
  } finally {
    try {
      Deno.removeSync(probe);
    } catch { /* gone, or busy: nothing was moved in */ }
  }
}

/** Whether `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === "/" ? "/" : `${dir}/`);
}
