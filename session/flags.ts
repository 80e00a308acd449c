/**
 * wave's flags: the one table the parser, the defaults and `--help` read.
 *
 * Runs before `system/init`: it imports only modules that import nothing.
 *
 * @module
 */

import { type FlagTable, helpLines } from "./_flag_parser.ts";
import { MODES } from "../tools/kernel/modes.ts";
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
    help: "continue the session ID from its transcript in WAVE_HOME/sessions",
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
