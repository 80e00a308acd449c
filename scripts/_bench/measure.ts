/**
 * Measuring helpers for the bench: timing, medians, spawning wave, and the
 * report table.
 *
 * @module
 */

import {
  PERMISSION_FLAGS,
  UNSTABLE_FLAGS,
  V8_FLAGS,
  waveArgs,
} from "../flags.ts";

/** One line of the report. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The target, as text ("≤ 1.5"), when the issue sets one. */
  target?: string;
  /** Whether the figure meets its target. */
  ok?: boolean;
  detail?: string;
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Milliseconds `fn` takes. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * The arguments that run an empty Deno script (it prints one line) with
 * the flags wave runs with: the baseline of start-up figures. The script
 * is written into `dir`.
 */
export async function emptyScriptArgs(dir: string): Promise<string[]> {
  const empty = `${dir}/empty.ts`;
  await Deno.writeTextFile(empty, 'console.log("{}");\n');
  return scriptArgs(empty);
}

/** The arguments that run `script` with the flags wave runs with. */
export function scriptArgs(script: string): string[] {
  return [
    "run",
    "--quiet",
    ...PERMISSION_FLAGS,
    ...UNSTABLE_FLAGS,
    ...V8_FLAGS,
    script,
  ];
}

/**
 * Milliseconds until a spawned command prints its first line; `input` is
 * written to its stdin at once (a request to answer). It is then ended:
 * its stdin closed, or with `kill` (a server that outlives its stdin, as
 * many MCP servers do) killed.
 */
export async function timeToFirstLine(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  kill = false,
): Promise<number> {
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env,
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    writer.releaseLock();
  }
  const reader = child.stdout.getReader();
  let elapsed = NaN;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    if (value.includes(10)) {
      elapsed = performance.now() - start;
      break;
    }
  }
  reader.releaseLock();
  if (kill) child.kill("SIGKILL");
  await child.stdin.close().catch(() => {});
  await child.stdout.cancel().catch(() => {});
  await child.status;
  return elapsed;
}

/**
 * The arguments that run a bare Deno script with the flags wave runs
 * with, which speaks wave's lines without doing any work: it writes a
 * `system/init` line, then answers each `control_request` at once with a
 * `call_tool`-shaped answer holding `content` (a {@linkcode BenchWave}
 * drives it as it drives wave). The floor of a call's round trip through
 * the parent, the pipes and a Deno process. The script is written into
 * `dir`.
 */
export async function echoScriptArgs(
  dir: string,
  content: string,
): Promise<string[]> {
  const script = `${dir}/echo.ts`;
  await Deno.writeTextFile(
    script,
    `const content = ${JSON.stringify(content)};
const encoder = new TextEncoder();
async function writeLine(message: unknown) {
  const bytes = encoder.encode(JSON.stringify(message) + "\\n");
  for (let at = 0; at < bytes.length;) {
    at += await Deno.stdout.write(bytes.subarray(at));
  }
}
await writeLine({ type: "system", subtype: "init" });
let buffer = "";
for await (
  const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())
) {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) !== -1) {
    const { request_id } = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    await writeLine({
      type: "control_response",
      response: {
        subtype: "success",
        request_id,
        response: { tool_use_id: "t", content, is_error: false, structured: null },
      },
    });
  }
}
`,
  );
  return scriptArgs(script);
}

/** A running wave for the bench: send lines, await answers by request id. */
export class BenchWave {
  readonly child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #waiters = new Map<string, (m: Record<string, unknown>) => void>();
  #reading: Promise<void>;
  #onLine: (m: Record<string, unknown>) => void = () => {};
  #initSeen: Promise<void>;

  /**
   * Spawns wave with `args`, or, given `denoArgs`, another program that
   * speaks the same lines (`deno <denoArgs>`): a baseline driven by the
   * very same parent code.
   */
  constructor(
    args: string[],
    env: Record<string, string>,
    denoArgs?: string[],
  ) {
    const child = new Deno.Command(Deno.execPath(), {
      args: denoArgs ?? waveArgs(args),
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
      env,
    }).spawn();
    this.child = child;
    this.#writer = child.stdin.getWriter();
    let initSeen!: () => void;
    this.#initSeen = new Promise((r) => initSeen = r);
    this.#reading = (async () => {
      let buffer = "";
      for await (
        const chunk of child.stdout.pipeThrough(new TextDecoderStream())
      ) {
        buffer += chunk;
        let nl;
        while ((nl = buffer.indexOf("\n")) !== -1) {
          const message = JSON.parse(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          if (message.subtype === "init") initSeen();
          this.#onLine(message);
          const id = message.response?.request_id;
          const waiter = id !== undefined ? this.#waiters.get(id) : undefined;
          if (waiter) {
            this.#waiters.delete(id);
            waiter(message.response);
          }
        }
      }
    })();
  }

  /** Resolves once `system/init` has arrived. */
  ready(): Promise<void> {
    return this.#initSeen;
  }

  /** Calls for every message. */
  onMessage(fn: (m: Record<string, unknown>) => void): void {
    this.#onLine = fn;
  }

  /** Writes raw text to stdin. */
  async write(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(text));
  }

  /** Sends a request and waits for its answer. */
  request(
    requestId: string,
    request: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const answer = new Promise<Record<string, unknown>>((resolve) =>
      this.#waiters.set(requestId, resolve)
    );
    this.write(
      JSON.stringify({
        type: "control_request",
        request_id: requestId,
        request,
      }) + "\n",
    );
    return answer;
  }

  /** Promises for answers to requests sent by {@linkcode write}. */
  answerOf(requestId: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.#waiters.set(requestId, resolve));
  }

  /** Closes stdin and waits for the exit. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.child.status;
    await this.#reading.catch(() => {});
  }
}

/** Prints figures as a table. */
export function report(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.name,
    `${f.value.toFixed(f.value >= 100 ? 0 : 2)} ${f.unit}`,
    f.target ?? "",
    f.ok === undefined ? "" : f.ok ? "ok" : "MISSED",
    f.detail ?? "",
  ]);
  const widths = [0, 1, 2, 3].map((i) =>
    Math.max(...rows.map((r) => r[i].length), 4)
  );
  return rows.map((r) =>
    r.slice(0, 4).map((c, i) => c.padEnd(widths[i])).join("  ") +
    (r[4] ? `  ${r[4]}` : "")
  ).join("\n");
}

/**
 * Milliseconds to read `from` whole and write it to `to` (created or
 * truncated), and with `sync` to fsync it too: the plain baseline of a
 * file write.
 */
export function copyTime(
  from: string,
  to: string,
  sync: boolean,
): Promise<number> {
  return time(async () => {
    const bytes = await Deno.readFile(from);
    using file = await Deno.open(to, {
      write: true,
      create: true,
      truncate: true,
    });
    for (let at = 0; at < bytes.length;) {
      at += await file.write(bytes.subarray(at));
    }
    if (sync) await file.sync();
  });
}

/**
 * Runs `a` and `b` alternately `runs` times, with `settle` (untimed) after
 * each; returns their medians.
 */
export async function paired(
  runs: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
  settle: () => Promise<void> = () => Promise.resolve(),
): Promise<[number, number]> {
  await a();
  await settle();
  await b();
  await settle();
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    as.push(await a());
    await settle();
    bs.push(await b());
    await settle();
  }
  return [median(as), median(bs)];
}

/** A ratio figure against its target. */
export function ratio(
  name: string,
  ours: number,
  base: number,
  target: number,
  what: string,
): Figure {
  const value = ours / base;
  return {
    name,
    value,
    unit: "×",
    target: `≤ ${target}`,
    ok: value <= target,
    detail: `${ms(ours)} vs ${ms(base)}${what ? ` ${what}` : ""}`,
  };
}

/** Milliseconds as a figure's detail shows them: two decimals below 10 ms. */
function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}
