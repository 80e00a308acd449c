/**
 * How this session's commands are confined (`--shell-sandbox`,
 * `--allow-net`; docs/design.md "The sandbox", layer 3): decided without
 * starting a process for `system/init`, confirmed by running bubblewrap
 * once, and, for each command, what it must not see.
 *
 * Runs before `system/init`: it imports nothing that imports anything
 * heavy (no `node:`, no zod).
 *
 * @module
 */

import {
  type BwrapConfinement,
  checkBwrap,
  type CommandConfinement,
} from "../tools/kernel/bwrap.ts";
import {
  commandCgroupParent,
  isWithin,
  noneReport,
  onPath,
  planSandbox,
  readText,
  type SandboxReport,
  type SandboxSettings,
} from "./_sandbox_plan.ts";

export { commandCgroupParent };
export type { SandboxReport, SandboxSettings };

/** The confirmed choice, and what a parent should be told about it. */
export interface SandboxDecision {
  report: SandboxReport;
  /**
   * The cgroup v2 directory under which each unconfined command gets a
   * cgroup of its own (`orphans: "cgroup"`); absent otherwise.
   */
  cgroupParent?: string;
  /** The `system/warning` to send, when commands are not confined as asked or as hoped. */
  warning?: string;
}

/** Directories whose every secret a command must not see, besides home directories. */
const HIDDEN_DIRS = ["/root", "/home", "/run", "/var/run", "/etc/ssl/private"];
/**
 * Directories a command needs (or that its sandbox makes afresh), never
 * hidden even when they are a home directory or `WAVE_HOME`: the rule is
 * that a home or `WAVE_HOME` is hidden wherever it is (at the top level
 * too: `/data`, `/state`, `HOME=/config`), unless it is `/` or one of
 * these; a `WAVE_HOME` that cannot be hidden has its state directories
 * ({@linkcode WAVE_HOME_PARTS}) hidden instead.
 */
export const SYSTEM_DIRS: ReadonlySet<string> = new Set([
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/gnu",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/nix",
  "/opt",
  "/proc",
  "/sbin",
  "/snap",
  "/sys",
  "/tmp",
  "/usr",
  "/var",
]);
/** What `WAVE_HOME` holds (README "WAVE_HOME"), hidden one by one when it cannot be hidden whole. */
const WAVE_HOME_PARTS = ["sessions", "tasks", "history", "spill", "bin"];
/** Files a command must not read, even as root. */
const HIDDEN_FILES = [
  "/etc/shadow",
  "/etc/gshadow",
  "/etc/shadow-",
  "/etc/gshadow-",
];
/** Credentials under a home directory, hidden when the workspace is that home. */
const HOME_SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".kube",
  ".docker",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
];

/** What a command can reach when it is not confined. */
function unconfinedReach(cgroupParent: string | undefined): string {
  return `commands run unconfined, as wave's user: they can read and write every file that user can (its home directory, WAVE_HOME with other sessions' transcripts), reach the network, and reach wave's own process (its environment, model API keys included, and its stdin); ${
    cgroupParent
      ? "everything a command starts is killed when the command ends (each command runs in a cgroup of its own)"
      : "a process a command starts is killed when the command ends only while it keeps the WAVE_COMMAND marker in its environment"
  }`;
}

const planned = new Map<string, CommandSandbox>();

/**
 * The session's command confinement. {@linkcode CommandSandbox.for} plans it
 * from the flags and a few stats, and starts bubblewrap's probe at once;
 * {@linkcode CommandSandbox.decided} is the probe's verdict.
 */
export class CommandSandbox {
  /** What `system/init` says: the plan, before the probe. */
  readonly planned: SandboxReport;
  readonly #settings: SandboxSettings;
  readonly #bwrap?: string;
  /** Where unconfined commands get their cgroups, if they can. */
  #cgroupParent?: string;
  #decided?: Promise<SandboxDecision>;
  #passwdHomes?: string[];

  private constructor(settings: SandboxSettings, path: string) {
    this.#settings = settings;
    const plan = planSandbox(settings, path);
    this.#bwrap = plan.bwrap;
    this.#cgroupParent = plan.cgroupParent;
    this.planned = plan.report;
    // The probe runs while the session loads.
    if (plan.confined && plan.bwrap) {
      this.#decided = this.#probe(plan.bwrap, onPath("setpriv", path));
    }
  }

  /**
   * The plan for these settings and `PATH`, made once per process: cheap
   * (no process is started before it returns), so `system/init` can say it.
   */
  static for(
    settings: SandboxSettings,
    path = Deno.env.get("PATH") ?? "",
  ): CommandSandbox {
    const key = [
      settings.shellSandbox,
      settings.allowNet,
      path,
      settings.workspace,
      ...keyFiles(settings),
    ].join("\0");
    let sandbox = planned.get(key);
    if (!sandbox) {
      sandbox = new CommandSandbox(settings, path);
      planned.set(key, sandbox);
    }
    return sandbox;
  }

  /**
   * The choice once bubblewrap has been tried: as planned, or, when it
   * cannot make its sandbox here, unconfined under `auto` (with a warning
   * saying so) and failing commands under `bwrap`.
   */
  decided(): Promise<SandboxDecision> {
    return this.#decided ??= Promise.resolve(this.#unconfined());
  }

  #unconfined(): SandboxDecision {
    const { shellSandbox } = this.#settings;
    const cgroupParent = this.#cgroupParent;
    if (shellSandbox === "none") {
      return { report: noneReport(cgroupParent), cgroupParent };
    }
    if (shellSandbox === "bwrap") {
      return {
        report: this.planned,
        warning:
          "bubblewrap (bwrap) is not installed, so every command will fail (--shell-sandbox bwrap); install bubblewrap, or choose --shell-sandbox none",
      };
    }
    const why = this.#bwrap
      ? "this user cannot make the namespaces bubblewrap needs (user namespaces are disabled)"
      : "bubblewrap (bwrap) is not installed";
    return {
      report: noneReport(cgroupParent),
      cgroupParent,
      warning: `No confinement for commands: ${why}, so ${
        unconfinedReach(cgroupParent)
      }. Install bubblewrap where user namespaces are allowed (or run wave as root) to confine them; --shell-sandbox none says this is intended.`,
    };
  }

  async #probe(bwrap: string, setpriv?: string): Promise<SandboxDecision> {
    // Spawning takes a while: after the caller has written system/init.
    await null;
    const check = await checkBwrap(bwrap, setpriv);
    if (check.works) {
      const { workspace } = this.#settings;
      const inside = workspace === undefined ? [] : keyFiles(this.#settings)
        .filter((file) => isWithin(realOrSelf(file), workspace));
      return inside.length
        ? {
          report: this.planned,
          warning: `The model API key file ${
            inside.join(", ")
          } is inside the workspace, so commands can read it (and the model can have them print it); keep it outside the workspace, or pass it through a pipe (--api-key-file /dev/fd/3).`,
        }
        : { report: this.planned };
    }
    if (this.#settings.shellSandbox === "bwrap") {
      return {
        report: this.planned,
        warning:
          `bubblewrap cannot make its sandbox here (${check.error}), so every command will fail (--shell-sandbox bwrap); choose --shell-sandbox none to run them unconfined`,
      };
    }
    const cgroupParent = this.#cgroupParent = commandCgroupParent();
    return {
      report: noneReport(cgroupParent),
      cgroupParent,
      warning:
        `No confinement for commands: bubblewrap cannot make its sandbox here (${check.error}), so ${
          unconfinedReach(cgroupParent)
        }. --shell-sandbox none says this is intended.`,
    };
  }

  /**
   * How one command is confined. Under bubblewrap it hides, as they are
   * now: every home directory (`HOME`, `/root`, `/home`, and those of root
   * and of users from uid 1000 in /etc/passwd), `WAVE_HOME`, `/run` (service
   * sockets, container secrets), private keys and password hashes, and,
   * when the workspace is the home directory, the credentials in it. It
   * never hides the workspace (which shows through a hidden directory
   * holding it) nor the shell's own program. The session's spill directory
   * is shown again, read-only.
   */
  async confinement(
    place: {
      workspace: string;
      waveHome: string;
      spillDir: string;
      home?: string;
      programs: Record<string, string>;
      /** Directories commands may write besides the workspace (`--add-dir`), real paths. */
      roots?: readonly string[];
    },
  ): Promise<CommandConfinement> {
    const { report } = await this.decided();
    if (report.commands !== "bwrap") return { kind: "none" };
    const real = (path: string) => {
      try {
        return Deno.realPathSync(path);
      } catch {
        return undefined;
      }
    };
    const dirs = new Set<string>();
    const sealed = new Set<string>();
    const files = new Set<string>();
    const workspace = place.workspace;
    // WAVE_HOME's parts stay hidden in a root that is (or is in) WAVE_HOME,
    // and a root inside one of them is not shown: a root is shown under the
    // workspace's rules, and a workspace never shows them.
    const waveHome = real(place.waveHome) ?? place.waveHome;
    const partsOfHome = WAVE_HOME_PARTS.map((part) => `${waveHome}/${part}`);
    const roots = (place.roots ?? []).filter((root) =>
      !partsOfHome.some((part) => isWithin(root, part))
    );
    /** What commands may write: the workspace and the other roots. */
    const shown = [workspace, ...roots];
    /**
     * Hides `path` as it is now: an existing directory or file; a path
     * that does not exist where a command could make it (in the
     * workspace or another root) is sealed, so no command can create it or link it away.
     * Returns whether it is hidden.
     */
    const hide = (path: string): boolean => {
      const abs = real(path);
      if (!abs) {
        const unborn = unbornPath(path);
        if (
          !unborn || !shown.some((dir) => isWithin(unborn, dir)) ||
          shown.includes(unborn)
        ) {
          return false;
        }
        sealed.add(unborn);
        return true;
      }
      if (abs === workspace || !mayHide(abs)) return false;
      try {
        const info = Deno.statSync(abs);
        if (info.isDirectory) dirs.add(abs);
        else files.add(abs);
        return true;
      } catch {
        return false; // gone
      }
    };
    const homes = [
      ...(place.home ? [place.home] : []),
      ...HIDDEN_DIRS,
      ...this.#homes(),
    ];
    for (const path of homes) hide(path);
    // WAVE_HOME (other sessions' transcripts, the ripgrep copy a compiled
    // wave runs): whole, else (a system directory, the workspace) its parts.
    if (
      !hide(place.waveHome) || roots.some((root) => isWithin(root, waveHome))
    ) {
      for (const part of WAVE_HOME_PARTS) hide(`${place.waveHome}/${part}`);
    }
    for (const file of [...HIDDEN_FILES, ...sshHostKeys()]) hide(file);
    // The model API key files: hidden unless in the workspace (warned of).
    for (const file of keyFiles(this.#settings)) {
      const abs = real(file);
      if (!abs || isWithin(abs, workspace)) continue;
      try {
        if (Deno.statSync(abs).isFile) files.add(abs);
      } catch { /* gone */ }
    }
    // A workspace (or root) that is the home directory shows it, but not its credentials.
    const home = place.home && real(place.home);
    if (home && shown.includes(home)) {
      for (const secret of HOME_SECRETS) {
        const abs = real(`${home}/${secret}`);
        if (!abs || !isWithin(abs, home)) continue;
        try {
          if (Deno.statSync(abs).isDirectory) dirs.add(abs);
          else files.add(abs);
        } catch { /* gone */ }
      }
    }
    // What a hidden directory already hides needs no mount of its own (an
    // empty mount point would show its name), unless the workspace shows it again.
    const hiders = [...dirs, ...sealed];
    const needed = (path: string) =>
      shown.some((dir) => isWithin(path, dir)) ||
      !hiders.some((dir) => dir !== path && isWithin(path, dir));
    // Whether the deepest mount over `path` hides it.
    const hidden = (path: string) => {
      const over = [...hiders, ...shown].filter((d) => isWithin(path, d))
        .sort((a, b) => b.length - a.length)[0];
      return over !== undefined && !shown.includes(over);
    };
    // A shell installed under a hidden directory: the directory stays
    // hidden, the program alone is shown again, read-only.
    const showFiles: { from: string; to: string }[] = [];
    for (const [name, path] of Object.entries(place.programs)) {
      // run outside
      if (name === "bwrap" || name === "setsid" || name === "setpriv") continue;
      const from = real(path);
      if (!from) continue;
      for (const to of new Set([path, from])) {
        if (hidden(to)) showFiles.push({ from, to });
      }
    }
    const confinement: BwrapConfinement = {
      kind: "bwrap",
      hideDirs: [...dirs].filter(needed),
      sealDirs: [...sealed].filter(needed),
      hideFiles: [...files].filter(needed),
      showReadOnly: [real(place.spillDir) ?? place.spillDir],
      ...(roots.length > 0 ? { showWritable: [...roots] } : {}),
      showFiles,
      network: this.#settings.allowNet,
    };
    return confinement;
  }

  /** Home directories of root and of people (uid 1000 and up) in /etc/passwd. */
  #homes(): string[] {
    return this.#passwdHomes ??= (readText("/etc/passwd") ?? "").split("\n")
      .flatMap((line) => {
        const fields = line.split(":");
        const uid = Number(fields[2]);
        const home = fields[5];
        return home && (uid === 0 || (uid >= 1000 && uid < 65534))
          ? [home]
          : [];
      });
  }
}

/**
 * Whether a home or `WAVE_HOME` at `abs` (a real path) may be hidden: not
 * `/`, not a directory commands need ({@linkcode SYSTEM_DIRS}).
 */
function mayHide(abs: string): boolean {
  return abs !== "/" && !SYSTEM_DIRS.has(abs);
}

/** The real path, or the path itself. */
function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

/**
 * Where an absolute `path` that does not exist would be made: its
 * nearest existing ancestor's real path, and the rest.
 */
function unbornPath(path: string): string | undefined {
  if (!path.startsWith("/")) return undefined;
  const parts = path.split("/").filter((p) => p && p !== ".");
  if (parts.includes("..")) return undefined;
  for (let i = parts.length - 1; i >= 0; i--) {
    const ancestor = `/${parts.slice(0, i).join("/")}`;
    try {
      const base = Deno.realPathSync(ancestor);
      const rest = parts.slice(i).join("/");
      return base === "/" ? `/${rest}` : `${base}/${rest}`;
    } catch { /* further up */ }
  }
  return undefined;
}

/**
 * The files the model API keys were read from (not a pipe such as
 * `/dev/fd/3`): hidden from commands, and asked about before a file tool
 * reads them (tool_calls.ts).
 */
export function keyFiles(
  settings: Pick<SandboxSettings, "apiKey" | "sttApiKey">,
): string[] {
  return [
    ...new Set(
      [settings.apiKey?.source, settings.sttApiKey?.source].filter(
        (file): file is string =>
          file !== undefined && !file.startsWith("/dev/") &&
          !file.startsWith("/proc/"),
      ),
    ),
  ];
}

/** The SSH server's private host keys. */
function sshHostKeys(): string[] {
  try {
    return [...Deno.readDirSync("/etc/ssh")]
      .filter((e) => /^ssh_host_.*_key$/.test(e.name))
      .map((e) => `/etc/ssh/${e.name}`);
  } catch {
    return [];
  }
}
