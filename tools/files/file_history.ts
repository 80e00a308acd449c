/**
 * file_history (toolset `files`, spec 004): the versions the history layer
 * keeps of every file a tool changed: when, which tool, in which task and
 * for what goal, and what the file held. `list` shows them newest first;
 * `read` diffs each path's latest recorded version against the disk.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import {
  defineTool,
  type InputOf,
  type ToolContext,
  ToolError,
} from "../kernel/tool.ts";
import { displayPath } from "../kernel/workspace.ts";
import { readFileBytesSync } from "../kernel/read_file.ts";
import { diffable, diffForModel, diffTexts } from "../_core/diff.ts";
import {
  listVersions,
  shownVersions,
  type Version,
  versionBytes,
} from "../_core/history.ts";
import { formatBytes, plural } from "../_core/text.ts";

/** The most versions one list gives (spec 004). */
export const MAX_LIST = 24;

const description =
  `The version history of every file the tools changed: when it changed, by which tool, in which task and for what goal, and what it held before. This is what edit_file mode "restore" restores from.

- mode "list" (default): versions newest first, each with its version_id, local time, path, tool, task id and goal, and size. Filter by path, task_id ("current": the running task), from / to (local time: "2025-06-01", "2025-06-01 14:30" or ISO), and limit (at most ${MAX_LIST}, the default).
- mode "read": for each of paths, a unified diff of its latest recorded version (the content before the last change) against the file on disk now.
- A version holds the content before a change: restoring it undoes that change and everything after.`;

const input = z.object({
  mode: z.enum(["list", "read"]).default("list"),
  path: z.string().min(1).optional().describe(
    "list: only this file's versions",
  ),
  paths: z.array(z.string().min(1)).min(1).max(MAX_LIST).optional().describe(
    "read: the files to diff against their latest recorded version",
  ),
  task_id: z.string().min(1).optional().describe(
    'list: only this task\'s versions ("current": the running task)',
  ),
  from: z.string().optional().describe(
    "list: versions at or after this local time",
  ),
  to: z.string().optional().describe(
    "list: versions at or before this local time",
  ),
  limit: z.number().int().min(1).max(MAX_LIST).default(MAX_LIST).describe(
    `list: at most this many versions (at most ${MAX_LIST})`,
  ),
}).strict();

type Input = InputOf<typeof input>;

export default defineTool({
  name: "file_history",
  description,
  input,
  scopes: { read: true },
  paths: (i) =>
    [...(i.path ? [i.path] : []), ...(i.paths ?? [])].map((path) => ({
      path,
      access: "read" as const,
    })),
  async run(i, ctx) {
    return i.mode === "read" ? await read(i, ctx) : await list(i, ctx);
  },
});

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** A time as the person's clock shows it: `YYYY-MM-DD HH:MM:SS`. */
export function localTime(at: Date): string {
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${
    pad(at.getHours())
  }:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

/**
 * A local time given as `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` or ISO 8601
 * (with or without an offset), in ms. As an end (`to`), a day or a minute
 * means its last moment.
 */
export function parseLocalTime(text: string, end: boolean): number | undefined {
  const m = text.trim().match(
    /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/,
  );
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1).map((x) =>
      x === undefined ? undefined : Number(x)
    );
    const start = new Date(y!, mo! - 1, d!, h ?? 0, mi ?? 0, s ?? 0).getTime();
    if (!end) return start;
    const span = h === undefined ? 86_400_000 : s === undefined ? 60_000 : 1000;
    return start + span - 1;
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
}

function timeBound(text: string | undefined, name: string, end: boolean) {
  if (text === undefined) return undefined;
  const at = parseLocalTime(text, end);
  if (at === undefined) {
    throw new ToolError(
      `${name} "${text}" is not a time: give local time as "YYYY-MM-DD", "YYYY-MM-DD HH:MM" or ISO 8601.`,
      { type: "bad_time" },
    );
  }
  return at;
}

async function list(i: Input, ctx: ToolContext) {
  const from = timeBound(i.from, "from", false);
  const to = timeBound(i.to, "to", true);
  const real = i.path ? ctx.path(i.path).real : undefined;
  const task = i.task_id === "current" ? ctx.task.id : i.task_id;
  const matching = shownVersions(ctx, await listVersions(ctx)).filter((v) => {
    const at = Date.parse(v.at);
    return (real === undefined || v.path === real) &&
      (task === undefined || v.task?.id === task) &&
      (from === undefined || at >= from) && (to === undefined || at <= to);
  }).reverse();
  const shown = matching.slice(0, i.limit);
  const rows = shown.map((v) => ({
    version_id: v.id,
    time: localTime(new Date(v.at)),
    path: displayPath(ctx.workspace, v.path),
    tool: v.tool,
    task_id: v.task?.id ?? null,
    goal: v.task?.goal ?? "",
    existed: v.existed,
    size: v.existed ? v.size : null,
  }));
  const lines = rows.map((r) =>
    `${r.version_id}  ${r.time}  ${r.path}  before ${r.tool}  task ${r.task_id}${
      r.goal ? ` "${r.goal}"` : ""
    }  ${r.size === null ? "(did not exist)" : formatBytes(r.size)}`
  );
  const more = matching.length - shown.length;
  const content = rows.length === 0
    ? "No versions match."
    : `${plural(matching.length, "version")}${
      more > 0 ? `, newest ${shown.length} shown` : ""
    } (newest first):\n${lines.join("\n")}\n${
      more > 0 ? `[${more} older; narrow with path, task_id, from/to]\n` : ""
    }`;
  return {
    content,
    structured: { mode: "list", total: matching.length, versions: rows },
  };
}

async function read(i: Input, ctx: ToolContext) {
  const raw = i.paths ?? (i.path ? [i.path] : undefined);
  if (!raw) {
    throw new ToolError('mode "read" needs paths: the files to diff.', {
      type: "missing_field",
    });
  }
  const versions = shownVersions(ctx, await listVersions(ctx));
  const parts: string[] = [];
  const files = [];
  for (const p of raw) {
    const file = ctx.path(p);
    const shown = displayPath(ctx.workspace, file.abs);
    const latest: Version | undefined = versions.findLast((v) =>
      v.path === file.real
    );
    if (!latest) {
      parts.push(`==> ${shown} <==\nNo recorded versions.\n`);
      files.push({ path: file.abs, version_id: null, diff: null });
      continue;
    }
    const then = await versionBytes(ctx, latest);
    let now: Uint8Array | null = null;
    try {
      now = readFileBytesSync(file.real);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const head = `==> ${shown} <== latest version ${latest.id} (${
      localTime(new Date(latest.at))
    }, before ${latest.tool}) against the disk now`;
    const decode = (b: Uint8Array | null) =>
      b === null ? "" : new TextDecoder("utf-8", { fatal: true }).decode(b);
    let body: string;
    let unified: string | null = null;
    try {
      const diff = diffTexts(
        shown,
        diffable(decode(then)),
        diffable(decode(now)),
      );
      unified = diff.unified;
      body = then === null && now === null
        ? "It did not exist then and does not exist now."
        : diff.unified === ""
        ? "No difference: the file is as that version holds it."
        : (then === null ? "(It did not exist then.)\n" : "") +
          (now === null ? "(It does not exist now.)\n" : "") +
          diffForModel(diff.unified).trimEnd();
    } catch {
      body = `Binary content: ${
        then === null ? "absent" : formatBytes(then.length)
      } then, ${now === null ? "absent" : formatBytes(now.length)} now${
        then && now && then.length === now.length &&
          then.every((b, k) => b === now[k])
          ? " (identical)"
          : ""
      }.`;
    }
    parts.push(`${head}\n${body}\n`);
    files.push({ path: file.abs, version_id: latest.id, diff: unified });
  }
  return { content: parts.join("\n"), structured: { mode: "read", files } };
}
