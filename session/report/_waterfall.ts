/**
 * The session's time as an inline SVG waterfall: one row per model turn
 * (consecutive turns share a row when there are many), the model's request
 * then the tools it called, on the session's clock.
 *
 * @module
 */

import type { TurnTime } from "./_analysis.ts";
import { escapeHtml } from "./_escape.ts";

/** The most rows drawn; more turns share rows. */
const MAX_ROWS = 120;
const WIDTH = 960;
const LABEL = 90;
const ROW = 14;

/** Milliseconds as a person reads them: `840 ms`, `3.2 s`, `4 min 05 s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

/** The chart, or a sentence when there is no model turn to draw. */
export function waterfall(turns: TurnTime[]): string {
  if (turns.length === 0) {
    return "<p>No model turns were recorded.</p>";
  }
  const per = Math.ceil(turns.length / MAX_ROWS);
  const rows: { label: string; start: number; model: number; tool: number }[] =
    [];
  for (let i = 0; i < turns.length; i += per) {
    const group = turns.slice(i, i + per);
    const last = group[group.length - 1];
    rows.push({
      label: group.length === 1
        ? `turn ${group[0].turn}`
        : `turns ${group[0].turn}–${last.turn}`,
      start: group[0].modelStart,
      model: group.reduce((sum, t) => sum + t.modelMs, 0),
      tool: group.reduce((sum, t) => sum + t.toolMs, 0),
    });
  }
  const span = Math.max(
    1,
    ...rows.map((r) => r.start + r.model + r.tool),
  );
  const scale = (WIDTH - LABEL - 10) / span;
  const height = rows.length * ROW + 24;
  const parts: string[] = [];
  for (let tick = 0; tick <= 4; tick++) {
    const x = LABEL + (WIDTH - LABEL - 10) * tick / 4;
    parts.push(
      `<line class="grid" x1="${x.toFixed(1)}" y1="0" x2="${
        x.toFixed(1)
      }" y2="${height - 18}"/>`,
      `<text x="${x.toFixed(1)}" y="${height - 4}" text-anchor="${
        tick === 0 ? "start" : tick === 4 ? "end" : "middle"
      }">${escapeHtml(formatMs(span * tick / 4))}</text>`,
    );
  }
  rows.forEach((row, i) => {
    const y = i * ROW + 2;
    const x = LABEL + row.start * scale;
    const wm = Math.max(1, row.model * scale);
    const wt = row.tool > 0 ? Math.max(1, row.tool * scale) : 0;
    parts.push(
      `<text x="0" y="${y + 10}">${escapeHtml(row.label)}</text>`,
      `<rect class="model" x="${x.toFixed(1)}" y="${y}" width="${
        wm.toFixed(1)
      }" height="${ROW - 4}"><title>${
        escapeHtml(`${row.label}: model ${formatMs(row.model)}`)
      }</title></rect>`,
    );
    if (wt > 0) {
      parts.push(
        `<rect class="tool" x="${(x + wm).toFixed(1)}" y="${y}" width="${
          wt.toFixed(1)
        }" height="${ROW - 4}"><title>${
          escapeHtml(`${row.label}: tools ${formatMs(row.tool)}`)
        }</title></rect>`,
      );
    }
  });
  const model = turns.reduce((s, t) => s + t.modelMs, 0);
  const tool = turns.reduce((s, t) => s + t.toolMs, 0);
  return `<p class="legend"><span class="lm">model ${
    escapeHtml(formatMs(model))
  }</span><span class="lt">tools ${escapeHtml(formatMs(tool))}</span>${
    per > 1 ? ` (${per} turns a row)` : ""
  }</p><svg class="waterfall" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="model and tool time per turn">${
    parts.join("")
  }</svg>`;
}
