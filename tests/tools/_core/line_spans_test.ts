/** Spans around line numbers (spec 004 read_files `around`). */
import assert from "node:assert/strict";
import { aroundSpans } from "../../../tools/_core/line_spans.ts";

Deno.test("004 read_files around: each line gets context lines on each side, clipped to the file", () => {
  assert.deepEqual(aroundSpans([50], 20, 100), [{ start: 30, end: 70 }]);
  assert.deepEqual(aroundSpans([3], 20, 10), [{ start: 1, end: 10 }]);
  assert.deepEqual(aroundSpans([7], 0, 10), [{ start: 7, end: 7 }]);
});

Deno.test("004 read_files around: overlapping (and touching) windows merge; the rest stay apart, in order", () => {
  assert.deepEqual(aroundSpans([40, 10, 12], 2, 100), [
    { start: 8, end: 14 },
    { start: 38, end: 42 },
  ]);
  // 1-3 and 4-6 touch: one span, no empty gap between them.
  assert.deepEqual(aroundSpans([2, 5], 1, 100), [{ start: 1, end: 6 }]);
  assert.deepEqual(aroundSpans([2, 6], 1, 100), [
    { start: 1, end: 3 },
    { start: 5, end: 7 },
  ]);
  assert.deepEqual(aroundSpans([5, 5], 0, 9), [{ start: 5, end: 5 }]);
});
