/**
 * shell (toolset `sata`, spec 001 命令): runs a bash or PowerShell script in
 * the workspace; cancelled by the parent's interrupt.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import {
  DEFAULT_TIMEOUT_MS,
  describeShellResult,
  runShell,
  SHELL_PROGRAMS,
} from "../_core/shell.ts";

const description =
  `Runs a script in the workspace with bash or powershell and returns its output.

- Program: "bash" (default) or "powershell" (only where pwsh is installed; otherwise an error says so).
- The script runs with stdin closed and a clean environment, for at most ${
    DEFAULT_TIMEOUT_MS / 1000
  } s; it and everything it starts are killed on timeout or when the user cancels. Background jobs do not outlive it.
- Returns Output (stdout and stderr as they came), ExitCode, Truncated, and FullPath: when the output is longer than 30,000 characters the start and end are shown and the whole output is saved at FullPath.
- Use read, grep and find rather than cat, grep or find in a script.`;

const input = z.object({
  Program: z.enum(["bash", "powershell"]).default("bash").describe(
    "The shell: bash or powershell",
  ),
  Script: z.string().min(1).describe("The script to run"),
}).strict();

export default defineTool({
  name: "shell",
  description,
  input,
  scopes: { read: true, write: "state", run: SHELL_PROGRAMS },
  mode: "agent",
  async run(i, ctx) {
    const result = await runShell(ctx, {
      program: i.Program,
      script: i.Script,
      cwd: ctx.workspace,
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
    return {
      content: describeShellResult(result, DEFAULT_TIMEOUT_MS),
      isError: result.exitCode !== 0,
      structured: {
        Output: result.output,
        ExitCode: result.exitCode ?? -1,
        Truncated: result.truncated,
        FullPath: result.fullPath ?? "",
        Signal: result.signal,
        TimedOut: result.timedOut,
        Cancelled: result.cancelled,
        Stdout: result.stdout,
        Stderr: result.stderr,
        DurationMs: result.durationMs,
      },
    };
  },
});
