/**
 * wave's command line: the flag table, its parser, and the {@linkcode Config}
 * every other part of the session reads.
 *
 * This module runs before `system/init` is written, so it imports nothing
 * from `node:` (loading Node compatibility costs ~12 ms of a ~45 ms start
 * budget) and stays a small table-driven parser instead of `parseArgs`.
 *
 * @module
 */

import { type Mode, MODES } from "../tools/kernel/modes.ts";
import { VERSION } from "./version.ts";

export type { Mode };

/** The model providers `--model PROVIDER:NAME` accepts. */
export const MODEL_PROVIDERS: readonly string[] = [
  "anthropic",
  "openai",
  "replay",
];

/** What happens when a call needs an approval (docs/protocol.md "Approvals"). */
export type ApprovalPolicy = "parent" | "deny" | "allow";

/** Everything a session is configured with; built once by {@linkcode parseFlags}. */
export interface Config {
  /** Real (symlink-free) absolute path of the workspace directory. */
  workspace: string;
  toolset: string;
  mode: Mode;
  approvals: ApprovalPolicy;
  approvalTimeoutMs: number;
  maxLineBytes: number;
  sessionId: string;
  /** Absolute path of wave's state directory (`WAVE_HOME`, default `~/.wave`). */
  waveHome: string;
  /** Extra tool modules (absolute file URLs) that join the toolset: for embedding and tests. */
  toolModules: string[];
  /** Estimated-token budget of one Read (spec 000). */
  maxReadTokens: number;
  /** Extra environment variables commands may see (`--env-allow`). */
  envAllow: string[];
  /** How commands are confined (`--shell-sandbox`). */
  shellSandbox: "none" | "bwrap" | "auto";
  /** `PROVIDER:NAME`, or null when the parent drives the tools itself. */
  model: string | null;
  /** The model API's base URL (`--base-url`). */
  baseUrl?: string;
  /** Model turns one user turn may take (`--max-turns`). */
  maxTurns: number;
  /** The session is a resumed one (`--resume`): its transcript is loaded. */
  resume: boolean;
  /** The task list the session works on (`--task-list`, else the session id). */
  taskListId: string;
}

/** The result of parsing: a config to run with, or an exit with text to print. */
export type ParseOutcome =
  | { kind: "run"; config: Config }
  | { kind: "exit"; code: number; stdout?: string; stderr?: string };

type FlagKind = "string" | "integer" | "duration" | "boolean" | "list";

interface FlagSpec {
  kind: FlagKind;
  choices?: readonly string[];
  help: string;
  arg?: string;
}

const FLAGS: Record<string, FlagSpec> = {
  "workspace": {
    kind: "string",
    arg: "DIR",
    help: "the workspace the tools work in (default: the current directory)",
  },
  "toolset": {
    kind: "string",
    arg: "NAME",
    help: "which tool dialect to serve (default: wave)",
  },
  "mode": {
    kind: "string",
    arg: "MODE",
    choices: MODES,
    help: "ask | plan | agent: which tools are bound (default: agent)",
  },
  "approvals": {
    kind: "string",
    arg: "POLICY",
    choices: ["parent", "deny", "allow"],
    help:
      "parent | deny | allow: who approves paths outside the workspace and sensitive files (default: deny)",
  },
  "approval-timeout": {
    kind: "duration",
    arg: "TIME",
    help:
      "how long to wait for the parent's approval before denying, e.g. 300, 30s, 500ms, 5m (default: 5m)",
  },
  "max-line-bytes": {
    kind: "integer",
    arg: "N",
    help: "longest accepted input line in bytes (default: 16777216)",
  },
  "max-read-tokens": {
    kind: "integer",
    arg: "N",
    help: "estimated-token budget of one file read (default: 25000)",
  },
  "session-id": {
    kind: "string",
    arg: "ID",
    help: "the session's id (letters, digits, . _ -; default: a new UUID)",
  },
  "env-allow": {
    kind: "list",
    arg: "NAME",
    help:
      "let commands see this environment variable too (repeatable; model API keys never)",
  },
  "shell-sandbox": {
    kind: "string",
    arg: "KIND",
    choices: ["none", "bwrap", "auto"],
    help:
      "none | bwrap | auto: run commands under bubblewrap (auto: where it works; default: none)",
  },
  "model": {
    kind: "string",
    arg: "PROVIDER:NAME",
    help:
      "the model for user turns: anthropic:NAME, openai:NAME or replay:FILE (default: none)",
  },
  "base-url": {
    kind: "string",
    arg: "URL",
    help:
      "the model API's base URL (OpenAI-compatible servers, proxies, tests)",
  },
  "max-turns": {
    kind: "integer",
    arg: "N",
    help: "the most model turns one user turn may take (default: 50)",
  },
  "resume": {
    kind: "string",
    arg: "ID",
    help: "continue the session ID from its transcript in WAVE_HOME/sessions",
  },
  "task-list": {
    kind: "string",
    arg: "ID",
    help:
      "the task list to work on, shared by every session that names it (default: the session's own)",
  },
  "tool-module": {
    kind: "list",
    arg: "FILE",
    help: "load an extra tool module into the toolset (embedding, tests)",
  },
  "version": { kind: "boolean", help: "print the version and exit" },
  "help": { kind: "boolean", help: "print this help and exit" },
};

const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60 * 1000;
const DEFAULT_MAX_READ_TOKENS = 25_000;
const DEFAULT_MAX_TURNS = 50;

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The `--help` text. */
export function usage(toolsets: readonly string[]): string {
  const lines = [
    `wave ${VERSION}: a headless agent runtime driven over stdin/stdout JSON lines`,
    "",
    "usage: wave [flags]",
    "",
  ];
  for (const [name, spec] of Object.entries(FLAGS)) {
    const left = `  --${name}${spec.arg ? ` ${spec.arg}` : ""}`;
    lines.push(`${left.padEnd(28)}${spec.help}`);
  }
  lines.push(
    "",
    `toolsets: ${toolsets.join(", ")}`,
    "environment: WAVE_HOME (state directory, default ~/.wave)",
    "protocol: see PROTOCOL.md; stdout carries protocol lines only, logs go to stderr",
  );
  return lines.join("\n") + "\n";
}

/** Reads a duration: a number of seconds, or a number with `ms`, `s` or `m`. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const scale = m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1000;
  return Math.round(n * scale);
}

type Values = Record<string, string | boolean | string[] | undefined>;

function fail(message: string): ParseOutcome {
  return {
    kind: "exit",
    code: 2,
    stderr: `wave: ${message} (see wave --help)\n`,
  };
}

function readArgs(args: readonly string[]): Values | string {
  const values: Values = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h") {
      values.help = true;
      continue;
    }
    if (!arg.startsWith("--")) return `unexpected argument: ${arg}`;
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const spec = FLAGS[name];
    if (!spec) return `unknown flag: --${name}`;
    if (spec.kind === "boolean") {
      if (eq !== -1) return `--${name} takes no value`;
      values[name] = true;
      continue;
    }
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (i + 1 < args.length) value = args[++i];
    else return `--${name} needs a value`;
    if (spec.kind === "list") {
      const list = (values[name] as string[] | undefined) ?? [];
      list.push(value);
      values[name] = list;
    } else {
      values[name] = value;
    }
  }
  return values;
}

/**
 * Parses wave's flags and environment into a {@linkcode Config}.
 *
 * Guarantees: every problem (unknown flag, bad value, missing workspace,
 * unknown toolset) becomes `{kind: "exit", code: 2}` with one line for
 * stderr and nothing for stdout; `--help` and `--version` exit 0 with their
 * text for stdout.
 */
export function parseFlags(
  args: readonly string[],
  env: { get(name: string): string | undefined },
  toolsets: readonly string[],
): ParseOutcome {
  const values = readArgs(args);
  if (typeof values === "string") return fail(values);
  if (values.help) return { kind: "exit", code: 0, stdout: usage(toolsets) };
  if (values.version) {
    return { kind: "exit", code: 0, stdout: `wave ${VERSION}\n` };
  }

  for (const [name, spec] of Object.entries(FLAGS)) {
    const v = values[name];
    if (typeof v === "string" && spec.choices && !spec.choices.includes(v)) {
      return fail(
        `--${name} must be one of ${spec.choices.join(", ")}, not "${v}"`,
      );
    }
  }

  const toolset = (values.toolset as string | undefined) ?? "wave";
  if (!toolsets.includes(toolset)) {
    return fail(
      `unknown toolset "${toolset}"; available: ${toolsets.join(", ")}`,
    );
  }

  const integer = (name: string, fallback: number): number | string => {
    const v = values[name] as string | undefined;
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) {
      return `--${name} must be a positive whole number, not "${v}"`;
    }
    return Number(v);
  };
  const maxLineBytes = integer("max-line-bytes", DEFAULT_MAX_LINE_BYTES);
  if (typeof maxLineBytes === "string") return fail(maxLineBytes);
  const maxReadTokens = integer("max-read-tokens", DEFAULT_MAX_READ_TOKENS);
  if (typeof maxReadTokens === "string") return fail(maxReadTokens);

  let approvalTimeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS;
  if (values["approval-timeout"] !== undefined) {
    const d = parseDuration(values["approval-timeout"] as string);
    if (d === undefined) {
      return fail(
        `--approval-timeout must be a duration such as 30s, 500ms or 5m, not "${
          values["approval-timeout"]
        }"`,
      );
    }
    approvalTimeoutMs = d;
  }

  const resumeId = values.resume as string | undefined;
  if (resumeId && values["session-id"] && values["session-id"] !== resumeId) {
    return fail("--resume and --session-id name different sessions");
  }
  const sessionId = resumeId ?? (values["session-id"] as string | undefined) ??
    crypto.randomUUID();

  if (!SESSION_ID.test(sessionId)) {
    return fail(
      `--session-id must be 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit, not "${sessionId}"`,
    );
  }

  const cwd = Deno.cwd();
  const wanted = absolute((values.workspace as string | undefined) ?? cwd, cwd);
  let workspace: string;
  try {
    workspace = Deno.realPathSync(wanted);
    if (!Deno.statSync(workspace).isDirectory) {
      return fail(`workspace is not a directory: ${wanted}`);
    }
  } catch {
    return fail(`workspace does not exist: ${wanted}`);
  }

  const home = env.get("WAVE_HOME");
  const userHome = env.get("HOME");
  if (!home && !userHome) {
    return fail("neither WAVE_HOME nor HOME is set; set WAVE_HOME");
  }
  const waveHome = absolute(home || `${userHome}/.wave`, cwd);

  const toolModules = ((values["tool-module"] as string[] | undefined) ?? [])
    .map((file) => new URL(`file://${absolute(file, cwd)}`).href);

  const taskListId = (values["task-list"] as string | undefined) ?? sessionId;
  if (!SESSION_ID.test(taskListId)) {
    return fail(
      `--task-list must be 1-128 letters, digits, ".", "_" or "-", not "${taskListId}"`,
    );
  }
  const maxTurns = integer("max-turns", DEFAULT_MAX_TURNS);

  if (typeof maxTurns === "string") return fail(maxTurns);
  let model = (values.model as string | undefined) ?? null;
  if (model !== null) {
    const problem = checkModel(
      model,
      env,
      values["base-url"] as string | undefined,
    );
    if (problem) return fail(problem);
    // A replay script is read from where the parent started wave.
    if (model.startsWith("replay:")) {
      model = `replay:${absolute(model.slice(7), cwd)}`;
    }
  }
  if (resumeId) {
    try {
      Deno.statSync(`${waveHome}/sessions/${resumeId}.jsonl`);
    } catch {
      return fail(
        `there is no session ${resumeId} to resume in ${waveHome}/sessions`,
      );
    }
  }

  return {
    kind: "run",
    config: {
      workspace,
      toolset,
      mode: (values.mode as Mode | undefined) ?? "agent",
      approvals: (values.approvals as ApprovalPolicy | undefined) ?? "deny",
      approvalTimeoutMs,
      maxLineBytes,
      sessionId,
      waveHome,
      toolModules,
      maxReadTokens,
      envAllow: (values["env-allow"] as string[] | undefined) ?? [],
      shellSandbox:
        (values["shell-sandbox"] as Config["shellSandbox"] | undefined) ??
          "none",
      model,
      baseUrl: values["base-url"] as string | undefined,
      maxTurns,
      resume: resumeId !== undefined,
      taskListId,
    },
  };
}

/**
 * What is wrong with `--model`, checked before start-up so a parent learns
 * it from the exit, not from its first turn.
 */
function checkModel(
  model: string,
  env: { get(name: string): string | undefined },
  baseUrl: string | undefined,
): string | undefined {
  const [provider, ...rest] = model.split(":");
  const name = rest.join(":");
  if (!MODEL_PROVIDERS.includes(provider) || !name) {
    return `--model must be PROVIDER:NAME with PROVIDER anthropic, openai or replay, not "${model}"`;
  }
  if (provider === "anthropic" && !env.get("ANTHROPIC_API_KEY")) {
    return "--model anthropic:… needs ANTHROPIC_API_KEY in the environment";
  }
  if (provider === "openai" && !env.get("OPENAI_API_KEY") && !baseUrl) {
    return "--model openai:… needs OPENAI_API_KEY in the environment (or --base-url for a local server)";
  }
  if (provider === "replay") {
    try {
      Deno.statSync(name);
    } catch {
      return `the replay script ${name} does not exist`;
    }
  }
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl)) {
    return `--base-url must be an http(s) URL, not "${baseUrl}"`;
  }
  return undefined;
}

/** Joins a path onto `base` unless it is already absolute (POSIX only; no `node:path` here). */

function absolute(path: string, base: string): string {
  const joined = path.startsWith("/") ? path : `${base}/${path}`;
  const out: string[] = [];
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return "/" + out.join("/");
}
