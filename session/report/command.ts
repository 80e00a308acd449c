/**
 * `wave report <session-id | transcript.jsonl> [-o FILE]`: writes one
 * session's report page, by default `wave-report-<session>.html` in the
 * directory wave was started from. The CLI loads this module only for
 * this command, and at the end of a session run with `--report FILE`.
 *
 * @module
 */

import { resolve } from "../../tools/kernel/posix_path.ts";
import { CALLER_CWD_VARIABLE } from "../config.ts";
import { transcriptPath } from "../transcript.ts";
import { writeReport } from "./report.ts";

/** What the command says and how it exits. */
export interface CommandOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `wave report --help` text. */
export const REPORT_USAGE =
  `usage: wave report <session-id | path/to/transcript.jsonl> [-o FILE]

Writes one self-contained HTML page of what a session did (its prompts, the
model's text, every tool call with its result, diffs, commands, approvals,
the task list, the time per turn), from its transcript in
WAVE_HOME/sessions. Default FILE: wave-report-<session>.html here.
`;

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Runs `wave report` with `args` (what follows `report`). Exits 0 with the
 * page written, 2 on bad arguments, 1 when the transcript cannot be read
 * or the page cannot be written; each failure is one line on stderr.
 */
export async function reportCommand(
  args: string[],
  env: { get(name: string): string | undefined },
): Promise<CommandOutcome> {
  const fail = (code: number, message: string): CommandOutcome => ({
    code,
    stdout: "",
    stderr: `wave report: ${message}\n`,
  });
  let source: string | undefined;
  let output: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h" || arg === "--help") {
      return { code: 0, stdout: REPORT_USAGE, stderr: "" };
    }
    if (arg === "-o" || arg === "--output") {
      output = args[++i];
      if (output === undefined) return fail(2, `${arg} needs a FILE`);
    } else if (arg.startsWith("--output=")) output = arg.slice(9);
    else if (arg.startsWith("-") && arg !== "-") {
      return fail(2, `unknown option ${arg}; see wave report --help`);
    } else if (source !== undefined) {
      return fail(2, `one session at a time: ${source} and ${arg} were given`);
    } else source = arg;
  }
  if (source === undefined) {
    return fail(
      2,
      "name a session id or a transcript file: wave report <session-id | transcript.jsonl> [-o FILE]",
    );
  }
  const cwd = resolve(Deno.cwd(), env.get(CALLER_CWD_VARIABLE) || ".");
  const path = await transcriptOf(source, cwd, env);
  if ("problem" in path) return fail(1, path.problem);
  const id = path.file.split("/").pop()!.replace(/\.jsonl$/, "");
  const out = resolve(cwd, output ?? `wave-report-${id}.html`);
  try {
    const report = await writeReport(path.file, out);
    return {
      code: 0,
      stdout: `wrote ${out} (${report.calls} tool calls${
        report.skipped
          ? `; ${report.skipped} incomplete transcript lines skipped`
          : ""
      })\n`,
      stderr: "",
    };
  } catch (error) {
    return fail(1, `cannot write ${out}: ${(error as Error).message}`);
  }
}

/** The transcript `source` names: a file, else a session id in WAVE_HOME. */
async function transcriptOf(
  source: string,
  cwd: string,
  env: { get(name: string): string | undefined },
): Promise<{ file: string } | { problem: string }> {
  const asFile = resolve(cwd, source);
  const stat = await Deno.stat(asFile).catch(() => null);
  if (stat?.isFile) return { file: asFile };
  if (stat) return { problem: `${asFile} is not a file` };
  if (source.includes("/") || source.endsWith(".jsonl")) {
    return { problem: `there is no transcript ${asFile}` };
  }
  if (!SESSION_ID.test(source)) {
    return {
      problem: `"${source}" is neither a file nor a session id`,
    };
  }
  const home = env.get("WAVE_HOME");
  const userHome = env.get("HOME");
  if (!home && !userHome) {
    return { problem: "neither WAVE_HOME nor HOME is set; set WAVE_HOME" };
  }
  const waveHome = resolve(cwd, home || `${userHome}/.wave`);
  const file = transcriptPath(waveHome, source);
  if (!(await Deno.stat(file).catch(() => null))?.isFile) {
    return {
      problem: `there is no session ${source} in ${waveHome}/sessions`,
    };
  }
  return { file };
}

/**
 * `--report FILE` at the end of a session: the page of the session's
 * transcript, written whatever way the session ended. A session that ran
 * no user turn has no transcript and gets a page saying so. Never
 * rejects: a failure is one line on stderr.
 */
export async function reportAtEnd(
  waveHome: string,
  sessionId: string,
  out: string,
): Promise<void> {
  try {
    await writeReport(transcriptPath(waveHome, sessionId), out, {
      missingOk: true,
    });
  } catch (error) {
    console.error(
      `wave: cannot write the report ${out}: ${(error as Error).message}`,
    );
  }
}
