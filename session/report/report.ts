/**
 * A session report: one self-contained HTML page of what a session did,
 * made from its transcript (`WAVE_HOME/sessions/<id>.jsonl`), for a person
 * who looks after a CI run. `wave report` and `--report FILE` call it; it
 * loads the Markdown and diff renderers, so nothing on the start path may
 * import it.
 *
 * @module
 */

import { basename } from "../../tools/kernel/posix_path.ts";
import { Transcript } from "../transcript.ts";
import { analyse } from "./_analysis.ts";
import { renderPage } from "./_page.ts";

/** How {@linkcode renderReport} treats its transcript. */
export interface ReportOptions {
  /** A transcript that does not exist makes a page that says so, not an error. */
  missingOk?: boolean;
}

/** What {@linkcode renderReport} made, and what it counted. */
export interface RenderedReport {
  html: string;
  calls: number;
  /** Transcript lines skipped as incomplete, as `--resume` skips them. */
  skipped: number;
}

/**
 * The page of the transcript at `path`. Lines cut short are skipped with
 * a note on the page, as `--resume` skips them. Rejects only when the
 * file cannot be read (a missing one too, unless `missingOk`).
 */
export async function renderReport(
  path: string,
  options: ReportOptions = {},
): Promise<RenderedReport> {
  let loaded: Awaited<ReturnType<typeof Transcript.load>>;
  try {
    loaded = await Transcript.load(path);
  } catch (error) {
    if (!(options.missingOk && error instanceof Deno.errors.NotFound)) {
      throw error;
    }
    loaded = {
      entries: [],
      lines: [],
      warnings: [
        `${path} does not exist: the session ran no user turn, so it recorded nothing`,
      ],
    };
  }
  const { lines, warnings } = loaded;
  const analysis = analyse(lines, warnings);
  const id = analysis.session?.session_id ?? basename(path, ".jsonl");
  const html = await renderPage(analysis, `wave session ${id}`);
  return { html, calls: analysis.calls.length, skipped: warnings.length };
}

/**
 * Writes the page of the transcript at `transcript` to `out`, whole or not
 * at all (a temporary file renamed over it).
 */
export async function writeReport(
  transcript: string,
  out: string,
  options: ReportOptions = {},
): Promise<RenderedReport> {
  const report = await renderReport(transcript, options);
  const temp = `${out}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(temp, report.html);
    await Deno.rename(temp, out);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  return report;
}
