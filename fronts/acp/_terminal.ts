/**
 * Commands shown in the editor's terminal (issue 17), without the editor
 * running them. ACP's own terminals (`terminal/create` and the tool-call
 * content `{type: "terminal"}` that embeds one) make the client run the
 * command, outside wave's sandbox, approvals and process groups, so
 * `wave acp` never creates one. A client that renders agent-run commands
 * as terminals (the `_meta.terminal_output` client capability, the
 * convention of Zed and Claude Code's ACP adapter) is given the command
 * wave runs in its own sandbox: the tool call embeds a terminal by the
 * call's id (`_meta.terminal_info`), the output
 * streams into it as it comes (`_meta.terminal_output`), and its end says
 * how the command exited (`_meta.terminal_exit`). Other clients see the
 * output as the tool call's text content.
 *
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";

/** Whether the client shows agent-run commands as terminals (`clientCapabilities._meta.terminal_output`). */
export function offersTerminalOutput(
  capabilities: acp.ClientCapabilities | undefined,
): boolean {
  return capabilities?._meta?.terminal_output === true;
}

/** What a command's `tool_call` adds: the terminal it is shown in (its id is the call's) and where it runs. */
export function terminalOf(
  toolCallId: string,
  cwd: string,
): Pick<acp.ToolCall, "content" | "_meta"> {
  return {
    content: [{ type: "terminal", terminalId: toolCallId }],
    _meta: { terminal_info: { terminal_id: toolCallId, cwd } },
  };
}

/** Output of a running command, as it came, for its terminal. */
export function terminalOutputOf(
  toolCallId: string,
  data: string,
): acp.ToolCallUpdate {
  return {
    toolCallId,
    status: "in_progress",
    _meta: { terminal_output: { terminal_id: toolCallId, data } },
  };
}

/**
 * The end of a command shown in a terminal: the terminal stays its
 * content, and its exit code and signal come from the tool's structured
 * result (`exitCode`, `exit_code` or `ExitCode`, as the dialect names it,
 * and `signal`). Null when the result has neither (the command never ran:
 * denied, interrupted before it started): its text is shown instead.
 */
export function terminalExitOf(
  toolCallId: string,
  structured: unknown,
): Pick<acp.ToolCallUpdate, "content" | "_meta"> | null {
  const result = (structured ?? {}) as Record<string, unknown>;
  const code = [result.exitCode, result.exit_code, result.ExitCode].find((
    v,
  ) => typeof v === "number" || v === null);
  const signal = typeof result.signal === "string" ? result.signal : null;
  if (code === undefined && signal === null) return null;
  return {
    content: [{ type: "terminal", terminalId: toolCallId }],
    _meta: {
      terminal_exit: {
        terminal_id: toolCallId,
        exit_code: code ?? null,
        signal,
      },
    },
  };
}
