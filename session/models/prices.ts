/**
 * List prices of the models wave knows, for the estimated cost a Claude
 * Code parent reads in `result` (`total_cost_usd`, `modelUsage`) and that
 * `--max-budget-usd` stops at. An estimate from list prices, never a bill;
 * a model not in the table costs 0.
 *
 * @module
 */

import type { Usage } from "../messages.ts";

/** US dollars per million tokens. */
interface Price {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/** By model name prefix, longest first where they overlap. */
const OPUS = { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 };
const SONNET = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const HAIKU = { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 };
const PRICES: readonly [prefix: string, price: Price][] = [
  ["claude-opus-4-0", {
    input: 15,
    output: 75,
    cacheWrite: 18.75,
    cacheRead: 1.5,
  }],
  ["claude-opus-4-1", {
    input: 15,
    output: 75,
    cacheWrite: 18.75,
    cacheRead: 1.5,
  }],
  ["claude-opus-", OPUS],
  ["claude-sonnet-", SONNET],
  ["claude-3-7-sonnet", SONNET],
  ["claude-haiku-", HAIKU],
  ["claude-3-5-haiku", {
    input: 0.8,
    output: 4,
    cacheWrite: 1,
    cacheRead: 0.08,
  }],
  ["gpt-4o-mini", {
    input: 0.15,
    output: 0.6,
    cacheWrite: 0,
    cacheRead: 0.075,
  }],
  ["gpt-4o", { input: 2.5, output: 10, cacheWrite: 0, cacheRead: 1.25 }],
  ["gpt-4.1-mini", { input: 0.4, output: 1.6, cacheWrite: 0, cacheRead: 0.1 }],
  ["gpt-4.1", { input: 2, output: 8, cacheWrite: 0, cacheRead: 0.5 }],
];

/** The estimated cost in USD of `usage` on `model` (a bare name, or `provider:name`); 0 for a model not in the table. */
export function costOf(model: string, usage: Usage): number {
  const name = model.slice(model.indexOf(":") + 1);
  const price = PRICES.find(([prefix]) => name.startsWith(prefix))?.[1];
  if (!price) return 0;
  return (usage.input_tokens * price.input +
    usage.output_tokens * price.output +
    (usage.cache_creation_input_tokens ?? 0) * price.cacheWrite +
    (usage.cache_read_input_tokens ?? 0) * price.cacheRead) / 1_000_000;
}
