/**
 * Test harness: spawns the real CLI with the flags the binary bakes in and
 * speaks docs/protocol.md to it. Every stdout line is checked to be a JSON
 * object with a `session_id`, and a declared outbound message
 * (session/outbound.ts), as it arrives.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { waveArgs } from "../scripts/flags.ts";
import { checkOutboundLine } from "../session/outbound.ts";
import { describePredicate, lastItems, WAIT_MS, within } from "./_waiting.ts";
import { tempDir } from "./_temp.ts";

/** The project's root directory. */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url));
/** The CLI's entry. */
export const CLI: string = `${ROOT}cli.ts`;
/** Test-only tool modules. */
export const FIXTURE_TOOLS: string = `${ROOT}tests/fixtures/tools`;

/** How much of stderr a failed wait shows (its end). */
const STDERR_SHOWN = 1500;

/** Options of {@linkcode WaveProcess.waitFor}. */
export interface WaitOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** What is awaited, for the timeout message (default: the predicate's source). */
  what?: string;
}

interface Waiter {
  match(m: Message): boolean;
  resolve(m: Message): void;
  fail(why: string): void;
}

/** A protocol message as wave writes it. */
// deno-lint-ignore no-explicit-any
export type Message = Record<string, any>;

/** Options of {@linkcode startWave}. */
export interface StartOptions {
  /** Extra CLI flags (`--workspace` is added from `workspace`). */
  args?: string[];
  /** The workspace (default: a new temp dir). */
  workspace?: string;
  /** WAVE_HOME (default: a new temp dir). */
  waveHome?: string;
  /** Extra environment. */
  env?: Record<string, string>;
  /** Test-only tool modules by file name in tests/fixtures/tools. */
  fixtureTools?: string[];
  /** A program and its arguments that start wave's command and stay alive above it (`sh -c '"$@"; exit' sh`). */
  launcher?: string[];
}

/** A running wave and a protocol client for it. */
export class WaveProcess {
  readonly child: Deno.ChildProcess;
  readonly workspace: string;
  readonly waveHome: string;
  /** Every message received, in order. */
  readonly messages: Message[] = [];
  /** Every raw stdout line, in order. */
  readonly lines: string[] = [];
  stderr = "";
  #waiters: Waiter[] = [];
  #stdoutEnded = false;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void>;
  #stderrReading: Promise<void>;
  #nextId = 1;
  #encoder = new TextEncoder();
  #stdinClosed = false;

  constructor(child: Deno.ChildProcess, workspace: string, waveHome: string) {
    this.child = child;
    this.workspace = workspace;
    this.waveHome = waveHome;
    this.#writer = child.stdin.getWriter();
    this.#reading = this.#read();
    this.#stderrReading = (async () => {
      for await (
        const chunk of child.stderr.pipeThrough(new TextDecoderStream())
      ) this.stderr += chunk;
    })();
  }

  async #read(): Promise<void> {
    let why = "wave's stdout ended";
    try {
      await this.#readLines();
    } catch (error) {
      why = `reading wave's stdout failed (${(error as Error).message})`;
      throw error;
    } finally {
      // Nothing more can come: a waiter still waiting would wait in vain.
      // Its stderr may say why, so let that end too (briefly) first.
      this.#stdoutEnded = true;
      if (this.#waiters.length > 0) {
        await within(this.#stderrReading, 1000, "stderr").catch(() => {});
      }
      for (const waiter of this.#waiters) waiter.fail(why);
    }
  }

  async #readLines(): Promise<void> {
    let buffer = "";
    for await (
      const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())
    ) {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.lines.push(line);
        let message: Message;
        try {
          message = JSON.parse(line);
        } catch {
          throw new Error(`stdout line is not JSON: ${line.slice(0, 200)}`);
        }
        if (typeof message !== "object" || !message.session_id) {
          throw new Error(
            `stdout line lacks session_id: ${line.slice(0, 200)}`,
          );
        }
        const undeclared = checkOutboundLine(line);
        if (undeclared) {
          // Thrown where the test cannot catch it: the test fails.
          queueMicrotask(() => {
            throw new Error(`undeclared line (${undeclared}): ${line}`);
          });
        }
        this.messages.push(message);
        this.#waiters = this.#waiters.filter((w) => {
          if (!w.match(message)) return true;
          w.resolve(message);
          return false;
        });
      }
    }
    if (buffer !== "") throw new Error(`unterminated stdout line: ${buffer}`);
  }

  /** Writes a file in the workspace (parents created); returns its path. */
  put(path: string, content: string | Uint8Array): string {
    const full = `${this.workspace}/${path}`;
    Deno.mkdirSync(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") Deno.writeTextFileSync(full, content);
    else Deno.writeFileSync(full, content);
    return full;
  }

  /** Writes raw bytes to stdin. */
  async writeRaw(data: string | Uint8Array): Promise<void> {
    await this.#writer.write(
      typeof data === "string" ? this.#encoder.encode(data) : data,
    );
  }

  /** Writes one message as a JSON line. */
  send(message: unknown): Promise<void> {
    return this.writeRaw(JSON.stringify(message) + "\n");
  }

  /**
   * The first message (already received or still to come) matching
   * `match`. It fails when `timeoutMs` (default 20 s) passes or wave's
   * stdout ends first, with an error naming what was awaited (`what`, or
   * the predicate's source) and showing the last 5 messages, each cut to
   * about 300 characters, and the end of stderr.
   */
  waitFor(
    match: (m: Message) => boolean,
    options: number | WaitOptions = {},
  ): Promise<Message> {
    const { timeoutMs = WAIT_MS, what = describePredicate(match) } =
      typeof options === "number" ? { timeoutMs: options } : options;
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        fail: (why) => {
          clearTimeout(timer);
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          reject(new Error(`${why} waiting for ${what}\n${this.#seen()}`));
        },
      };
      const timer = setTimeout(
        () => waiter.fail(`timed out after ${timeoutMs} ms`),
        timeoutMs,
      );
      if (this.#stdoutEnded) waiter.fail("wave's stdout had ended");
      else this.#waiters.push(waiter);
    });
  }

  /** The last few messages and the end of stderr, for a failure message. */
  #seen(): string {
    const stderr = this.stderr.length > STDERR_SHOWN
      ? `…${this.stderr.slice(-STDERR_SHOWN)}`
      : this.stderr;
    return `${lastItems(this.lines, "stdout lines")}\nstderr: ${
      stderr === "" ? "(empty)" : `\n${stderr}`
    }`;
  }

  /**
   * Sends a control request and returns its `control_response`'s
   * `response`, waiting `timeoutMs` (default 20 s) for it.
   */
  async request(
    request: Record<string, unknown>,
    requestId = `t${this.#nextId++}`,
    timeoutMs?: number,
  ): Promise<Message> {
    await this.send({
      type: "control_request",
      request_id: requestId,
      request,
    });
    const answer = await this.waitFor(
      (m) =>
        m.type === "control_response" && m.response?.request_id === requestId,
      {
        timeoutMs,
        what: `the control_response to ${request.subtype} ${requestId}`,
      },
    );
    return answer.response;
  }

  /**
   * Calls a tool; returns the `call_tool` answer's inner `response` (or
   * throws on a protocol error). `timeoutMs` (default 20 s) is how long to
   * wait for the answer: more for a call whose work is large.
   */
  /**
   * Sends a `call_tool` request and does not wait for its answer: for a
   * call the test interrupts, approves, or answers later.
   */
  sendCall(
    requestId: string | number,
    toolName: string,
    input: Record<string, unknown>,
  ): Promise<void> {
    return this.send({
      type: "control_request",
      request_id: requestId,
      request: { subtype: "call_tool", tool_name: toolName, input },
    });
  }

  async callTool(
    toolName: string,
    input: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<Message> {
    const response = await this.request(
      { subtype: "call_tool", tool_name: toolName, input },
      undefined,
      timeoutMs,
    );
    if (response.subtype !== "success") {
      throw new Error(`call_tool ${toolName} failed: ${response.error}`);
    }
    return response.response;
  }

  /** Closes stdin. */
  async closeStdin(): Promise<void> {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    await this.#writer.close().catch(() => {});
  }

  /** Closes stdin and waits for the exit; returns the status. */
  async finish(): Promise<Deno.CommandStatus> {
    await this.closeStdin();
    return await this.wait();
  }

  /** Waits for the process and its streams to end. */
  async wait(): Promise<Deno.CommandStatus> {
    const status = await this.child.status;
    await this.#reading;
    await this.#stderrReading;
    return status;
  }

  /** Kills the process if it is still running, and waits. */
  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.closeStdin();
    await this.wait().catch(() => {});
  }
}

/** The command line that runs the CLI with the binary's flags. */
export const waveCommand: (args: string[]) => string[] = waveArgs;

/** Runs `fn` against a wave started with `options`, and stops it afterwards. */
export async function withWave(
  options: StartOptions,
  fn: (wave: WaveProcess) => Promise<void>,
): Promise<void> {
  const wave = await startWave(options);
  try {
    await fn(wave);
  } finally {
    await wave.kill();
  }
}

/**
 * The Deno cache the tests run with. A test that gives wave another HOME
 * passes it on, so wave does not fetch every npm package of deno.lock
 * into a fresh cache under that HOME first (slow, and not what it tests).
 */
export const DENO_DIR: string = Deno.env.get("DENO_DIR") ??
  `${
    Deno.env.get("XDG_CACHE_HOME") ??
      `${Deno.env.get("HOME") ?? "/root"}/.cache`
  }/deno`;

/** Starts wave and waits for `system/init`. */

export async function startWave(
  options: StartOptions = {},
): Promise<WaveProcess> {
  const workspace = options.workspace ??
    await tempDir({ prefix: "wave-ws-" });
  const waveHome = options.waveHome ??
    await tempDir({ prefix: "wave-home-" });
  const args = ["--workspace", workspace, ...(options.args ?? [])];
  for (const tool of options.fixtureTools ?? []) {
    args.push("--tool-module", `${FIXTURE_TOOLS}/${tool}`);
  }
  const [program, ...before] = options.launcher ?? [Deno.execPath()];
  const child = new Deno.Command(program, {
    args: [
      ...before,
      ...options.launcher ? [Deno.execPath()] : [],
      ...waveCommand(args),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: {
      WAVE_HOME: waveHome,
      NO_COLOR: "1",
      ...options.env?.HOME ? { DENO_DIR } : {},
      ...options.env,
    },
  }).spawn();
  const wave = new WaveProcess(child, workspace, waveHome);
  await wave.waitFor((m) => m.type === "system" && m.subtype === "init", {
    what: "system/init",
  });
  return wave;
}

/** Runs the CLI to completion with `stdin` and returns its output. */
export async function runWave(
  args: string[],
  stdin = "",
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: waveCommand(args),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}
