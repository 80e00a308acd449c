/**
 * The tool-level permissions of a session: Claude Code's rules
 * (`--allowedTools`, `--disallowedTools`, `--tools`, and the rules a
 * parent's answer adds) and its permission mode's "ask before" (see
 * `permission_modes.ts`). They decide, before a call's paths are checked,
 * whether the call runs, is refused, or is put to the parent. Paths outside
 * the workspace and sensitive files are decided after, as always.
 *
 * @module
 */

import type { Scopes, ToolDefinition } from "../tools/kernel/tool.ts";
import type { ResolvedPath } from "../tools/kernel/workspace.ts";
import type { SessionMode } from "./session_mode.ts";
import {
  commandUnclear,
  isOffered,
  namesTool,
  parseToolRule,
  specifierCovers,
  type ToolRule,
} from "./tool_rules.ts";
import { isPermissionMode } from "./permission_modes.ts";
import { ruleSubject } from "../tools/kernel/hidden.ts";
import { FILE_PROGRAMS } from "./executor.ts";

/** What the permissions say of one call. */
export type PermissionVerdict =
  | { behavior: "allow" }
  | { behavior: "deny"; message: string }
  | {
    behavior: "ask";
    /** Why it is asked, for the parent: "Bash runs a command: npm test". */
    reason: string;
    /** Rules the parent could add so that calls like this one run without asking. */
    suggestions: PermissionUpdate[];
  };

/**
 * A change of the session's permissions, as Claude Code's parents send it
 * (`updatedPermissions` in a `can_use_tool` answer) and as wave suggests it
 * (`permission_suggestions`). Rules apply for the rest of the session,
 * whatever `destination` says: wave writes no settings files.
 */
export type PermissionUpdate =
  | {
    type: "addRules" | "replaceRules" | "removeRules";
    rules: { toolName: string; ruleContent?: string }[];
    behavior: "allow" | "deny" | "ask";
    destination: string;
  }
  | { type: "setMode"; mode: string; destination: string }
  | {
    type: "addDirectories" | "removeDirectories";
    directories: string[];
    destination: string;
  };

/** One call, as the permissions see it. */
export interface CallView {
  def: Pick<ToolDefinition, "name" | "mode" | "scopes">;
  input: unknown;
  /** The call's paths, resolved. */
  paths: ResolvedPath[];
}

/** The tool-level permissions of one session. */
export class ToolPermissions {
  #allow: ToolRule[];
  #deny: ToolRule[];
  #ask: ToolRule[] = [];
  #only: readonly string[] | null;
  #mode: SessionMode;
  #workspace: string;
  #home: string | undefined;
  /** wave's file history (`WAVE_HOME/history`), real path. */
  #historyDir: string | undefined;
  /** `Read(//<history>/**)`: in force while a `Read` deny rule names a path. */
  #historyRule: ToolRule | undefined;
  /** Roots besides the workspace (`--add-dir`, `addDirectories`), real paths. */
  readonly roots: string[];

  /** The permissions of a session in `mode`, with the flags' rules. */
  constructor(options: {
    mode: SessionMode;
    workspace: string;
    allow: readonly string[];
    deny: readonly string[];
    /** `--tools`: the only tools offered, or null. */
    only: readonly string[] | null;
    roots: readonly string[];
    /** The home directory, for rules written `~/…`. */
    home?: string;
    /** wave's state directory: its file history is covered with the `Read` deny rules. */
    waveHome?: string;
  }) {
    this.#home = options.home;
    if (options.waveHome !== undefined) {
      let home = options.waveHome;
      try {
        home = Deno.realPathSync(home);
      } catch { /* not made yet: as given */ }
      this.#historyDir = `${home}/history`;
      this.#historyRule = {
        tool: "Read",
        specifier: `/${this.#historyDir}/**`,
      };
    }
    this.#mode = options.mode;
    this.#workspace = options.workspace;
    this.#allow = options.allow.map(parseToolRule);
    this.#deny = options.deny.map(parseToolRule);
    this.#only = options.only;
    this.roots = [...options.roots];
  }

  /**
   * The same permissions for a session of its own in `mode` (an ACP
   * session on a shared core): the rules and roots in force now, copied,
   * so that what changes them in one session leaves the other alone.
   */
  withMode(mode: SessionMode): ToolPermissions {
    const copy = new ToolPermissions({
      mode,
      workspace: this.#workspace,
      allow: [],
      deny: [],
      only: this.#only,
      roots: this.roots,
      home: this.#home,
    });
    copy.#allow = [...this.#allow];
    copy.#deny = [...this.#deny];
    copy.#ask = [...this.#ask];
    copy.#historyDir = this.#historyDir;
    copy.#historyRule = this.#historyRule;
    return copy;
  }

  /** How the current permission mode decides what it asks: asked, refused (`dontAsk`) or allowed (`bypassPermissions`). */
  get decide(): "ask" | "refuse" | "allow" {
    return this.#mode.settings.decide;
  }

  /**
   * The specifiers of the `Read` deny rules that name paths (`secrets/**`,
   * `*.env`): what searches that name no path leave out, and commands
   * under bubblewrap do not see (`denied_paths.ts`).
   */
  readDenials(): string[] {
    return this.#denyRules().filter((rule) =>
      rule.tool === "Read" && rule.specifier !== null
    ).map((rule) => rule.specifier!);
  }

  /**
   * The deny rules in force: the given ones, and, while a `Read` rule
   * names a path, one over wave's file history (it keeps the content a
   * file had before each change: a copy of what the rule covers, made
   * before the rule was set or by a session without it).
   */
  #denyRules(): ToolRule[] {
    const history = this.#historyRule;
    return history &&
        this.#deny.some((rule) =>
          rule.tool === "Read" && rule.specifier !== null
        )
      ? [...this.#deny, history]
      : this.#deny;
  }

  /**
   * Whether tool `name` is offered at all: not outside `--tools`, and not
   * named bare by a deny rule (such a tool is left out of the model's list
   * and of `list_tools`, as Claude Code does).
   */
  offers(name: string): boolean {
    return isOffered(name, this.#only, this.#deny);
  }

  /**
   * What the rules and the permission mode say of `call`. A rule naming
   * `Edit` covers every tool that writes files, one naming `Read` every
   * tool that only reads them (Grep, Glob), as in Claude Code, and, as a
   * deny or ask rule with a path, every tool that writes one it covers
   * (what it replaces would show in its diff); one naming
   * `Bash` every dialect's command tool (devflow run_command, sata shell). With
   * `hookAllowed` (a PreToolUse hook said `allow`) nothing is asked but
   * what an ask rule asks; deny rules still refuse.
   */
  check(call: CallView, hookAllowed = false): PermissionVerdict {
    const name = call.def.name;
    const what = this.#whatOf(call);
    const covers = (use: "allow" | "deny") => (rule: ToolRule) =>
      (namesTool(rule, name) || familyOf(rule.tool, call) ||
        // What a deny or ask rule keeps from being read is not written
        // either: a writer reads what it replaces (its diff, its size, the
        // copy file history keeps).
        (use === "deny" && rule.tool === "Read" && rule.specifier !== null &&
          writesNamedPaths(call))) &&
      (rule.specifier === null ||
        specifierCovers(rule.specifier, what, use, this.#home));
    const denied = this.#denyRules().find(covers("deny"));
    if (denied) {
      return {
        behavior: "deny",
        message: denied === this.#historyRule
          ? `${name} was refused: wave's file history (${this.#historyDir}) keeps copies of files, so no tool reads it while a Read deny rule is set (--disallowedTools).`
          : `${name} was refused: the rule ${
            ruleText(denied)
          } disallows it (--disallowedTools).`,
      };
    }
    const settings = this.#mode.settings;
    // A line a deny or an ask rule cannot rule out without running it
    // (`$P -rf x`, an unclosed quote) is asked about, whatever allow rule
    // or hook would let it go; refused where nothing is asked, and under a
    // deny rule also where everything is allowed.
    const unclear = what.command === undefined ? undefined : [
      ...this.#denyRules().map((rule) => ({ rule, deny: true })),
      ...this.#ask.map((rule) => ({ rule, deny: false })),
    ].flatMap(({ rule, deny }) => {
      if (
        rule.specifier === null ||
        !(namesTool(rule, name) || familyOf(rule.tool, call))
      ) return [];
      const why = what.shell === "powershell"
        ? "a PowerShell script, which a command rule does not read"
        : commandUnclear(rule.specifier, what.command!);
      return why === null ? [] : [{ rule, deny, why }];
    })[0];
    if (unclear) {
      const rule = ruleText(unclear.rule);
      if (
        settings.decide === "refuse" ||
        (settings.decide === "allow" && unclear.deny)
      ) {
        return {
          behavior: "deny",
          message:
            `${name} was refused: its command may run what the rule ${rule} covers, which cannot be known without running it (${unclear.why}).`,
        };
      }
      if (settings.decide === "ask") {
        return {
          behavior: "ask",
          reason:
            `${name} runs a command the rule ${rule} may cover (${unclear.why}): ${what.command}`,
          suggestions: [],
        };
      }
    }
    const askRule = this.#ask.find(covers("deny"));
    const changes = call.def.mode === "agent";
    // A change in a protected directory (.git/hooks, .vscode/tasks.json run
    // code outside the sandbox later) is asked about in the modes that ask,
    // whatever allow rule or hook would let it go, as in Claude Code.
    const guarded = changes && settings.askBefore !== "nothing"
      ? what.paths.filter((p) =>
        p.relative.split("/").some((part) => PROTECTED_DIRS.has(part))
      )
      : [];
    if (
      !askRule && guarded.length === 0 &&
      (hookAllowed || this.#allow.some(covers("allow")))
    ) {
      return { behavior: "allow" };
    }
    const runs = runsPrograms(call.def.scopes);
    const asked = askRule !== undefined || guarded.length > 0 ||
      (settings.askBefore === "changes" && (changes || runs)) ||
      (settings.askBefore === "commands" && runs);
    if (!asked) return { behavior: "allow" };
    if (settings.decide === "allow") return { behavior: "allow" };
    if (settings.decide === "refuse") {
      return {
        behavior: "deny",
        message:
          `${name} was refused: the session is in dontAsk mode, where only calls an --allowedTools rule covers run.`,
      };
    }
    return {
      behavior: "ask",
      reason: guarded.length > 0
        ? `${name} changes a protected path: ${
          guarded.map((p) => p.relative).join(", ")
        }`
        : what.command !== undefined
        ? `${name} runs a command: ${what.command}`
        : what.paths.length > 0
        ? `${name} changes ${what.paths.map((p) => p.relative).join(", ")}`
        : `${name} may change files or run programs`,
      suggestions: this.#suggestionsFor(name, what),
    };
  }

  /**
   * Applies a parent's permission updates for the rest of the session.
   * Returns what could not be applied, in words (a mode wave does not
   * know), for a warning.
   */
  apply(updates: readonly PermissionUpdate[]): string[] {
    const problems: string[] = [];
    for (const update of updates) {
      const problem = malformed(update);
      if (problem) {
        problems.push(problem);
        continue;
      }
      switch (update.type) {
        case "addRules":
        case "replaceRules":
        case "removeRules": {
          const list = update.behavior === "allow"
            ? this.#allow
            : update.behavior === "deny"
            ? this.#deny
            : this.#ask;
          const rules = update.rules.map((r) =>
            parseToolRule(
              r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName,
            )
          );
          if (update.type === "replaceRules") list.length = 0;
          if (update.type === "removeRules") {
            for (const rule of rules) {
              const i = list.findIndex((r) =>
                r.tool === rule.tool && r.specifier === rule.specifier
              );
              if (i !== -1) list.splice(i, 1);
            }
          } else list.push(...rules);
          break;
        }
        case "setMode":
          if (isPermissionMode(update.mode)) {
            this.#mode.setPermission(update.mode);
          } else problems.push(`unknown permission mode "${update.mode}"`);
          break;
        case "addDirectories":
          for (const dir of update.directories) {
            try {
              const real = Deno.realPathSync(dir);
              if (!Deno.statSync(real).isDirectory) {
                problems.push(`${dir} is not a directory`);
              } else if (!this.roots.includes(real)) this.roots.push(real);
            } catch {
              problems.push(`directory ${dir} does not exist`);
            }
          }
          break;
        case "removeDirectories":
          for (const dir of update.directories) {
            let real = dir;
            try {
              real = Deno.realPathSync(dir);
            } catch { /* gone: remove it by the name given */ }
            const i = this.roots.indexOf(real);
            if (i !== -1) this.roots.splice(i, 1);
          }
          break;
      }
    }
    return problems;
  }

  #whatOf(call: CallView) {
    const command = commandOf(call.input);
    return {
      command: command?.line,
      shell: command?.shell,
      paths: call.paths.map((p) => ruleSubject(p.real, this.#workspace)),
    };
  }

  #suggestionsFor(
    name: string,
    what: { command?: string },
  ): PermissionUpdate[] {
    if (what.command !== undefined) {
      const head = what.command.trim().split(/\s+/)[0];
      return [{
        type: "addRules",
        rules: [{ toolName: name, ruleContent: `${head}:*` }],
        behavior: "allow",
        destination: "session",
      }];
    }
    return [
      { type: "setMode", mode: "acceptEdits", destination: "session" },
      {
        type: "addRules",
        rules: [{ toolName: name }],
        behavior: "allow",
        destination: "session",
      },
    ];
  }
}

/** Directories whose files other programs run or obey (git hooks, editor tasks, Claude Code's settings). */
const PROTECTED_DIRS = new Set([".git", ".vscode", ".idea", ".claude"]);

/**
 * What is wrong with a permission update as a parent sent it (its shape is
 * only asserted by the type), or undefined when it can be applied.
 */
function malformed(update: unknown): string | undefined {
  const u = update as Record<string, unknown> | null;
  if (typeof u !== "object" || u === null || typeof u.type !== "string") {
    return "an update that is not an object with a type";
  }
  const strings = (value: unknown) =>
    Array.isArray(value) && value.every((v) => typeof v === "string");
  switch (u.type) {
    case "addRules":
    case "replaceRules":
    case "removeRules":
      if (!["allow", "deny", "ask"].includes(u.behavior as string)) {
        return `${u.type} with behavior ${
          JSON.stringify(u.behavior)
        }; expected allow, deny or ask`;
      }
      if (
        !Array.isArray(u.rules) ||
        !u.rules.every((r) =>
          typeof r === "object" && r !== null &&
          typeof r.toolName === "string" && r.toolName !== "" &&
          (r.ruleContent === undefined || typeof r.ruleContent === "string")
        )
      ) {
        return `${u.type} whose rules are not a list of {toolName, ruleContent?}`;
      }
      return undefined;
    case "setMode":
      return typeof u.mode === "string"
        ? undefined
        : "setMode without a mode name";
    case "addDirectories":
    case "removeDirectories":
      return strings(u.directories)
        ? undefined
        : `${u.type} whose directories are not a list of paths`;
    default:
      return `unknown permission update type "${u.type.slice(0, 100)}"`;
  }
}

/**
 * Whether Claude Code's rule tool name `tool` stands for `call`'s tool:
 * `Edit` for every tool that writes the files it names (Write too), `Read`
 * for every one that only reads them (Grep and Glob, which run ripgrep,
 * and readers of the paths they name; not the task tools nor an MCP
 * server's tools, which name none).
 */
function familyOf(tool: string, call: CallView): boolean {
  const { scopes } = call.def;
  // Every dialect's command tool (devflow run_command, sata shell).
  if (tool === "Bash") {
    return runsPrograms(scopes) && commandOf(call.input) !== undefined;
  }
  // Both by the paths it names: an MCP tool names none, and is neither.
  if (tool === "Edit") return writesNamedPaths(call);
  if (tool === "Read" && !scopes.write && !runsPrograms(scopes)) {
    return (scopes.run ?? []).length > 0 || call.paths.length > 0;
  }
  return false;
}

/** Whether `call` writes the paths it names (not a command: its paths are none). */
function writesNamedPaths(call: CallView): boolean {
  return call.def.scopes.write === true && !runsPrograms(call.def.scopes) &&
    call.paths.length > 0;
}

/**
 * The command line a call runs, and its shell: `command` (wave's Bash,
 * devflow's run_command) or sata shell's `Script` in its `Program`.
 */
function commandOf(
  input: unknown,
): { line: string; shell: "bash" | "powershell" } | undefined {
  const fields = input as Record<string, unknown> | null;
  if (typeof fields?.command === "string") {
    return { line: fields.command, shell: "bash" };
  }
  if (typeof fields?.Script === "string") {
    return {
      line: fields.Script,
      shell: fields.Program === "powershell" ? "powershell" : "bash",
    };
  }
  return undefined;
}

/** Whether a tool runs programs other than the file programs (ripgrep runs to read). */
function runsPrograms(scopes: Scopes): boolean {
  return (scopes.run ?? []).some((p) => !FILE_PROGRAMS.includes(p));
}

function ruleText(rule: ToolRule): string {
  return rule.specifier === null
    ? rule.tool
    : `${rule.tool}(${rule.specifier})`;
}
