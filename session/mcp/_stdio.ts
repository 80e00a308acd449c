/**
 * MCP's stdio transport to a server wave starts: the server runs as a child
 * process in a process group of its own (killed whole when the session
 * closes, through the session's {@linkcode ProcessGroups}), with the
 * environment commands get (the allow-list, never model API keys) plus its
 * entry's own `env`, and the marker a command carries, so what it leaves
 * behind is swept too. One JSON-RPC message a line each way.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { readLines } from "../line_reader.ts";
import { onPath } from "../_sandbox_plan.ts";
import { basename, dirname, resolve } from "../../tools/kernel/posix_path.ts";
import {
  COMMAND_MARKER,
  newCommandMarker,
  type ProcessGroups,
} from "../../tools/kernel/processes.ts";

/** The "worker" the MCP servers' process groups are recorded under: none runs them, the main thread does. */
const MCP_SERVERS = -1;

/** The longest line a server may write: 64 MiB (an image result is big). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** The most of a server's stderr kept, to say why it failed. */
const STDERR_KEPT = 4000;

/** What {@linkcode StdioServerTransport} starts. */
export interface StdioLaunch {
  /** The server's name, for its process group's owner and messages. */
  server: string;
  command: string;
  args: string[];
  /** The whole environment it gets. */
  env: Record<string, string>;
  cwd: string;
  processes: ProcessGroups;
}

/** util-linux's setpriv, found on the first start (null: not on PATH, then a killed wave leaves its servers running). */
let setpriv: string | null | undefined;

/**
 * A transport to a server it starts on {@linkcode start}. The server's
 * stderr is kept (its last 4000 characters, {@linkcode stderr}) to say
 * why it failed. {@linkcode close} kills the server's process group.
 */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #launch: StdioLaunch;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();
  #stderr = "";
  #closed = false;
  #exited: Promise<void> = Promise.resolve();
  #status: Deno.CommandStatus | undefined;
  #killed = false;

  /** A transport that starts the server `launch` describes. */
  constructor(launch: StdioLaunch) {
    this.#launch = launch;
  }

  /** The end of what the server wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /**
   * How the server process ended, once it ended by itself (not by
   * {@linkcode close}'s kill). A server that exited before a close killed
   * it (a zombie Deno had not reaped yet: the SDK closes a client whose
   * connect failed) exited by itself, and its status says so.
   */
  get status(): Deno.CommandStatus | undefined {
    return this.#killed && this.#status?.signal ? undefined : this.#status;
  }

  /** Resolves once the server process has exited. */
  get exited(): Promise<void> {
    return this.#exited;
  }

  /** Starts the server; rejects when it cannot be started (no such command). */
  start(): Promise<void> {
    const { server, command, args, env, cwd, processes } = this.#launch;
    const marker = newCommandMarker(processes.markerPrefix, `mcp-${server}`);
    let child: Deno.ChildProcess;
    // A server dies with wave, also when wave is killed and can clean up
    // nothing: setpriv gives it that parent-death signal. Deno spawns from
    // the main thread, which lives as long as wave (the signal follows the
    // thread that spawned).
    setpriv ??= onPath("setpriv", Deno.env.get("PATH") ?? "") ?? null;
    // Found first, so that a missing command still fails the start (setpriv
    // would start, and fail only when it runs it).
    const found = command.includes("/")
      ? onPath(basename(command), resolve(cwd, dirname(command)))
      : onPath(command, env.PATH ?? "");
    if (setpriv && !found) {
      return Promise.reject(
        new Error(`cannot start ${command}: no such command`),
      );
    }
    const [program, programArgs] = setpriv && found
      ? [setpriv, ["--pdeathsig", "KILL", "--", found, ...args]]
      : [command, args];
    try {
      child = new Deno.Command(program, {
        args: programArgs,
        cwd,
        env: { ...env, [COMMAND_MARKER]: marker },
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // Its own process group, which the session kills whole.
        detached: true,
      }).spawn();
    } catch (error) {
      return Promise.reject(
        new Error(
          error instanceof Deno.errors.NotFound
            ? `cannot start ${command}: no such command`
            : `cannot start ${command}: ${(error as Error).message}`,
        ),
      );
    }
    this.#child = child;
    processes.started(child.pid, `mcp:${server}`, MCP_SERVERS, marker);
    this.#writer = child.stdin.getWriter();
    this.#readStderr(child.stderr);
    const reading = this.#read(child.stdout);
    this.#exited = child.status.then(async (status) => {
      this.#status = status;
      processes.ended(child.pid, MCP_SERVERS);
      await reading;
      this.#finish();
    });
    return Promise.resolve();
  }

  async #read(stdout: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const item of readLines(stdout, MAX_LINE_BYTES)) {
        if ("error" in item) {
          this.onerror?.(new Error(`server ${item.message}`));
          continue;
        }
        let message: JSONRPCMessage;
        try {
          message = JSONRPCMessageSchema.parse(JSON.parse(item.text));
        } catch {
          // A server's stray output (a log line) is not a message.
          this.onerror?.(
            new Error(
              `line ${item.line} of the server's stdout is not a JSON-RPC message`,
            ),
          );
          continue;
        }
        this.onmessage?.(message);
      }
    } catch { /* the process is gone */ }
  }

  async #readStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stderr) {
        this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true }))
          .slice(-STDERR_KEPT);
      }
    } catch { /* the process is gone */ }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const writer = this.#writer;
    if (!writer || this.#closed) {
      return Promise.reject(new Error("the server's stdin is closed"));
    }
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    const sent = this.#writing.then(() => writer.write(bytes));
    this.#writing = sent.catch(() => {});
    return sent;
  }

  /** Kills the server's process group and waits for it to exit. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child && !this.#closed) {
      this.#closed = true;
      this.#killed = this.#status === undefined;
      this.#writer?.close().catch(() => {});
      this.#launch.processes.kill([child.pid]);
      await this.#exited;
    }
    this.#finish();
  }

  #finish(): void {
    const onclose = this.onclose;
    this.#closed = true;
    this.onclose = undefined;
    onclose?.();
  }
}
