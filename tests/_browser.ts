/**
 * A real browser for the report tests: Debian's `chromium`, headless,
 * driven by playwright-core (no browser download; one npm package with no
 * dependencies, so a cold Deno cache stays small: Deno installs every
 * package of deno.lock on first use). Every request a page makes other than
 * for the page's own file is refused and recorded, and so is every console
 * error and page error.
 *
 * @module
 */

import { type Browser, chromium, type Page } from "playwright-core";

export type { Browser, Page };

/** Where the system's Chromium is, or why there is none. */
export function findChromium(): { path: string } | { skip: string } {
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    try {
      if (Deno.statSync(path).isFile) return { path };
    } catch { /* not here */ }
  }
  return {
    skip:
      "no chromium: install Debian's chromium (apt-get install chromium; .ci/run does) to run the report's browser tests",
  };
}

/** A page opened on a report, and what it did that it must not. */
export interface OpenedPage {
  page: Page;
  /** URLs the page asked for besides its own file (all refused). */
  requests: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  /** Milliseconds from navigation to the load event. */
  loadMs: number;
}

/** A headless Chromium for the duration of `fn`. */
export async function withBrowser(
  executablePath: string,
  fn: (browser: Browser) => Promise<void>,
): Promise<void> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    // Root in a container has no user namespace sandbox to give Chromium.
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    await fn(browser);
  } finally {
    await browser.close();
  }
}

/** Opens the HTML file `file` in a new page, with every other request refused. */
export async function openReport(
  browser: Browser,
  file: string,
): Promise<OpenedPage> {
  const page = await browser.newPage({
    viewport: { width: 1100, height: 900 },
  });
  const url = `file://${file}`;
  const requests: string[] = [];
  const errors: string[] = [];
  await page.route("**/*", (route) => {
    if (route.request().url() === url) return route.continue();
    requests.push(route.request().url());
    return route.abort();
  });
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  const started = performance.now();
  await page.goto(url, { waitUntil: "load", timeout: 120_000 });
  const loadMs = performance.now() - started;
  return { page, requests, errors, loadMs };
}

/** Whether the element `selector` is shown (a closed fold's body is not). */
export function isShown(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).isVisible();
}

/**
 * The value of `expression`, evaluated in the page (a string: the tests
 * are type-checked without the DOM's types).
 */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/**
 * Waits until `expression` is true in the page, polling (a string
 * predicate through the page's own `eval` would be refused by the page's
 * Content-Security-Policy; evaluation from outside is not).
 */
export async function waitInPage(
  page: Page,
  expression: string,
  timeoutMs = 20_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await inPage<boolean>(page, `!!(${expression})`))) {
    if (Date.now() > until) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${expression}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
