/**
 * Waiting for an event instead of for a fixed time, and failing with a
 * message that says what was awaited and what was seen instead.
 *
 * @module
 */

/** How long a test waits for an event before it gives up, by default. */
export const WAIT_MS = 20_000;

/**
 * The bound a test holds an interrupt to. README ("The agent loop")
 * promises that `interrupt` ends a turn within a second; the bound is that
 * second plus 1.5 s of slack for a 2-core machine running the suite with
 * `--parallel` beside other work, where a test's own timers can stall (the
 * interrupts themselves took 5-60 ms there). A regression that waits for
 * the command (seconds to hours) still fails.
 */
export const INTERRUPT_WITHIN_MS = 2500;

/** How many of the last messages a timeout shows, and how much of each. */
const SHOWN_MESSAGES = 5;
const SHOWN_CHARS = 300;

/** `text` cut to `max` characters, saying how much was left out. */
export function cut(text: string, max = SHOWN_CHARS): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * The last 5 of `items` (strings as they are, anything else as JSON), each
 * cut to about 300 characters, one a line: enough to see where a run
 * stopped, never the whole backlog.
 */
export function lastItems(
  items: readonly unknown[],
  noun = "messages",
): string {
  if (items.length === 0) return `no ${noun} at all`;
  const shown = items.slice(-SHOWN_MESSAGES).map((item) =>
    `  ${cut(typeof item === "string" ? item : JSON.stringify(item))}`
  );
  return `the last ${shown.length} of ${items.length} ${noun}:\n${
    shown.join("\n")
  }`;
}

/** What a predicate is, for a timeout message: its source, on one line. */
export function describePredicate(fn: (...args: never[]) => unknown): string {
  return cut(fn.toString().replace(/\s+/g, " "), 200);
}

/** Options of {@linkcode waitUntil}. */
export interface WaitUntilOptions {
  /** Give up after this long (default {@linkcode WAIT_MS}). */
  timeoutMs?: number;
  /** How often to look (default 10 ms). */
  intervalMs?: number;
  /** More to say on timeout: what was seen instead. */
  detail?: () => string;
}

/**
 * Polls `check` until it returns something other than `undefined`, `null`
 * or `false`, and returns that. On timeout it throws an error that starts
 * `timed out after N ms waiting for <what>`, followed by `detail()`.
 */
export async function waitUntil<T>(
  check: () => T | undefined | null | false,
  what: string,
  options: WaitUntilOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? WAIT_MS;
  const end = performance.now() + timeoutMs;
  while (true) {
    const value = check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (performance.now() >= end) {
      const detail = options.detail?.();
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${
          detail ? `\n${detail}` : ""
        }`,
      );
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 10));
  }
}

/**
 * `promise`, or an error saying `what` did not finish within `ms`: a guard
 * for calls that must not hang (the test fails instead of waiting for an
 * hour-long sleep), not an assertion of speed.
 */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        timer = setTimeout(
          () => reject(new Error(`${what} did not finish within ${ms} ms`)),
          ms,
        )
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
