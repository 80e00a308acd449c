/**
 * wave's flags: the one table the parser, the defaults and `--help` read.
 *
 * Runs before `system/init`: it imports only modules that import nothing.
 *
 * @module
 */

import { type FlagTable, helpLines } from "./_flag_parser.ts";
import { type Mode, MODES } from "../tools/kernel/modes.ts";
import { VERSION } from "./version.ts";

/**
 * Who approves a call that needs an approval (docs/protocol.md "Approvals"):
 * `--approvals`'s values.
 *
 * @example
 * ```ts
 * import { APPROVAL_POLICIES } from "@wave/wave";
 * console.assert(APPROVAL_POLICIES.join("|") === "parent|deny|allow");
 * ```
 */
export const APPROVAL_POLICIES = ["parent", "deny", "allow"] as const;

/** One of {@linkcode APPROVAL_POLICIES}. */
export type ApprovalPolicy = typeof APPROVAL_POLICIES[number];

/**
 * How commands are confined: `--shell-sandbox`'s values.
 *
 * @example
 * ```ts
 * import { SHELL_SANDBOXES } from "@wave/wave";
 * console.assert(SHELL_SANDBOXES.includes("bwrap"));
 * ```
 */
export const SHELL_SANDBOXES = ["none", "bwrap", "auto"] as const;

/** One of {@linkcode SHELL_SANDBOXES}. */
export type ShellSandbox = typeof SHELL_SANDBOXES[number];

/**
 * Claude Code's permission modes (`--permission-mode`, `set_permission_mode`).
 *
 * @example
 * ```ts
 * import { PERMISSION_MODES } from "@wave/wave";
 * console.assert(PERMISSION_MODES.includes("acceptEdits"));
 * ```
 */
export const PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
  "auto",
] as const;

/** One of {@linkcode PERMISSION_MODES}. */
export type PermissionMode = typeof PERMISSION_MODES[number];

/** The wave mode each of Claude Code's permission modes binds (permission_modes.ts says what else each one means). */
export const WAVE_MODE_OF: Readonly<Record<PermissionMode, Mode>> = {
  default: "agent",
  acceptEdits: "agent",
  plan: "plan",
  bypassPermissions: "agent",
  dontAsk: "agent",
  auto: "agent",
};

/**
 * The Claude Code permission mode a wave mode is reported as (in
 * `system/init`'s `permissionMode` when none was given): `plan` is plan,
 * and the others are `default`.
 */
export function permissionModeOf(mode: Mode): PermissionMode {
  return mode === "plan" ? "plan" : "default";
}

/**
 * Splits rule lists as Claude Code's flags take them: each text holds
 * rules separated by commas or spaces, except inside parentheses
 * (`Bash(git log:*)` is one rule).
 */
export function splitToolRules(texts: readonly string[]): string[] {
  const rules: string[] = [];
  for (const text of texts) {
    let depth = 0;
    let current = "";
    for (const ch of text) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current) rules.push(current);
        current = "";
      } else current += ch;
    }
    if (current) rules.push(current);
  }
  return rules;
}

/** How open_file opens a file for the person: `--open-with`'s values. */
export const OPEN_WITH = ["parent", "system", "none"] as const;

/**
 * The fronts wave speaks, each a wire format over the one session core:
 * stream-json (docs/protocol.md, the main command), `wave mcp` (an MCP
 * server) and `wave acp` (an ACP agent). The first argument names the
 * subcommand; without one, wave speaks stream-json.
 *
 * @example
 * ```ts
 * import { FRONTS } from "@wave/wave";
 * console.assert(FRONTS.join("|") === "stream-json|mcp|acp");
 * ```
 */
export const FRONTS = ["stream-json", "mcp", "acp"] as const;

/** One of {@linkcode FRONTS}. */
export type Front = typeof FRONTS[number];

/**
 * Claude Code's flags that wave accepts, for a parent written for Claude
 * Code, but cannot honour: each one given is named in a `system/warning`
 * ({@linkcode unhonouredFlagWarnings}), never dropped silently. Left out of
 * `--help`.
 */
const UNHONOURED_FLAGS = {
  "thinking": unhonoured(
    "string",
    "wave sends no thinking settings but --max-thinking-tokens",
  ),
  "thinking-display": unhonoured("string", "wave shows no thinking blocks"),
  "effort": unhonoured("string", "wave sends no effort setting"),
  "task-budget": unhonoured("string", "wave keeps no task budget"),
  "agent": unhonoured("string", "wave cannot run named agents"),
  "agents": unhonoured("string", "wave cannot run subagents yet"),
  "betas": unhonoured("string", "wave sends no beta headers"),
  "debug": unhonoured(
    "boolean",
    "wave's log always goes to stderr (or --debug-file)",
  ),
  "debug-to-stderr": unhonoured("boolean", "wave's log always goes to stderr"),
  "permission-prompts": unhonoured(
    "string",
    "wave asks with can_use_tool only",
  ),
  "channels": unhonoured("list", "wave has no channels"),
  "include-hook-events": unhonoured(
    "boolean",
    "wave writes no hook event messages",
  ),
  "session-mirror": unhonoured(
    "boolean",
    "wave keeps its transcript in WAVE_HOME/sessions only",
  ),
  "project-config-root": unhonoured(
    "string",
    "wave reads no Claude Code project config",
  ),
  "plugin-dir": unhonoured("list", "wave loads no Claude Code plugins"),
  "plugin-dir-no-mcp": unhonoured("list", "wave loads no Claude Code plugins"),
  "resume-session-at": unhonoured(
    "string",
    "wave resumes a whole session only",
  ),
  "resume-drops-turn": unhonoured(
    "string",
    "wave resumes a whole session only",
  ),
  "initialize-fields": unhonoured(
    "string",
    "wave reads only the initialize fields docs/protocol.md lists",
  ),
  "managed-settings": unhonoured(
    "string",
    "wave reads no Claude Code settings",
  ),
  "managed-settings-in-initialize": unhonoured(
    "boolean",
    "wave reads no Claude Code settings",
  ),
  "settings": unhonoured("string", "wave reads no Claude Code settings"),
  "sdk-url": unhonoured("string", "wave speaks on stdio only"),
  "hard-fail": unhonoured("boolean", "wave has no such mode"),
  // Honoured: wave reads initialize whenever it comes, and lets
  // bypassPermissions be chosen without a second flag.
  "await-initialize": accepted("boolean"),
  "allow-dangerously-skip-permissions": accepted("boolean"),
} as const;

function unhonoured<K extends "string" | "boolean" | "list">(
  kind: K,
  why: string,
): { kind: K; hidden: true; help: string; unhonoured: string } {
  return { kind, hidden: true, help: `Claude Code's: ${why}`, unhonoured: why };
}

function accepted<K extends "string" | "boolean">(
  kind: K,
): { kind: K; hidden: true; help: string } {
  return { kind, hidden: true, help: "Claude Code's: accepted, nothing to do" };
}

/**
 * The `system/warning` texts for the flags given that wave accepts but
 * cannot honour: one per flag, naming it and why.
 */
export function unhonouredFlagWarnings(
  given: Readonly<Record<string, unknown>>,
): string[] {
  return Object.entries(UNHONOURED_FLAGS).flatMap(([name, spec]) =>
    "unhonoured" in spec && given[name] !== undefined
      ? [`--${name} was accepted but is not honoured: ${spec.unhonoured}`]
      : []
  );
}

/** Every flag wave takes, in the order `--help` lists them. */
export const FLAGS = {
  "workspace": {
    kind: "string",
    arg: "DIR",
    help: "the workspace the tools work in (default: the current directory)",
  },
  "toolset": {
    kind: "string",
    arg: "NAME",
    default: "wave",
    help: "which tool dialect to serve",
  },
  "mode": {
    kind: "string",
    arg: "MODE",
    choices: MODES,
    default: "agent",
    help: "which tools are bound",
  },
  "approvals": {
    kind: "string",
    arg: "POLICY",
    choices: APPROVAL_POLICIES,
    default: "deny",
    help:
      "who approves paths outside the workspace and sensitive files (wave mcp and wave acp: parent unless given; an MCP client without elicitation is not asked, so the call is denied)",
  },
  "approval-timeout": {
    kind: "duration",
    arg: "TIME",
    default: "5m",
    help:
      "how long to wait for the parent's approval before denying, e.g. 300, 30s, 500ms, 5m",
  },
  "max-line-bytes": {
    kind: "integer",
    arg: "N",
    default: String(16 * 1024 * 1024),
    help: "longest accepted input line in bytes",
  },
  "max-read-tokens": {
    kind: "integer",
    arg: "N",
    default: "25000",
    help: "estimated-token budget of one file read",
  },
  "max-deny-walk": {
    kind: "integer",
    arg: "N",
    default: "200000",
    help:
      "most files and directories a command under bubblewrap looks through for what a Read deny rule with a glob covers",
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
    choices: SHELL_SANDBOXES,
    default: "auto",
    help:
      "confine commands with bubblewrap; auto: wherever this machine allows it; none: unconfined",
  },
  "allow-net": {
    kind: "boolean",
    help: "let confined commands reach the network (by default they have none)",
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
  "api-key-file": {
    kind: "string",
    arg: "FILE",
    help:
      "read the model API key from FILE (or a pipe: /dev/fd/N) instead of the environment",
  },
  "stt-model": {
    kind: "string",
    arg: "PROVIDER:NAME",
    help:
      "the speech-to-text model that makes the transcripts of audio and video files: openai:NAME (default: none)",
  },
  "stt-base-url": {
    kind: "string",
    arg: "URL",
    help:
      "the speech-to-text API's base URL (OpenAI-compatible servers such as whisper.cpp's, tests)",
  },
  "max-turns": {
    kind: "integer",
    arg: "N",
    default: "50",
    help: "the most model turns one user turn may take",
  },
  "resume": {
    kind: "string",
    arg: "ID",
    help:
      "continue the session ID from its transcript in WAVE_HOME/sessions, in the workspace it ran in",
  },
  "report": {
    kind: "string",
    arg: "FILE",
    help:
      "when the session ends (also on an interrupt, an error or SIGTERM), write its report, one HTML page, to FILE",
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
  "output-dir": {
    kind: "string",
    arg: "DIR",
    default: "output",
    help:
      "where files made for the user go when no location is given (relative to the workspace)",
  },
  "open-with": {
    kind: "string",
    arg: "HOW",
    choices: OPEN_WITH,
    help:
      "how open_file opens a file: parent (asks the parent), system (xdg-open/open), none (default: system where a display is present, else none)",
  },
  "history-max-days": {
    kind: "integer",
    arg: "N",
    default: "30",
    help: "file history keeps versions this many days",
  },
  "history-max-bytes": {
    kind: "integer",
    arg: "N",
    default: String(1024 * 1024 * 1024),
    help: "file history keeps at most this many bytes per workspace",
  },
  "tool-deadline": {
    kind: "duration",
    arg: "TIME",
    default: "60s",
    hidden: true,
    help:
      "how long a call of a tool that runs no commands may take before its worker is replaced (tests)",
  },
  "file-boundary": {
    kind: "string",
    arg: "KIND",
    choices: ["auto", "paths"],
    default: "auto",
    hidden: true,
    help:
      "how the file tools are held to their roots; auto: Landlock where the kernel has it; paths: path checks only, as on a kernel without it (tests)",
  },
  "listen": {
    kind: "string",
    arg: "HOST:PORT",
    help:
      "wave mcp only: serve MCP over streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST: 127.0.0.1, localhost or [::1]; PORT 0 picks a free one, written to stderr)",
  },
  "listen-idle": {
    kind: "integer",
    arg: "SECONDS",
    default: "1800",
    help:
      "wave mcp --listen only: an MCP session no request has used for this long is closed; its next request gets 404, and the client starts a new session",
  },
  // Claude Code's flags: a parent written for Claude Code (the Claude Agent
  // SDK) starts wave with them (README "Use wave from the Claude Agent SDK").
  "output-format": {
    kind: "string",
    arg: "FORMAT",
    choices: ["stream-json"],
    help:
      "Claude Code's: wave writes stream-json; given, wave speaks Claude Code's vocabulary where the two differ (docs/protocol.md)",
  },
  "input-format": {
    kind: "string",
    arg: "FORMAT",
    choices: ["stream-json"],
    help: "Claude Code's: wave reads stream-json",
  },
  "verbose": {
    kind: "boolean",
    help: "Claude Code's: accepted (wave always writes every message)",
  },
  "dangerously-skip-permissions": {
    kind: "boolean",
    help: "Claude Code's: the same as --permission-mode bypassPermissions",
  },
  "print": {
    kind: "boolean",
    short: "p",
    help: "Claude Code's: accepted (wave is always headless)",
  },
  "permission-mode": {
    kind: "string",
    arg: "MODE",
    choices: PERMISSION_MODES,
    help:
      'Claude Code\'s permission modes, mapped onto --mode and --approvals (README "Permission modes")',
  },
  "permission-prompt-tool": {
    kind: "string",
    arg: "stdio",
    help:
      "stdio: ask the parent with can_use_tool (the same as --approvals parent); an MCP tool's name is not honoured (a warning says so) and calls are then denied",
  },
  "allowedTools": {
    kind: "list",
    arg: "RULES",
    help:
      "tools (or rules such as Bash(git:*), Edit(src/**)) that run without asking; comma or space separated",
  },
  "disallowedTools": {
    kind: "list",
    arg: "RULES",
    help:
      "tools removed from the model's list (a bare name) or calls refused (a rule); comma or space separated",
  },
  "tools": {
    kind: "string",
    arg: "NAMES",
    help:
      'the tools offered, comma separated (default: the whole toolset; "" for none)',
  },
  "system-prompt": {
    kind: "string",
    arg: "TEXT",
    help: "replace wave's system prompt",
  },
  "append-system-prompt": {
    kind: "string",
    arg: "TEXT",
    help: "add to the end of the system prompt",
  },
  "include-partial-messages": {
    kind: "boolean",
    help:
      "write stream_event messages (the model's raw stream events) while a reply streams",
  },
  "fallback-model": {
    kind: "string",
    arg: "NAME",
    help:
      "the model a request goes to when --model is overloaded or failing (HTTP 429, 5xx)",
  },
  "continue": {
    kind: "boolean",
    help: "continue the most recent session of this workspace",
  },
  "fork-session": {
    kind: "boolean",
    help:
      "with --resume or --continue: a new session id, starting from a copy of the old session's transcript",
  },
  "add-dir": {
    kind: "list",
    arg: "DIR",
    help:
      "another directory the tools may use under the workspace's rules (repeatable)",
  },
  "max-thinking-tokens": {
    kind: "integer",
    arg: "N",
    help: "extended thinking budget of each Anthropic request",
  },
  "no-session-persistence": {
    kind: "boolean",
    help: "write no transcript (the session cannot be resumed)",
  },
  "debug-file": {
    kind: "string",
    arg: "FILE",
    help: "append wave's log (what it writes to stderr) to FILE",
  },
  "json-schema": {
    kind: "string",
    arg: "JSON",
    help:
      "structured output: the turn's result carries structured_output, an object valid against this JSON Schema",
  },
  "max-budget-usd": {
    kind: "string",
    arg: "USD",
    help:
      "stop a turn once the session's estimated cost reaches this (result error_max_budget_usd)",
  },
  "setting-sources": {
    kind: "string",
    arg: "LIST",
    help:
      "Claude Code's: accepted; wave reads no Claude Code settings files (a warning says so)",
  },
  ...UNHONOURED_FLAGS,
  "mcp-config": {
    kind: "list",
    arg: "JSON|FILE",
    help:
      'MCP servers whose tools join the toolset as mcp__<server>__<tool>: {"mcpServers":{"<name>":{...}}} as JSON or in FILE (repeatable; stdio, http, sse)',
  },
  "strict-mcp-config": {
    kind: "boolean",
    help:
      "use only the MCP servers of --mcp-config (wave reads no other MCP configuration)",
  },
  "version": { kind: "boolean", help: "print the version and exit" },
  "help": { kind: "boolean", short: "h", help: "print this help and exit" },
} as const satisfies FlagTable;

/** The `--help` text: every flag of {@linkcode FLAGS}, then the toolsets and the environment. */
export function usage(toolsets: readonly string[]): string {
  return [
    `wave ${VERSION}: a headless agent runtime driven over stdin/stdout JSON lines`,
    "",
    "usage: wave [flags]                        stream-json on stdio (docs/protocol.md)",
    "       wave mcp [--listen HOST:PORT] [flags]  an MCP server of the toolset",
    "       wave acp [flags]                    an ACP agent for editors (Zed, JetBrains, Neovim)",
    "       wave report <session-id | transcript.jsonl> [-o FILE]   (one HTML page of a session)",
    "",
    ...helpLines(FLAGS, 28),
    "",
    `toolsets: ${toolsets.join(", ")}`,
    "environment: WAVE_HOME (state directory, default ~/.wave); ANTHROPIC_API_KEY, OPENAI_API_KEY, or *_API_KEY_FILE naming a file that holds it (--stt-model's key: OPENAI_API_KEY, or --model openai:'s own for the same server)",
    "MCP servers (--mcp-config): MCP_TIMEOUT, how long one may take to connect, and MCP_TOOL_TIMEOUT, one call of its tools (ms; default 30000 and 600000)",
    "protocol: see docs/protocol.md; stdout carries protocol lines only, logs go to stderr",
  ].join("\n") + "\n";
}
