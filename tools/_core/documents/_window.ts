/**
 * Which units of a document a read takes: a 1-based `offset`/`limit` turned
 * into indices.
 *
 * @module
 */

/** The units a read takes, as 0-based indices `[start, end)`. */
export interface Window {
  start: number;
  end: number;
}

/**
 * The window of `range` over a document of `total` units; the whole
 * document when `range` is undefined. Guarantees `0 <= start`, `start <=
 * end <= max(total, start)`: a window past the end is empty, and its
 * `start + 1` is still the offset asked for.
 */
export function windowOf(
  total: number,
  range: { offset: number; limit: number } | undefined,
): Window {
  if (!range) return { start: 0, end: total };
  const start = Math.max(0, Math.floor(range.offset) - 1);
  const limit = Math.max(0, Math.floor(range.limit));
  return { start, end: Math.max(start, Math.min(total, start + limit)) };
}

/**
 * Whether the unit at 0-based `index` is in a window whose end is not known
 * yet (a streamed document): `range` undefined takes every unit.
 */
export function inRange(
  index: number,
  range: { offset: number; limit: number } | undefined,
): boolean {
  if (!range) return true;
  const start = Math.max(0, Math.floor(range.offset) - 1);
  return index >= start && index < start + Math.max(0, Math.floor(range.limit));
}
