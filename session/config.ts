/**
 * The {@linkcode Config} every other part of the session reads, built from
 * wave's flags ({@linkcode FLAGS}) and environment, and checked: the
 * workspace exists, the toolset is known, the model can be reached.
 *
 * This module runs before `system/init` is written, so it imports nothing
 * from `node:` (loading Node compatibility costs ~12 ms of a ~45 ms start
 * budget), nor anything that reaches zod or the model SDKs.
 *
 * @module
 */

import type { Mode } from "../tools/kernel/modes.ts";
import { type FileBoundary, fileBoundary } from "../tools/kernel/landlock.ts";
import type { OpenWith } from "../tools/kernel/tool.ts";
import { flagValues, readFlags } from "./_flag_parser.ts";
import { resolve } from "../tools/kernel/posix_path.ts";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  FLAGS,
  type Front,
  FRONTS,
  type PermissionMode,
  SHELL_SANDBOXES,
  type ShellSandbox,
  splitToolRules,
  unhonouredFlagWarnings,
  usage,
  WAVE_MODE_OF,
} from "./flags.ts";

import { type ApiKey, readApiKey } from "./models/api_key.ts";
import { parseModelId, parseSttModelId } from "./models/model_id.ts";
import { SESSION_ID, transcriptPath } from "./transcript_claim.ts";
import { parseTranscriptHead, readTranscriptHead } from "./transcript_head.ts";
import { VERSION } from "./version.ts";

export { APPROVAL_POLICIES, FRONTS, SHELL_SANDBOXES };
export type { ApprovalPolicy, Front, Mode, OpenWith, ShellSandbox };

/**
 * The directory relative paths on the command line, and the default
 * workspace, mean when it is not the working directory. deno.json's `start`
 * task sets it to `INIT_CWD`: `deno task` runs a task in the folder of
 * deno.json and sets `INIT_CWD` to the directory it was run from (unless
 * already set, as npx does, to its own). wave does not read `INIT_CWD`
 * itself: npm sets it too, and a parent started by npm passes it on to the
 * wave it spawns from elsewhere.
 */
export const CALLER_CWD_VARIABLE = "WAVE_CALLER_CWD";

/** Everything a session is configured with; built once by {@linkcode parseFlags}. */
export interface Config {
  /** The wire format wave speaks: the subcommand (`wave mcp`, `wave acp`), else stream-json. */
  front: Front;
  /** Where `wave mcp --listen` serves streamable HTTP, or null for stdio. */
  listen: { hostname: string; port: number } | null;
  /** How long an MCP session of `--listen` may go unused before it is closed (`--listen-idle`, ms). */
  listenIdleMs: number;
  /**
   * Real (symlink-free) absolute path of the workspace directory: `--workspace`
   * resolved against the directory wave was started from, or that directory.
   */
  workspace: string;
  /** The tool dialect served (`--toolset`, a key of `TOOLSETS`). */
  toolset: string;
  /** The mode the session starts in (`--mode`). */
  mode: Mode;
  /** Who approves paths outside the workspace and sensitive files (`--approvals`). */
  approvals: ApprovalPolicy;
  /** How long an approval may wait for the parent, in ms (`--approval-timeout`). */
  approvalTimeoutMs: number;
  /** The longest input line accepted, in bytes (`--max-line-bytes`). */
  maxLineBytes: number;
  /** The session's id (`--session-id`, else a new UUID). */
  sessionId: string;
  /** Absolute path of wave's state directory (`WAVE_HOME`, default `~/.wave`). */
  waveHome: string;
  /** Extra tool modules (absolute file URLs) that join the toolset: for embedding and tests. */
  toolModules: string[];
  /** Estimated-token budget of one Read (spec 000). */
  maxReadTokens: number;
  /** The most entries the walks for a command's hidden paths look at (`--max-deny-walk`). */
  maxDenyWalk: number;
  /** Extra environment variables commands may see (`--env-allow`). */
  envAllow: string[];
  /** How commands are confined (`--shell-sandbox`). */
  shellSandbox: ShellSandbox;
  /** Confined commands may reach the network (`--allow-net`). */
  allowNet: boolean;
  /** `PROVIDER:NAME`, or null when the parent drives the tools itself. */
  model: string | null;
  /** The model API's base URL (`--base-url`). */
  baseUrl?: string;
  /**
   * The model API key, read at start (`--api-key-file`, `*_API_KEY_FILE`,
   * `*_API_KEY`) for an `anthropic:` or `openai:` model. It prints as
   * `[redacted]`. The CLI then deletes the key variables from its
   * environment; a program embedding wave does that itself.
   */
  apiKey?: ApiKey;
  /**
   * The speech-to-text model that makes transcripts of audio and video
   * (`--stt-model`, `openai:NAME`), or null: then reading a media file is
   * a tool error naming the flag.
   */
  sttModel: string | null;
  /** The speech-to-text API's base URL (`--stt-base-url`). */
  sttBaseUrl?: string;
  /**
   * The speech-to-text API key, read at start: `--model openai:…`'s own
   * key when both talk to the same server, else `OPENAI_API_KEY_FILE` or
   * `OPENAI_API_KEY`, else none for a `--stt-base-url` server. It prints
   * as `[redacted]`.
   */
  sttApiKey?: ApiKey;
  /** Model turns one user turn may take (`--max-turns`). */
  maxTurns: number;
  /** Where to write the session's report when it ends (`--report`, absolute), or null. */
  reportFile: string | null;
  /** The session is a resumed one (`--resume`): its transcript is loaded. */
  resume: boolean;
  /** The task list the session works on (`--task-list`, else the session id). */
  taskListId: string;
  /**
   * `--task-list` named the list: every session of the process works on
   * it. Otherwise each ACP session has a list of its own, named by its id.
   */
  taskListShared: boolean;
  /**
   * The deadline of a call whose tool runs no commands, in ms (the hidden
   * `--tool-deadline`, for tests; default 60 s).
   */
  toolDeadlineMs: number;
  /**
   * How the file tools are held to their roots: Landlock where the kernel
   * has it, else path checks (the hidden `--file-boundary paths` forces
   * the latter, for tests). {@linkcode parseFlags} probes the kernel when
   * this is first read (Landlock's syscall, through FFI, about a
   * millisecond), so `wave mcp` and `wave acp` answer `initialize` first.
   */
  readonly fileBoundary: FileBoundary;
  /** Where files made for the user go when no location is given (`--output-dir`), absolute. */
  outputDir: string;
  /** How open_file opens a file (`--open-with`; default: `system` where a display is present, else `none`). */
  openWith: OpenWith;
  /** File history's budget per workspace (`--history-max-days`, `--history-max-bytes`). */
  historyLimits: { maxAgeMs: number; maxBytes: number };
  /**
   * The parent started wave as Claude Code (`--output-format` or
   * `--input-format stream-json`): where the two vocabularies differ, wave
   * speaks Claude Code's (docs/protocol.md "Claude Code's vocabulary").
   */
  claudeCompat: boolean;
  /**
   * Claude Code's permission mode the session starts in (`--permission-mode`;
   * `default` for a Claude Code parent that gave none), or null: then
   * `--mode` and `--approvals` alone decide, and no call inside the
   * workspace is asked about.
   */
  permissionMode: PermissionMode | null;
  /** Rules of calls that run without asking (`--allowedTools`), and of tools removed or calls refused (`--disallowedTools`). */
  toolRules: { allow: string[]; deny: string[] };
  /** The only tools offered (`--tools`), or null for the whole toolset. */
  tools: string[] | null;
  /** The system prompt instead of wave's (`--system-prompt`), and text added after it (`--append-system-prompt`). */
  systemPrompt: { replace: string | null; append: string | null };
  /** Write `stream_event` messages while a reply streams (`--include-partial-messages`). */
  includePartialMessages: boolean;
  /** The model a request goes to when `model` is overloaded or failing (`--fallback-model`). */
  fallbackModel: string | null;
  /** More roots the tools may use under the workspace's rules (`--add-dir`), real paths. */
  addDirs: string[];
  /** Extended thinking budget of each Anthropic request (`--max-thinking-tokens`). */
  maxThinkingTokens: number | null;
  /** A transcript is written (not under `--no-session-persistence`). */
  persistSession: boolean;
  /** Where wave's log is appended too (`--debug-file`), absolute, or null. */
  debugFile: string | null;
  /** The JSON Schema of the structured output each turn ends with (`--json-schema`), or null. */
  jsonSchema: Record<string, unknown> | null;
  /** The estimated cost in USD at which a turn is stopped (`--max-budget-usd`), or null. */
  maxBudgetUsd: number | null;
  /** The session whose transcript this one starts from (`--fork-session`), or null. */
  forkFrom: string | null;
  /** What the parent must be told at start: flags accepted but not honoured. */
  warnings: string[];
  /**
   * The MCP servers of `--mcp-config`, by name, each entry as given (a
   * later config's entry replaces an earlier one of the same name); each
   * is checked when it connects (session/mcp/), so one bad entry is one
   * failed server. Empty without the flag.
   */
  mcpServers: Record<string, unknown>;
  /**
   * How long an MCP server may take to connect, and one call of its tools
   * may take, in ms: Claude Code's `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT`,
   * else 30 s and 10 minutes.
   */
  mcpTimeouts: { connectMs: number; toolMs: number };
}

/** The result of parsing: a config to run with, or an exit with text to print. */
export type ParseOutcome =
  | { kind: "run"; config: Config }
  | { kind: "exit"; code: number; stdout?: string; stderr?: string };

function fail(message: string): ParseOutcome {
  return {
    kind: "exit",
    code: 2,
    stderr: `wave: ${message} (see wave --help)\n`,
  };
}

/**
 * Parses wave's flags and environment into a {@linkcode Config}.
 *
 * Guarantees: every problem (unknown flag, bad value, missing workspace,
 * unknown toolset, a model that cannot be reached) becomes
 * `{kind: "exit", code: 2}` with one line for stderr and nothing for
 * stdout; `--help` and `--version` exit 0 with their text for stdout.
 * Relative paths resolve against the caller's directory
 * ({@linkcode CALLER_CWD_VARIABLE}, else the working directory).
 *
 * @example
 * ```ts
 * import { parseFlags, TOOLSET_NAMES } from "@wave/wave";
 *
 * const outcome = parseFlags(["--mode", "ask"], Deno.env, TOOLSET_NAMES);
 * if (outcome.kind === "run") console.log(outcome.config.workspace);
 * else console.error(outcome.stderr); // e.g. a bad flag, with exit code 2
 * ```
 */
export function parseFlags(
  args: readonly string[],
  env: { get(name: string): string | undefined },
  toolsets: readonly string[],
): ParseOutcome {
  const front: Front = args[0] === "mcp" || args[0] === "acp"
    ? args[0]
    : "stream-json";
  const texts = readFlags(
    front === "stream-json" ? args : args.slice(1),
    FLAGS,
  );
  if (typeof texts === "string") return fail(texts);
  if (texts.help) return { kind: "exit", code: 0, stdout: usage(toolsets) };
  if (texts.version) {
    return { kind: "exit", code: 0, stdout: `wave ${VERSION}\n` };
  }
  const flags = flagValues(texts, FLAGS);
  if (typeof flags === "string") return fail(flags);

  if (!toolsets.includes(flags.toolset)) {
    return fail(
      `unknown toolset "${flags.toolset}"; available: ${toolsets.join(", ")}`,
    );
  }

  let listen: Config["listen"] = null;
  if (flags.listen !== undefined) {
    if (front !== "mcp") return fail("--listen is a flag of wave mcp");
    const m = /^(127\.0\.0\.1|localhost|\[::1\]):(\d{1,5})$/.exec(flags.listen);
    if (!m || Number(m[2]) > 65535) {
      return fail(
        `--listen must be HOST:PORT with HOST 127.0.0.1, localhost or [::1] (wave serves no other network), not "${flags.listen}"`,
      );
    }
    listen = { hostname: m[1].replace(/^\[|\]$/g, ""), port: Number(m[2]) };
  }
  const claudeCompat = texts["output-format"] !== undefined ||
    texts["input-format"] !== undefined;
  const permissionPrompt = flags["permission-prompt-tool"];
  // A front that can ask its parent asks, unless --approvals says otherwise;
  // so does stream-json under Claude Code's --permission-prompt-tool stdio.
  const approvals = texts.approvals === undefined &&
      (front !== "stream-json" || permissionPrompt === "stdio")
    ? "parent"
    : flags.approvals;
  const permissionMode: PermissionMode | null = flags["permission-mode"] ??
    (flags["dangerously-skip-permissions"]
      ? "bypassPermissions"
      : claudeCompat
      ? "default"
      : null);
  if (texts.mode !== undefined && texts["permission-mode"] !== undefined) {
    return fail(
      "--mode and --permission-mode both set the mode; give one of them",
    );
  }
  const mode = permissionMode ? WAVE_MODE_OF[permissionMode] : flags.mode;
  const warnings = unhonouredFlagWarnings(texts);
  if (permissionPrompt !== undefined && permissionPrompt !== "stdio") {
    warnings.push(
      `--permission-prompt-tool ${permissionPrompt} was accepted but is not honoured: wave asks the parent with can_use_tool (--permission-prompt-tool stdio) or decides by --approvals (${approvals})`,
    );
  }
  const sources = flags["setting-sources"];
  if (sources !== undefined && sources.trim() !== "") {
    warnings.push(
      `--setting-sources ${sources} was accepted but is not honoured: wave reads no Claude Code settings files or CLAUDE.md`,
    );
  }

  const cwd = resolve(Deno.cwd(), env.get(CALLER_CWD_VARIABLE) || ".");
  const wanted = resolve(cwd, flags.workspace ?? cwd);
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
  const waveHome = resolve(cwd, home || `${userHome}/.wave`);

  let resumeId = flags.resume;
  if (flags.continue) {
    if (resumeId) return fail("--continue and --resume both name a session");
    resumeId = latestSessionOf(waveHome, workspace);
    if (!resumeId) {
      return fail(
        `there is no earlier session of ${workspace} in ${waveHome}/sessions to continue`,
      );
    }
  }
  if (resumeId !== undefined && !SESSION_ID.test(resumeId)) {
    return fail(
      `--resume must name a session id (1-128 letters, digits, ".", "_" or "-", starting with a letter or digit), not "${resumeId}"`,
    );
  }
  const givenId = flags["session-id"];
  const fork = flags["fork-session"];
  if (fork && !resumeId) {
    return fail("--fork-session needs --resume ID or --continue");
  }
  if (!fork && resumeId && givenId && givenId !== resumeId) {
    return fail("--resume and --session-id name different sessions");
  }
  const sessionId = fork
    ? givenId ?? crypto.randomUUID()
    : resumeId ?? givenId ?? crypto.randomUUID();
  if (!SESSION_ID.test(sessionId)) {
    return fail(
      `--session-id must be 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit, not "${sessionId}"`,
    );
  }
  // A fork is copied into its new session's transcript: never over another's.
  if (fork && givenId !== undefined) {
    let taken = false;
    try {
      Deno.lstatSync(transcriptPath(waveHome, givenId));
      taken = true;
    } catch { /* free */ }
    if (taken) {
      return fail(
        `--session-id ${givenId} names a session that exists; --fork-session needs a new id`,
      );
    }
  }

  const toolModules = flags["tool-module"].map((file) =>
    new URL(`file://${resolve(cwd, file)}`).href
  );

  const taskListId = flags["task-list"] ?? sessionId;
  if (!SESSION_ID.test(taskListId)) {
    return fail(
      `--task-list must be 1-128 letters, digits, ".", "_" or "-", not "${taskListId}"`,
    );
  }

  let model: string | null = null;
  let apiKey: ApiKey | undefined;
  // Claude Code's parent names a model by its bare name, or none: then
  // Claude Code's default, when an Anthropic key is there to reach it.
  const wantedModel = flags.model ??
    (claudeCompat && hasAnthropicKey(env) ? DEFAULT_CLAUDE_MODEL : undefined);
  let baseUrl = flags["base-url"];
  if (wantedModel !== undefined) {
    const id = parseModelId(wantedModel);
    // As Claude Code does: an Anthropic model's server may come from the environment.
    if (!("problem" in id) && id.provider === "anthropic") {
      baseUrl ??= env.get("ANTHROPIC_BASE_URL") || undefined;
    }
    const checked = checkModel(wantedModel, {
      env,
      file: flags["api-key-file"],
      baseUrl,
      cwd,
    });
    if ("problem" in checked) return fail(checked.problem);
    ({ model, apiKey } = checked);
  }
  let fallbackModel: string | null = null;
  if (flags["fallback-model"] !== undefined) {
    if (!model?.startsWith("anthropic:") && !model?.startsWith("openai:")) {
      return fail("--fallback-model needs --model (anthropic:… or openai:…)");
    }
    const id = parseModelId(flags["fallback-model"]);
    if ("problem" in id) {
      return fail(id.problem.replace("--model", "--fallback-model"));
    }
    fallbackModel = `${model.slice(0, model.indexOf(":"))}:${id.name}`;
    if (fallbackModel === model) {
      return fail("--fallback-model names the same model as --model");
    }
  }
  if (flags["api-key-file"] !== undefined && apiKey === undefined) {
    return fail("--api-key-file needs --model anthropic:… or openai:…");
  }
  let sttModel: string | null = null;
  let sttApiKey: ApiKey | undefined;
  const sttBaseUrl = flags["stt-base-url"];
  if (flags["stt-model"] !== undefined) {
    const id = parseSttModelId(flags["stt-model"]);
    if ("problem" in id) return fail(id.problem);
    if (sttBaseUrl !== undefined && !/^https?:\/\/\S+$/.test(sttBaseUrl)) {
      return fail(`--stt-base-url must be an http(s) URL, not "${sttBaseUrl}"`);
    }
    sttModel = flags["stt-model"];
    // One server, one key: the chat model's, when it is the same API.
    const sameServer = model?.startsWith("openai:") &&
      (flags["base-url"] ?? "") === (sttBaseUrl ?? "");
    if (sameServer && apiKey) sttApiKey = apiKey;
    else {
      const key = readApiKey("openai", {
        env,
        cwd,
        baseUrl: sttBaseUrl,
        flag: "--stt-model",
      });
      if ("problem" in key) return fail(key.problem);
      sttApiKey = key.key;
    }
  } else if (sttBaseUrl !== undefined) {
    return fail("--stt-base-url needs --stt-model openai:NAME");
  }
  const mcpServers = readMcpConfigs(flags["mcp-config"], cwd);
  if (typeof mcpServers === "string") return fail(mcpServers);
  if (front === "mcp" && Object.keys(mcpServers).length > 0) {
    return fail("--mcp-config is not a flag of wave mcp");
  }
  const mcpTimeouts = { connectMs: 30_000, toolMs: 10 * 60_000 };
  for (
    const [variable, key] of [
      ["MCP_TIMEOUT", "connectMs"],
      ["MCP_TOOL_TIMEOUT", "toolMs"],
    ] as const
  ) {
    const text = env.get(variable);
    if (text === undefined || text === "") continue;
    if (!/^[1-9]\d{0,9}$/.test(text)) {
      return fail(
        `${variable} must be a whole number of milliseconds, not "${
          text.slice(0, 40)
        }"`,
      );
    }
    mcpTimeouts[key] = Number(text);
  }
  if (resumeId) {
    const transcript = transcriptPath(waveHome, resumeId);
    let owner: string | undefined;
    try {
      owner = sessionCwd(transcript);
    } catch {
      return fail(
        `there is no session ${resumeId} to resume in ${waveHome}/sessions`,
      );
    }
    // A session goes on in its own workspace, as ACP's session/load
    // requires: its history names that workspace's files, and a parent
    // in another workspace would hand them to its model.
    if (owner !== undefined && owner !== workspace) {
      return fail(
        `session ${resumeId} is a session of ${owner}, not of ${workspace}; resume it with --workspace ${owner}`,
      );
    }
  }
  const addDirs: string[] = [];
  for (const dir of flags["add-dir"]) {
    // An empty value would name the current directory, silently.
    if (dir.trim() === "") return fail("--add-dir needs a directory");
    const wantedDir = resolve(cwd, dir);
    try {
      const real = Deno.realPathSync(wantedDir);
      if (!Deno.statSync(real).isDirectory) {
        return fail(`--add-dir is not a directory: ${wantedDir}`);
      }
      addDirs.push(real);
    } catch {
      return fail(`--add-dir does not exist: ${wantedDir}`);
    }
  }
  let jsonSchema: Record<string, unknown> | null = null;
  if (flags["json-schema"] !== undefined) {
    try {
      jsonSchema = JSON.parse(flags["json-schema"]);
    } catch (error) {
      return fail(`--json-schema is not JSON: ${(error as Error).message}`);
    }
    if (
      typeof jsonSchema !== "object" || jsonSchema === null ||
      Array.isArray(jsonSchema)
    ) {
      return fail("--json-schema must be a JSON Schema object");
    }
  }
  let maxBudgetUsd: number | null = null;
  if (flags["max-budget-usd"] !== undefined) {
    maxBudgetUsd = Number(flags["max-budget-usd"]);
    if (!(maxBudgetUsd > 0) || !Number.isFinite(maxBudgetUsd)) {
      return fail(
        `--max-budget-usd must be a positive number of dollars, not "${
          flags["max-budget-usd"]
        }"`,
      );
    }
  }
  const toolsText = flags.tools;
  const toolRules = {
    allow: splitToolRules(flags.allowedTools),
    deny: splitToolRules(flags.disallowedTools),
  };
  // A rule whose parentheses do not close names no tool: as a deny rule
  // it would refuse nothing, silently.
  for (
    const [flag, rules] of [
      ["--allowedTools", toolRules.allow],
      ["--disallowedTools", toolRules.deny],
    ] as const
  ) {
    const broken = rules.find((rule) => !/^[^()]+(\(.*\))?$/s.test(rule));
    if (broken !== undefined) {
      return fail(
        `${flag}: "${broken}" is not a rule; write Tool or Tool(specifier), with its parentheses closed`,
      );
    }
  }

  const boundary = flags["file-boundary"] === "paths" ? "paths" : undefined;
  let probed: FileBoundary | undefined;
  return {
    kind: "run",
    config: {
      front,
      listen,
      listenIdleMs: flags["listen-idle"] * 1000,
      workspace,
      toolset: flags.toolset,
      mode,
      approvals,
      approvalTimeoutMs: flags["approval-timeout"],
      maxLineBytes: flags["max-line-bytes"],
      sessionId,
      waveHome,
      toolModules,
      maxReadTokens: flags["max-read-tokens"],
      maxDenyWalk: flags["max-deny-walk"],
      envAllow: flags["env-allow"],
      shellSandbox: flags["shell-sandbox"],
      allowNet: flags["allow-net"],
      model,
      baseUrl,
      apiKey,
      sttModel,
      sttBaseUrl,
      sttApiKey,
      maxTurns: flags["max-turns"],
      resume: resumeId !== undefined,
      reportFile: flags.report === undefined
        ? null
        : resolve(cwd, flags.report),
      taskListId,
      taskListShared: flags["task-list"] !== undefined,
      toolDeadlineMs: flags["tool-deadline"],
      get fileBoundary(): FileBoundary {
        return boundary ?? (probed ??= fileBoundary());
      },
      outputDir: resolve(workspace, flags["output-dir"]),
      openWith: flags["open-with"] ??
        (env.get("DISPLAY") || env.get("WAYLAND_DISPLAY") ||
            Deno.build.os === "darwin"
          ? "system"
          : "none"),
      historyLimits: {
        maxAgeMs: flags["history-max-days"] * 24 * 3600 * 1000,
        maxBytes: flags["history-max-bytes"],
      },
      claudeCompat,
      permissionMode,
      toolRules,
      tools: toolsText === undefined || toolsText === "default"
        ? null
        : splitToolRules([toolsText]),
      systemPrompt: {
        replace: flags["system-prompt"] ?? null,
        append: flags["append-system-prompt"] ?? null,
      },
      includePartialMessages: flags["include-partial-messages"],
      fallbackModel,
      addDirs,
      maxThinkingTokens: flags["max-thinking-tokens"] ?? null,
      persistSession: !flags["no-session-persistence"],
      debugFile: flags["debug-file"] === undefined
        ? null
        : resolve(cwd, flags["debug-file"]),
      jsonSchema,
      maxBudgetUsd,
      forkFrom: fork ? resumeId! : null,
      warnings,
      mcpServers,
      mcpTimeouts,
    },
  };
}

/** The model a Claude Code parent gets when it names none (Claude Code's default). */
export const DEFAULT_CLAUDE_MODEL = "anthropic:claude-sonnet-5-5";

function hasAnthropicKey(env: Env): boolean {
  return !!(env.get("ANTHROPIC_API_KEY") || env.get("ANTHROPIC_API_KEY_FILE"));
}

/**
 * The newest session of `workspace` in `waveHome/sessions` (`--continue`):
 * the transcript changed last whose first line names this workspace.
 */
function latestSessionOf(
  waveHome: string,
  workspace: string,
): string | undefined {
  const dir = `${waveHome}/sessions`;
  let best: { id: string; mtime: number } | undefined;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
    const path = `${dir}/${entry.name}`;
    try {
      const mtime = Deno.statSync(path).mtime?.getTime() ?? 0;
      if (best && mtime <= best.mtime) continue;
      if (sessionCwd(path) !== workspace) continue;
      best = { id: entry.name.slice(0, -".jsonl".length), mtime };
    } catch { /* unreadable: not this workspace's, as far as wave can tell */ }
  }
  return best?.id;
}

/**
 * The workspace a transcript's session line records (looked for in its
 * first 64 KiB); undefined when it has none (no turn started yet).
 * Throws when the transcript cannot be read.
 */
export function sessionCwd(path: string): string | undefined {
  return parseTranscriptHead(readTranscriptHead(path).text, false).cwd;
}

/**
 * `--model` as the session uses it, or what is wrong with it: checked
 * before start-up so a parent learns it from the exit, not from its first
 * turn, and the key is read here, once. The messages are the ones
 * `createProvider` throws (session/models/model_id.ts and api_key.ts state
 * them). A replay script and a key file are read from the caller's
 * directory.
 */
function checkModel(
  model: string,
  sources: { env: Env; file?: string; baseUrl?: string; cwd: string },
): { model: string; apiKey?: ApiKey } | { problem: string } {
  const id = parseModelId(model);
  if ("problem" in id) return id;
  let apiKey: ApiKey | undefined;
  if (id.provider === "replay") {
    const file = resolve(sources.cwd, id.name);
    try {
      Deno.statSync(file);
    } catch {
      return { problem: `the replay script ${file} does not exist` };
    }
    model = `replay:${file}`;
  } else {
    const key = readApiKey(id.provider, sources);
    if ("problem" in key) return key;
    apiKey = key.key;
    model = `${id.provider}:${id.name}`;
  }
  const { baseUrl } = sources;
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl)) {
    return { problem: `--base-url must be an http(s) URL, not "${baseUrl}"` };
  }
  return { model, apiKey };
}

type Env = { get(name: string): string | undefined };

/**
 * The servers of every `--mcp-config` value (Claude Code's shape,
 * `{"mcpServers": {"<name>": {...}}}`), JSON given inline (it starts with
 * `{`) or in a file read from the caller's directory, merged by name; or
 * what is wrong with a whole value. The entries themselves are checked
 * when they connect.
 */
function readMcpConfigs(
  values: readonly string[],
  cwd: string,
): Record<string, unknown> | string {
  const servers: Record<string, unknown> = {};
  for (const value of values) {
    let text = value;
    let where = "--mcp-config's JSON";
    if (!value.trimStart().startsWith("{")) {
      const file = resolve(cwd, value);
      where = `--mcp-config ${file}`;
      try {
        text = Deno.readTextFileSync(file);
      } catch (error) {
        return `--mcp-config: cannot read ${file}: ${
          error instanceof Deno.errors.NotFound
            ? "no such file"
            : (error as Error).message
        }`;
      }
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return `${where} is not JSON: ${(error as Error).message}`;
    }
    const entries = isObject(parsed) ? parsed.mcpServers : undefined;
    if (!isObject(entries)) {
      return `${where} must be an object with an "mcpServers" object ({"mcpServers": {"<name>": {"command": ...}}})`;
    }
    for (const [name, entry] of Object.entries(entries)) {
      // Own properties only, whatever the name ("__proto__" included).
      Object.defineProperty(servers, name, {
        value: entry,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
  }
  return servers;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The session's spill directory: where its tools put output too long to
 * return (`WAVE_HOME/spill/<session id>`). A front with several sessions
 * gives each one inside it (`Core.sessionSpillDir`).
 */
export function spillDirOf(config: Config): string {
  return `${config.waveHome}/spill/${config.sessionId}`;
}

/**
 * The scratch directory of a session's warm-up calls (see the session's
 * `ToolCalls.prewarm`), `WAVE_HOME/spill/.warmups/<session id>`: the
 * executor lets the file tools' workers use it, and the warm-up removes it
 * when done. All sessions' are in one directory (no session id starts with
 * a dot), so what a killed session left is found without looking through
 * every session's spill directory.
 */
export function warmupDirOf(config: Config): string {
  return `${config.waveHome}/spill/.warmups/${config.sessionId}`;
}
