/**
 * Spans of lines around given line numbers, for reads that show a file's
 * lines near some places (spec 004 read_files `around`): each line with
 * `context` lines on each side, overlapping or touching spans merged.
 *
 * @module
 */

/** Lines `start` to `end` of a file, 1-based, both included. */
export interface LineSpan {
  start: number;
  end: number;
}

/**
 * The spans around `lines` (1-based) in a file of `total` lines: each line
 * with `context` lines before and after, clipped to the file, sorted, and
 * merged where they overlap or touch (so no line is shown twice and no gap
 * is zero lines long). Lines past the end are the caller's to refuse.
 *
 * @example
 * ```ts
 * import { aroundSpans } from "./line_spans.ts";
 * const spans = aroundSpans([10, 12, 40], 2, 100);
 * console.assert(JSON.stringify(spans) === '[{"start":8,"end":14},{"start":38,"end":42}]');
 * ```
 */
export function aroundSpans(
  lines: readonly number[],
  context: number,
  total: number,
): LineSpan[] {
  const spans = [...new Set(lines)].sort((a, b) => a - b).map((line) => ({
    start: Math.max(1, line - context),
    end: Math.min(total, line + context),
  }));
  const merged: LineSpan[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.start <= last.end + 1) {
      last.end = Math.max(last.end, span.end);
    } else merged.push({ ...span });
  }
  return merged;
}
