/**
 * The shapes the document readers share with their front door (`mod.ts`).
 *
 * @module
 */

/** A 1-based window of units: `offset` is the first unit, `limit` how many. */
export interface DocumentRange {
  offset: number;
  limit: number;
}

/** What a reader returns: the unit count, the number of `parts[0]`, and the units read. */
export interface PagedText {
  total: number;
  first: number;
  parts: string[];
}
