/**
 * Bash (toolset `wave`, spec 000/001): runs a command in the workspace, in
 * its own process group, with a clean environment, output streamed to the
 * parent and cut for the model with the rest kept in a spill file.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, type InputOf } from "../kernel/tool.ts";
import {
  DEFAULT_TIMEOUT_MS,
  describeShellResult,
  MAX_TIMEOUT_MS,
  runShellCommand,
  SHELL_PROGRAMS,
  type ShellCommand,
  withShellCommand,
} from "../_core/shell.ts";

const description =
  `Runs a bash command in the workspace and returns its output.

- The command runs in the workspace directory, with stdin closed and a clean environment (no API keys or tokens). It cannot ask for input.
- timeout is in milliseconds: default ${DEFAULT_TIMEOUT_MS} (2 minutes), at most ${MAX_TIMEOUT_MS} (10 minutes). On timeout the command and everything it started are killed.
- Nothing outlives the command: background jobs (cmd &) are killed when it ends.
- You see at most 30,000 characters of output (its start and end); longer output is saved whole to a file whose path the result gives.
- Use the dedicated tools instead of shell equivalents: Grep (not grep or rg), Glob (not find or ls -R), Read (not cat, head or tail), Edit and Write (not sed, awk or echo >).
- Quote paths that contain spaces. Chain dependent commands with &&.
- description: a few words on what the command does, for the person watching.`;

const input = z.object({
  command: z.string().min(1).describe("The command to run"),
  timeout: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe(
    `Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})`,
  ),
  description: z.string().optional().describe(
    "What the command does, in 5-10 words",
  ),
}).strict();

type Input = InputOf<typeof input>;

const command: ShellCommand<Input> = {
  request: (i) => ({
    program: "bash",
    script: i.command,
    timeoutMs: i.timeout ?? DEFAULT_TIMEOUT_MS,
  }),
  result: (i, result) => ({
    content: describeShellResult(result, i.timeout ?? DEFAULT_TIMEOUT_MS),
    isError: result.exitCode !== 0,
    structured: { type: "bash", command: i.command, ...result },
  }),
};

export default withShellCommand(
  defineTool({
    name: "Bash",
    description,
    input,
    // Writes only its spill file under WAVE_HOME; the command itself runs outside Deno's permissions.
    scopes: { read: true, write: "state", run: SHELL_PROGRAMS },
    mode: "agent",
    run: (i, ctx) => runShellCommand(command, i, ctx),
  }),
  command,
);
