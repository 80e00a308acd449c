/**
 * A transcript read as a person reads a session: the timeline in order,
 * each tool call with its result, the time of each model turn, the files,
 * the commands, the approvals refused and the task list as it moved.
 *
 * Every value here came from the transcript and is untrusted text: this
 * module only sorts it, and the renderer escapes it.
 *
 * @module
 */

import type { Block, Usage } from "../messages.ts";
import type { TranscriptEntry, TranscriptRecord } from "../transcript.ts";

/** The session record: the settings of the loop that started. */
export type SessionInfo = Extract<TranscriptRecord, { type: "session" }>;
/** A user turn's end, as its `result` said it. */
export type TurnResult = Extract<TranscriptRecord, { type: "result" }>;

/** One tool call and, once it came, its result. */
export interface Call {
  /** Position among the session's calls, from 1: the page's anchor. */
  n: number;
  id: string;
  name: string;
  input: unknown;
  /** The reply's time: when the model asked for the call. */
  askedAt: number;
  /** The approval the call needed, as the transcript recorded it. */
  approval: NonNullable<TranscriptEntry["approvals"]>[string] | null;
  /** Null when no result was written (the session stopped mid-call). */
  result: {
    content: string | Block[];
    isError: boolean;
    structured: Record<string, unknown> | null;
    durationMs: number | null;
    at: number;
  } | null;
}

/** How a call ended, for its badge. */
export type CallStatus = "ok" | "error" | "denied" | "interrupted" | "pending";

/** One thing on the timeline. */
export type TimelineItem =
  | { kind: "session"; record: SessionInfo; resumed: boolean }
  | { kind: "prompt"; content: string | Block[]; at: number; meta: boolean }
  | { kind: "text"; text: string; at: number }
  | { kind: "call"; call: Call }
  | { kind: "result"; record: TurnResult };

/** One model turn's time: the request, then the tools it called. */
export interface TurnTime {
  turn: number;
  /** ms since the session's first line. */
  modelStart: number;
  modelMs: number;
  toolMs: number;
}

/** What the session did to one file. */
export interface FileSummary {
  path: string;
  reads: number;
  changes: number;
  added: number;
  removed: number;
  /** The calls that touched it, by `Call.n`. */
  calls: number[];
}

/** The task list after one change. */
export interface TaskSnapshot {
  call: number;
  tool: string;
  tasks: { id: string; subject: string; status: string }[];
}

/** An approval a call needed, and the answer. */
export interface Approval {
  call: number;
  tool: string;
  reason: string;
  allowed: boolean;
  /** Who decided; null in a transcript that did not record it. */
  by: "parent" | "policy" | null;
  message: string;
}

/** Everything the page shows. */
export interface Analysis {
  session: SessionInfo | null;
  results: TurnResult[];
  timeline: TimelineItem[];
  calls: Call[];
  turns: TurnTime[];
  files: FileSummary[];
  tasks: TaskSnapshot[];
  approvals: Approval[];
  started: number | null;
  ended: number | null;
  usage: Usage | null;
  /** Lines skipped as not complete, as the reader said. */
  warnings: string[];
}

const WRITERS =
  /^(write|edit|multiedit|write_file|edit_file|patch_file|append_file|notebookedit)$/i;
const READERS = /^(read|read_file|read_files)$/i;

/** Sorts a loaded transcript into what the page shows. */
export function analyse(
  lines: (TranscriptEntry | TranscriptRecord)[],
  warnings: string[],
): Analysis {
  const timeline: TimelineItem[] = [];
  const calls: Call[] = [];
  const byId = new Map<string, Call>();
  const turns: TurnTime[] = [];
  const results: TurnResult[] = [];
  let session: SessionInfo | null = null;
  let sessions = 0;
  let usage: Usage | null = null;
  const times = lines.map((l) => Date.parse(l.timestamp)).filter((t) =>
    Number.isFinite(t)
  );
  const started = times.length ? Math.min(...times) : null;
  const ended = times.length ? Math.max(...times) : null;
  let previous = started ?? 0;
  let openTurn: TurnTime | null = null;
  let openTurnAt = 0;

  for (const line of lines) {
    const at = Date.parse(line.timestamp) || previous;
    if (line.type === "session") {
      session ??= line;
      timeline.push({ kind: "session", record: line, resumed: sessions++ > 0 });
    } else if (line.type === "result") {
      results.push(line);
      timeline.push({ kind: "result", record: line });
      openTurn = null;
    } else if (line.type === "assistant") {
      const content = line.message.content;
      const modelMs = typeof line.durationMs === "number"
        ? line.durationMs
        : Math.max(0, at - previous);
      openTurn = {
        turn: turns.length + 1,
        modelStart: Math.max(0, at - modelMs - (started ?? 0)),
        modelMs,
        toolMs: 0,
      };
      openTurnAt = at;
      turns.push(openTurn);
      if (line.usage) {
        usage ??= { input_tokens: 0, output_tokens: 0 };
        usage.input_tokens += Number(line.usage.input_tokens) || 0;
        usage.output_tokens += Number(line.usage.output_tokens) || 0;
      }
      for (const block of typeof content === "string" ? [] : content) {
        if (block.type === "text" && "text" in block) {
          if (String(block.text).trim()) {
            timeline.push({ kind: "text", text: String(block.text), at });
          }
        } else if (block.type === "tool_use") {
          const use = block as { id: string; name: string; input: unknown };
          const call: Call = {
            n: calls.length + 1,
            id: String(use.id),
            name: String(use.name),
            input: use.input,
            askedAt: at,
            approval: null,
            result: null,
          };
          calls.push(call);
          byId.set(call.id, call);
          timeline.push({ kind: "call", call });
        }
      }
      if (typeof content === "string" && content.trim()) {
        timeline.push({ kind: "text", text: content, at });
      }
    } else {
      const content = line.message.content;
      const toolResults = typeof content === "string"
        ? []
        : content.filter((b) => b.type === "tool_result");
      if (toolResults.length > 0) {
        for (const block of toolResults) {
          const r = block as {
            tool_use_id: string;
            content: string | Block[];
            is_error?: boolean;
          };
          const call = byId.get(r.tool_use_id);
          if (!call) continue;
          const structured = line.toolUseResults?.[r.tool_use_id];
          call.approval = line.approvals?.[r.tool_use_id] ?? null;
          call.result = {
            content: r.content,
            isError: !!r.is_error,
            structured: structured && typeof structured === "object"
              ? structured as Record<string, unknown>
              : null,
            durationMs: typeof line.durationsMs?.[r.tool_use_id] === "number"
              ? line.durationsMs[r.tool_use_id]
              : null,
            at,
          };
        }
        if (openTurn) openTurn.toolMs = Math.max(0, at - openTurnAt);
        openTurn = null;
      } else {
        timeline.push({ kind: "prompt", content, at, meta: !!line.isMeta });
      }
    }
    previous = at;
  }
  if (!usage && results.length > 0) {
    usage = { input_tokens: 0, output_tokens: 0 };
    for (const r of results) {
      usage.input_tokens += Number(r.usage?.input_tokens) || 0;
      usage.output_tokens += Number(r.usage?.output_tokens) || 0;
    }
  }
  return {
    session,
    results,
    timeline,
    calls,
    turns,
    files: summariseFiles(calls),
    tasks: taskSnapshots(calls),
    approvals: approvals(calls),
    started,
    ended,
    usage,
    warnings,
  };
}

/** How a call ended. */
export function statusOf(call: Call): CallStatus {
  const r = call.result;
  if (!r) return "pending";
  const type = r.structured?.type;
  if (type === "permission_denied") return "denied";
  if (
    type === "interrupted" || r.structured?.cancelled === true ||
    (r.isError && typeof r.content === "string" &&
      /was interrupted/.test(r.content))
  ) return "interrupted";
  if (r.isError) return "error";
  const exit = r.structured?.exitCode;
  if (typeof exit === "number" && exit !== 0) return "error";
  return "ok";
}

/** The file a call names, if any: the path its result resolved, else its input's. */
export function pathOf(call: Call): string | null {
  const s = call.result?.structured;
  if (s && typeof s.path === "string") return s.path;
  const input = call.input as Record<string, unknown> | null;
  for (const key of ["file_path", "path", "notebook_path"]) {
    if (input && typeof input[key] === "string") return input[key] as string;
  }
  return null;
}

/** The unified diff a call's result holds (`structured.diff`), if any. */
export function diffOf(call: Call): string | null {
  const d = call.result?.structured?.diff;
  return typeof d === "string" && d.length > 0 ? d : null;
}

function isChange(call: Call): boolean {
  if (!call.result || call.result.isError) return false;
  const type = call.result.structured?.type;
  return diffOf(call) !== null || type === "edit" || type === "create" ||
    type === "update" || WRITERS.test(call.name);
}

function countDiff(diff: string): { added: number; removed: number } {
  let added = 0, removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { added, removed };
}

function summariseFiles(calls: Call[]): FileSummary[] {
  const files = new Map<string, FileSummary>();
  for (const call of calls) {
    const path = pathOf(call);
    if (!path) continue;
    const change = isChange(call);
    const read = !change && READERS.test(call.name) && !!call.result &&
      !call.result.isError;
    if (!change && !read) continue;
    let f = files.get(path);
    if (!f) {
      f = { path, reads: 0, changes: 0, added: 0, removed: 0, calls: [] };
      files.set(path, f);
    }
    f.calls.push(call.n);
    if (read) f.reads++;
    if (change) {
      f.changes++;
      const diff = diffOf(call);
      const content = (call.input as Record<string, unknown> | null)?.content;
      if (diff) {
        const { added, removed } = countDiff(diff);
        f.added += added;
        f.removed += removed;
      } else if (
        call.result?.structured?.type === "create" &&
        typeof content === "string"
      ) {
        // A new file: every line of it is added.
        f.added += content.split("\n").length -
          (content.endsWith("\n") ? 1 : 0);
      }
    }
  }
  return [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
}

function taskSnapshots(calls: Call[]): TaskSnapshot[] {
  const tasks = new Map<
    string,
    { id: string; subject: string; status: string }
  >();
  const out: TaskSnapshot[] = [];
  for (const call of calls) {
    const s = call.result?.structured;
    if (call.result?.isError || s?.type !== "task") continue;
    const task = s.task as Record<string, unknown> | undefined;
    if (!task || task.id === undefined) continue;
    const id = String(task.id);
    if (task.status === "deleted") tasks.delete(id);
    else {
      tasks.set(id, {
        id,
        subject: String(task.subject ?? ""),
        status: String(task.status ?? ""),
      });
    }
    out.push({
      call: call.n,
      tool: call.name,
      tasks: [...tasks.values()].sort((a, b) =>
        Number(a.id) - Number(b.id) || a.id.localeCompare(b.id)
      ),
    });
  }
  return out;
}

function approvals(calls: Call[]): Approval[] {
  return calls.flatMap((call): Approval[] => {
    const a = call.approval;
    if (a) {
      return [{
        call: call.n,
        tool: call.name,
        reason: String(a.reason),
        allowed: a.allowed === true,
        by: a.by === "parent" || a.by === "policy" ? a.by : null,
        message: String(a.message ?? ""),
      }];
    }
    // A transcript from before approvals were recorded: its refusals.
    const s = call.result?.structured;
    if (s?.type !== "permission_denied") return [];
    const content = call.result!.content;
    return [{
      call: call.n,
      tool: call.name,
      reason: String(s.reason ?? ""),
      allowed: false,
      by: null,
      message: typeof content === "string" ? content : "",
    }];
  });
}
