/**
 * The report page's HTML: the header, notes, summaries, the waterfall and
 * the timeline. Every transcript value goes through `escapeHtml` or the
 * Markdown renderer (raw HTML off, images off, unsafe link schemes
 * refused); long bodies sit in `<template>`s, rendered when their fold
 * opens.
 *
 * @module
 */

// @ts-types="@types/markdown-it"
import MarkdownIt from "markdown-it";
import type { Block } from "../messages.ts";
import {
  type Analysis,
  type Call,
  diffOf,
  pathOf,
  statusOf,
  type TimelineItem,
} from "./_analysis.ts";
import { SCRIPT, STYLE } from "./_assets.ts";
import { renderDiff, replacementDiff } from "./_diff.ts";
import { escapeHtml, escapeText } from "./_escape.ts";
import { formatMs, waterfall } from "./_waterfall.ts";

/** Lines of output shown before the rest is folded. */
const SHOWN_LINES = 20;
/** Characters of output shown before the rest is folded. */
const SHOWN_CHARS = 2000;
/** The most characters of one folded rest. */
const FOLDED_CHARS = 256 * 1024;
/**
 * Characters of folded rests a page holds in all: past it, a rest is left
 * out with a note, so a long session still makes a page a browser opens.
 */
const FOLDED_BUDGET = 5 * 1024 * 1024;
/** Diffs up to this many lines show open, while few calls are shown open. */
const OPEN_DIFF_LINES = 80;
const MAX_OPEN_CALLS = 40;

const markdown = new MarkdownIt({ html: false, linkify: false });
// An image would be a request leaving the page.
markdown.disable("image");

/** The page, and its policy's hashes. */
export async function renderPage(a: Analysis, title: string): Promise<string> {
  const [scriptHash, styleHash] = await Promise.all([
    sha256(SCRIPT),
    sha256(STYLE),
  ]);
  const csp =
    `default-src 'none'; script-src 'sha256-${scriptHash}'; style-src 'sha256-${styleHash}'; img-src 'none'; base-uri 'none'; form-action 'none'`;
  let openCalls = 0;
  folded = 0;
  const body = [
    header(a, title),
    notes(a),
    section("Time", waterfall(a.turns)),
    section("Files", files(a)),
    section("Commands", commands(a)),
    section("Approvals", approvals(a)),
    section("Task list", tasks(a)),
    `<h2>Timeline <span class="controls"><button type="button" data-folds="open">open all</button> <button type="button" data-folds="close">close all</button></span></h2>`,
    `<div id="timeline">${
      a.timeline.map((item) =>
        timelineItem(item, () => openCalls++ < MAX_OPEN_CALLS)
      ).join("\n")
    }</div>`,
  ].join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  let binary = "";
  for (const byte of new Uint8Array(digest)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}

function section(name: string, html: string): string {
  return `<h2>${escapeHtml(name)}</h2>\n${html}`;
}

function header(a: Analysis, title: string): string {
  const s = a.session;
  const last = a.results[a.results.length - 1];
  // A turn asked for after the last result never ended (a crash, kill -9).
  const lastPrompt = a.timeline.findLastIndex((i) =>
    i.kind === "prompt" && !i.meta
  );
  const lastEnd = a.timeline.findLastIndex((i) => i.kind === "result");
  const unfinished = s !== null && lastPrompt > lastEnd;
  const rows: [string, string][] = [
    ["workspace", s ? code(s.cwd) : "not recorded"],
    ["model", s?.model ? code(s.model) : "not recorded"],
    ["toolset", s ? escapeHtml(s.toolset) : "not recorded"],
    ["mode", s ? escapeHtml(s.mode) : "not recorded"],
    ["approvals", s ? escapeHtml(s.approvals) : "not recorded"],
    [
      "started",
      a.started === null ? "not recorded" : escapeHtml(
        new Date(a.started).toISOString().replace("T", " ").replace(
          /\.\d+Z$/,
          " UTC",
        ),
      ),
    ],
    [
      "duration",
      a.started === null || a.ended === null
        ? "not recorded"
        : escapeHtml(formatMs(a.ended - a.started)),
    ],
    [
      "turns",
      `${
        a.timeline.filter((i) => i.kind === "prompt" && !i.meta).length
      } user, ${a.turns.length} model`,
    ],
    ["tool calls", String(a.calls.length)],
    [
      "tokens",
      a.usage
        ? `${count(a.usage.input_tokens)} in, ${
          count(a.usage.output_tokens)
        } out`
        : "not recorded",
    ],
    ["cost", "not known (transcripts record tokens, not prices)"],
    [
      "result",
      unfinished
        ? `<span class="badge pending">none</span> the last turn recorded no end (wave stopped mid-turn)`
        : last
        ? `<span class="badge ${last.is_error ? "error" : "ok"}">${
          escapeHtml(last.subtype)
        }</span> ${escapeHtml(clip(last.result, 300))}`
        : `<span class="badge pending">none</span> ${
          s ? "no turn was recorded" : "not recorded"
        }`,
    ],
  ];
  if (s?.wave_version) rows.push(["wave", escapeHtml(s.wave_version)]);
  return `<h1>${escapeHtml(title)}</h1>
<dl class="header" id="header">${
    rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${v}</dd>`).join("")
  }</dl>`;
}

function notes(a: Analysis): string {
  if (a.warnings.length === 0) return "";
  return `<div class="notes" id="notes"><strong>Some transcript lines were skipped:</strong><ul>${
    a.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")
  }</ul></div>`;
}

function files(a: Analysis): string {
  if (a.files.length === 0) return "<p>No file was read or changed.</p>";
  const changed = a.files.filter((f) => f.changes > 0).length;
  const read = a.files.filter((f) => f.reads > 0).length;
  return `<p>${changed} changed, ${read} read.</p><table id="files"><thead><tr><th>file</th><th class="num">read</th><th class="num">changed</th><th class="num">lines</th><th>calls</th></tr></thead><tbody>${
    a.files.map((f) =>
      `<tr><td>${code(f.path)}</td><td class="num">${
        f.reads || ""
      }</td><td class="num">${f.changes || ""}</td><td class="num">${
        f.changes
          ? `<span class="plus">+${f.added}</span> <span class="minus">−${f.removed}</span>`
          : ""
      }</td><td>${callLinks(f.calls)}</td></tr>`
    ).join("")
  }</tbody></table>`;
}

function callLinks(ns: number[]): string {
  const shown = ns.slice(0, 12).map((n) => `<a href="#call-${n}">#${n}</a>`);
  if (ns.length > 12) shown.push(`… ${ns.length - 12} more`);
  return shown.join(" ");
}

function commands(a: Analysis): string {
  const runs = a.calls.filter((c) => commandOf(c) !== null);
  if (runs.length === 0) return "<p>No command ran.</p>";
  const failed = runs.filter((c) => statusOf(c) !== "ok").length;
  return `<p>${runs.length} ran, ${failed} failed.</p><table id="commands"><thead><tr><th>call</th><th>command</th><th class="num">exit</th><th class="num">time</th></tr></thead><tbody>${
    runs.map((c) => {
      const s = c.result?.structured;
      const exit = typeof s?.exitCode === "number"
        ? String(s.exitCode)
        : typeof s?.signal === "string"
        ? s.signal
        : statusOf(c);
      return `<tr><td><a href="#call-${c.n}">#${c.n}</a></td><td>${
        code(clip(commandOf(c)!, 160))
      }</td><td class="num ${statusOf(c)}">${
        escapeHtml(exit)
      }</td><td class="num">${escapeHtml(durationOf(c))}</td></tr>`;
    }).join("")
  }</tbody></table>`;
}

function approvals(a: Analysis): string {
  if (a.approvals.length === 0) {
    return `<p>No call needed an approval (--approvals ${
      escapeHtml(a.session?.approvals ?? "not recorded")
    }).</p>`;
  }
  const refused = a.approvals.filter((r) => !r.allowed).length;
  return `<p>${a.approvals.length} asked, ${refused} refused.</p><table id="approvals"><thead><tr><th>call</th><th>tool</th><th>asked for</th><th>answer</th><th>by</th></tr></thead><tbody>${
    a.approvals.map((r) =>
      `<tr><td><a href="#call-${r.call}">#${r.call}</a></td><td>${
        escapeHtml(r.tool)
      }</td><td>${escapeHtml(r.reason)}</td><td class="${
        r.allowed ? "ok" : "denied"
      }">${
        r.allowed
          ? "allowed"
          : `refused${r.message ? `: ${escapeHtml(r.message)}` : ""}`
      }</td><td>${
        r.by === "parent"
          ? "the parent"
          : r.by === "policy"
          ? `--approvals ${escapeHtml(a.session?.approvals ?? "")}`
          : "not recorded"
      }</td></tr>`
    ).join("")
  }</tbody></table>`;
}

const STATUS_MARK: Record<string, string> = {
  completed: "✓ completed",
  in_progress: "▶ in progress",
  pending: "○ pending",
};

function tasks(a: Analysis): string {
  if (a.tasks.length === 0) return "<p>No task list was kept.</p>";
  const last = a.tasks[a.tasks.length - 1];
  const table = (t: typeof last) =>
    `<table class="tasks"><tbody>${
      t.tasks.map((task) =>
        `<tr><td class="num">${escapeHtml(task.id)}</td><td>${
          escapeHtml(task.subject)
        }</td><td class="status ${
          task.status === "completed" ? "ok" : "pending"
        }">${escapeHtml(STATUS_MARK[task.status] ?? task.status)}</td></tr>`
      ).join("")
    }</tbody></table>`;
  return `<p>At the end (after call <a href="#call-${last.call}">#${last.call}</a>):</p><div id="tasks">${
    table(last)
  }</div>${
    fold(
      `${a.tasks.length} changes`,
      a.tasks.map((t) =>
        `<div class="label">after <a href="#call-${t.call}">#${t.call}</a> ${
          escapeHtml(t.tool)
        }</div>${table(t)}`
      ).join(""),
    )
  }`;
}

function timelineItem(item: TimelineItem, mayOpen: () => boolean): string {
  switch (item.kind) {
    case "session":
      return `<div class="marker">${
        item.resumed ? "session resumed" : "session started"
      } · ${escapeHtml(item.record.timestamp)}</div>`;
    case "prompt":
      return `<div class="item prompt${
        item.meta ? " meta" : ""
      }"><div class="who">${
        item.meta ? "reminder (added by wave)" : "user"
      }</div>${blocksHtml(item.content)}</div>`;
    case "text":
      return `<div class="item text"><div class="who">model</div>${
        markdown.render(item.text)
      }</div>`;
    case "call":
      return callHtml(item.call, mayOpen);
    case "result": {
      const r = item.record;
      return `<div class="item turn-end ${
        r.is_error ? "error" : "ok"
      }"><span class="badge ${r.is_error ? "error" : "ok"}">${
        escapeHtml(r.subtype)
      }</span> after ${count(r.num_turns)} model turns in ${
        escapeHtml(formatMs(count(r.duration_ms)))
      } · ${count(r.usage?.input_tokens)} tokens in, ${
        count(r.usage?.output_tokens)
      } out${r.result ? `<pre>${escapeHtml(r.result)}</pre>` : ""}</div>`;
    }
  }
}

function blocksHtml(content: string | Block[]): string {
  if (typeof content === "string") return markdown.render(content);
  return content.map((b) => {
    if (b.type === "text" && "text" in b) {
      return markdown.render(String(b.text));
    }
    return `<p><code>[${escapeHtml(String(b.type))} block]</code></p>`;
  }).join("");
}

function callHtml(call: Call, mayOpen: () => boolean): string {
  const status = statusOf(call);
  const diff = changeDiff(call);
  const open = diff !== null && diff.split("\n").length <= OPEN_DIFF_LINES &&
    mayOpen();
  const inner = callBody(call, diff);
  return `<details class="call ${status}" id="call-${call.n}"${
    open ? " open" : ""
  }><summary><span class="tool">${
    escapeHtml(call.name)
  }</span><span class="what">${
    escapeHtml(clip(summaryOf(call), 200))
  }</span><span class="time">${
    escapeHtml(durationOf(call))
  }</span><span class="badge ${status}">${
    escapeHtml(badgeOf(call))
  }</span></summary>${
    open
      ? `<div class="body">${inner}</div>`
      : `<template><div class="body">${inner}</div></template>`
  }</details>`;
}

function badgeOf(call: Call): string {
  const status = statusOf(call);
  const exit = call.result?.structured?.exitCode;
  if (status === "error" && typeof exit === "number" && exit !== 0) {
    return `exit ${exit}`;
  }
  return {
    ok: "ok",
    error: "error",
    denied: "refused",
    interrupted: "interrupted",
    pending: "no result",
  }[status];
}

function durationOf(call: Call): string {
  const s = call.result?.structured;
  const ms = call.result?.durationMs ??
    (typeof s?.durationMs === "number" ? s.durationMs : null);
  return ms === null ? "" : formatMs(ms);
}

function commandOf(call: Call): string | null {
  const s = call.result?.structured;
  if (typeof s?.command === "string" && "exitCode" in s) return s.command;
  const input = call.input as Record<string, unknown> | null;
  if (/^(bash|shell|run_command)$/i.test(call.name)) {
    if (typeof input?.command === "string") return input.command;
  }
  return null;
}

function summaryOf(call: Call): string {
  const command = commandOf(call);
  if (command !== null) return command;
  const path = pathOf(call);
  const input = call.input as Record<string, unknown> | null;
  if (input && typeof input.pattern === "string") {
    return path ? `${input.pattern} in ${path}` : input.pattern;
  }
  if (path) return path;
  if (input && typeof input.subject === "string") return input.subject;
  if (input && input.taskId !== undefined) {
    return `#${String(input.taskId)}${
      typeof input.status === "string" ? ` → ${input.status}` : ""
    }`;
  }
  try {
    return JSON.stringify(call.input) ?? "";
  } catch {
    return "";
  }
}

function changeDiff(call: Call): string | null {
  const d = diffOf(call);
  if (d) return d;
  const input = call.input as Record<string, unknown> | null;
  // A new file: all of it is added.
  if (
    call.result?.structured?.type === "create" && !call.result.isError &&
    typeof input?.content === "string"
  ) return replacementDiff(pathOf(call) ?? "file", "", input.content);
  if (
    call.result && !call.result.isError && input &&
    typeof input.old_string === "string" &&
    typeof input.new_string === "string"
  ) {
    return replacementDiff(
      pathOf(call) ?? "file",
      input.old_string,
      input.new_string,
    );
  }
  return null;
}

function callBody(call: Call, diff: string | null): string {
  const parts: string[] = [];
  const r = call.result;
  const s = r?.structured;
  const command = commandOf(call);
  if (command !== null) {
    parts.push(
      `<div class="label">command</div><pre>${escapeHtml(command)}</pre>`,
    );
    const facts: string[] = [];
    if (typeof s?.exitCode === "number") facts.push(`exit code ${s.exitCode}`);
    if (typeof s?.signal === "string") facts.push(`signal ${s.signal}`);
    const time = durationOf(call);
    if (time) facts.push(time);
    if (s?.timedOut === true) facts.push("timed out");
    if (s?.cancelled === true) facts.push("cancelled");
    if (s?.sandboxed === true) facts.push("sandboxed");
    if (facts.length) {
      parts.push(`<div class="label">${escapeHtml(facts.join(" · "))}</div>`);
    }
    const output = typeof s?.output === "string" ? s.output : null;
    if (output !== null) {
      parts.push(`<div class="label">output</div>${foldedText(output)}`);
      if (typeof s?.fullPath === "string") {
        parts.push(
          `<div class="label">the whole output: ${code(s.fullPath)}</div>`,
        );
      }
    }
  }
  if (diff) parts.push(`<div class="label">diff</div>${renderDiff(diff)}`);
  if (command === null || !s || typeof s.output !== "string") {
    parts.push(
      diff && r
        ? ""
        : `<div class="label">${
          r ? (r.isError ? "error" : "result") : "no result was recorded"
        }</div>`,
    );
    // A diff says what the result's text says, and says it better.
    if (r && diff) parts.push(fold("result text", resultContent(r.content)));
    else if (r) parts.push(resultContent(r.content));
  }
  let input: string;
  try {
    input = JSON.stringify(call.input, null, 2) ?? "";
  } catch {
    input = String(call.input);
  }
  parts.push(fold("input", foldedText(input)));
  return parts.join("");
}

function resultContent(content: string | Block[]): string {
  if (typeof content === "string") return foldedText(content);
  return content.map((b) => {
    if (b.type === "text" && "text" in b) return foldedText(String(b.text));
    if (b.type === "image") {
      return `<p><code>[image]</code></p>`;
    }
    return `<p><code>[${escapeHtml(String(b.type))} block]</code></p>`;
  }).join("");
}

/** Characters of folded rests on the page so far. */
let folded = 0;

/**
 * Text in a `<pre>`; past the limits, the rest in a fold rendered when
 * opened (up to {@linkcode FOLDED_CHARS}, while the page's
 * {@linkcode FOLDED_BUDGET} lasts).
 */
function foldedText(text: string): string {
  if (text.length <= SHOWN_CHARS) {
    const lines = text.split("\n", SHOWN_LINES + 1);
    if (lines.length <= SHOWN_LINES) return `<pre>${escapeText(text)}</pre>`;
  }
  let cut = 0;
  for (let n = 0; n < SHOWN_LINES && cut !== -1; n++) {
    cut = text.indexOf("\n", cut + (n > 0 ? 1 : 0));
  }
  if (cut === -1 || cut > SHOWN_CHARS) cut = SHOWN_CHARS;
  const head = text.slice(0, cut);
  const rest = text.slice(cut);
  const restLines = rest.split("\n").length - (rest.startsWith("\n") ? 1 : 0);
  const summary = `${restLines} more lines (${rest.length} characters)`;
  if (folded + rest.length > FOLDED_BUDGET || rest.length > FOLDED_CHARS) {
    const room = Math.max(0, Math.min(FOLDED_CHARS, FOLDED_BUDGET - folded));
    folded += room;
    return `<pre>${escapeText(head)}</pre>${
      fold(
        summary,
        `<pre>${escapeText(rest.slice(0, room))}</pre><p class="notes">${
          rest.length - room
        } characters more are not on this page (it holds at most ${FOLDED_CHARS} of one output and ${FOLDED_BUDGET} in all); the transcript has them.</p>`,
      )
    }`;
  }
  folded += rest.length;
  return `<pre>${escapeText(head)}</pre>${
    fold(summary, `<pre>${escapeText(rest)}</pre>`)
  }`;
}

function fold(summary: string, html: string): string {
  return `<details class="more"><summary>${
    escapeHtml(summary)
  }</summary><template>${html}</template></details>`;
}

/** A count from the transcript as a number, whatever the line held. */
function count(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

function code(text: string): string {
  return `<code>${escapeHtml(text)}</code>`;
}

function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
