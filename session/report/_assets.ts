/**
 * The page's own style and script, inline. The Content-Security-Policy
 * allows exactly these two by their SHA-256, so nothing a transcript
 * smuggles in (a `<script>`, an `onerror`, a `style`) could run even if
 * escaping missed it.
 *
 * @module
 */

/**
 * The one script: a fold's body sits in a `<template>` (parsed, inert, not
 * laid out) until the fold first opens, so a page of thousands of calls
 * lays out only what a reader opens.
 */
export const SCRIPT = `"use strict";
document.addEventListener("toggle", (event) => {
  const fold = event.target;
  if (!(fold instanceof HTMLDetailsElement) || !fold.open) return;
  for (const child of fold.children) {
    if (child.tagName === "TEMPLATE") {
      child.replaceWith(child.content);
      break;
    }
  }
}, true);
for (const button of document.querySelectorAll("button[data-folds]")) {
  button.addEventListener("click", () => {
    const open = button.dataset.folds === "open";
    for (const fold of document.querySelectorAll("#timeline details.call")) {
      fold.open = open;
    }
  });
}
`;

/** The page's style. */
export const STYLE = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #fff;
  --soft: #f6f8fa; --ok: #1a7f37; --err: #cf222e; --warn: #9a6700;
  --model: #4c6ef5; --tool: #f59f00; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
code, pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--soft); padding: 8px 10px; border-radius: 6px; overflow-x: auto;
  white-space: pre-wrap; word-break: break-word; margin: 6px 0; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 12px 0; }
dl.header dt { color: var(--muted); }
dl.header dd { margin: 0; word-break: break-all; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px;
  border: 1px solid currentColor; white-space: nowrap; }
.badge.ok, td.ok { color: var(--ok); }
.badge.error, .badge.denied, td.error, td.denied, td.interrupted { color: var(--err); }
.badge.interrupted, .badge.pending, td.pending { color: var(--warn); }
.notes { border-left: 4px solid var(--warn); background: #fff8c5; padding: 8px 12px; margin: 12px 0; }
.item { margin: 10px 0; }
.prompt { border-left: 4px solid var(--model); background: #eef2ff; padding: 6px 12px; border-radius: 4px; }
.prompt.meta { border-left-color: var(--line); background: var(--soft); color: var(--muted); }
.who { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.text { padding: 2px 12px; }
.text p { margin: 6px 0; }
details.call { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details.call.error, details.call.denied { border-color: #ffcecb; }
details.call > summary { cursor: pointer; padding: 4px 10px; display: flex; gap: 10px; align-items: baseline; }
details.call > summary .tool { font-weight: 600; }
details.call > summary .what { color: var(--muted); overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; flex: 1; font-family: ui-monospace, monospace; font-size: 12.5px; }
details.call > summary .time { color: var(--muted); font-size: 12px; }
details.call > .body { padding: 0 12px 8px; }
details.more > summary { cursor: pointer; color: var(--model); font-size: 12.5px; }
.label { font-size: 12px; color: var(--muted); margin-top: 8px; }
.turn-end { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; background: var(--soft); }
.marker { color: var(--muted); font-size: 12.5px; text-align: center; margin: 16px 0; }
pre.diff { padding: 0; }
pre.diff > span { display: block; padding: 0 10px; }
pre.diff .add { background: #dafbe1; } pre.diff .del { background: #ffebe9; }
pre.diff .hunk { background: #ddf4ff; color: var(--muted); }
pre.diff .file { font-weight: 600; background: #eaeef2; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { text-align: left; padding: 2px 12px 2px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.plus { color: var(--ok); } .minus { color: var(--err); }
.tasks td.status { white-space: nowrap; }
svg.waterfall { max-width: 100%; height: auto; display: block; }
svg .model { fill: var(--model); } svg .tool { fill: var(--tool); }
svg text { font: 11px system-ui, sans-serif; fill: var(--muted); }
svg .grid { stroke: var(--line); }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
.legend .lm::before { background: var(--model); } .legend .lt::before { background: var(--tool); }
.controls { float: right; } .controls button { font: inherit; font-size: 12px; }
`;
