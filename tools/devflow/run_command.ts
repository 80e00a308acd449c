/**
 * run_command (toolset `devflow`, spec 002): runs a shell command and
 * returns its stdout and stderr (DevFlow's "stdout is always empty" bug
 * does not exist here).
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import {
  describeShellResult,
  MAX_TIMEOUT_MS,
  runShell,
  SHELL_PROGRAMS,
} from "../_core/shell.ts";
import { devflowPath, devflowRef } from "./_dialect.ts";
import { statOrNull } from "../kernel/stat.ts";

const description =
  `Runs a non-interactive shell command (bash) and returns {stdout, stderr, exit_code, timed_out}.

- working_dir: where it runs (default: the project directory); relative paths in the command are relative to it.
- timeout_secs: default 60, at most ${
    MAX_TIMEOUT_MS / 1000
  }; on timeout the command and everything it started are killed and timed_out is true.
- stdout and stderr are captured and returned (up to 30,000 characters each; longer output is saved whole to a file named in the result).
- Prefer the file tools for file work: search_in_file, search_files, file_info, patch_file, append_file, and write_file with encoding base64 for binary data.`;

const input = z.object({
  command: z.string().min(1).describe("The command (non-interactive)"),
  working_dir: z.string().min(1).optional().describe("The directory to run in"),
  timeout_secs: z.number().positive().max(MAX_TIMEOUT_MS / 1000).default(60)
    .describe("Default 60"),
}).strict();

export default defineTool({
  name: "run_command",
  description,
  input,
  scopes: { read: true, write: "state", run: SHELL_PROGRAMS },
  mode: "agent",
  paths: (i) =>
    i.working_dir ? [{ path: devflowPath(i.working_dir), access: "read" }] : [],
  async run(i, ctx) {
    let cwd = ctx.workspace;
    if (i.working_dir) {
      const { real, shown } = devflowRef(ctx, i.working_dir);
      const info = await statOrNull(real);
      if (!info?.isDirectory) {
        throw new ToolError(
          `working_dir ${shown} is not a directory (os error ${
            info ? 20 : 3
          }).`,
          {
            type: "bad_working_dir",
          },
        );
      }
      cwd = real;
    }
    const timeoutMs = Math.round(i.timeout_secs * 1000);
    const result = await runShell(ctx, {
      program: "bash",
      script: i.command,
      cwd,
      timeoutMs,
    });
    return {
      content: describeShellResult(result, timeoutMs),
      isError: result.exitCode !== 0,
      structured: {
        stdout: result.stdout,
        stderr: result.stderr,
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        signal: result.signal,
        cancelled: result.cancelled,
        truncated: result.truncated,
        full_output_path: result.fullPath,
        duration_ms: result.durationMs,
      },
    };
  },
});
