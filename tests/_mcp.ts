/**
 * Test harness for `wave mcp`: the official MCP client SDK as the parent,
 * spawning the real CLI over stdio, or talking streamable HTTP to one
 * started with `--listen 127.0.0.1:0`.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { waveArgs } from "../scripts/flags.ts";
import { waitUntil } from "./_waiting.ts";
import { DENO_DIR } from "./_wave.ts";
import { tempDir } from "./_temp.ts";

export { Client };

/** Options of {@linkcode startMcp} and {@linkcode startMcpHttp}. */
export interface McpOptions {
  /** Extra flags after `wave mcp --workspace WS`. */
  args?: string[];
  /** What the client says it supports (elicitation, …). */
  capabilities?: ClientCapabilities;
  /** Set up the client (request handlers) before it connects. */
  setup?: (client: Client) => void;
}

/** A connected client and the wave it talks to. */
export interface McpSession {
  client: Client;
  workspace: string;
  waveHome: string;
  /** What wave wrote to stderr so far. */
  stderr(): string;
  /** The wave process's pid. */
  pid: number;
  /** Closes the client (stdio: ends wave's stdin; HTTP: SIGTERM) and waits for wave to exit; resolves with its exit code. */
  close(): Promise<number | null>;
}

async function dirs(): Promise<{ workspace: string; waveHome: string }> {
  return {
    workspace: await Deno.realPath(
      await tempDir({ prefix: "wave-ws-" }),
    ),
    waveHome: await tempDir({ prefix: "wave-home-" }),
  };
}

function env(waveHome: string): Record<string, string> {
  return {
    WAVE_HOME: waveHome,
    NO_COLOR: "1",
    HOME: Deno.env.get("HOME") ?? "/root",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    DENO_DIR,
  };
}

/** Spawns `wave mcp` over stdio with the client SDK's `StdioClientTransport`, and connects. */
export async function startMcp(options: McpOptions = {}): Promise<McpSession> {
  const { workspace, waveHome } = await dirs();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: waveArgs(["mcp", "--workspace", workspace, ...options.args ?? []]),
    env: env(waveHome),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "wave-test", version: "1.0.0" }, {
    capabilities: options.capabilities ?? {},
  });
  options.setup?.(client);
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    workspace,
    waveHome,
    pid,
    stderr: () => stderr,
    async close() {
      await client.close();
      return await exitOf(pid);
    },
  };
}

/** Waits for process `pid` to be gone (at most 10 s); null: the code is not ours to read. */
async function exitOf(pid: number): Promise<null> {
  await waitUntil(
    () => {
      try {
        const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
        return stat.split(") ")[1]?.[0] === "Z";
      } catch {
        return true;
      }
    },
    `wave (pid ${pid}) to exit`,
    { timeoutMs: 10_000 },
  );
  return null;
}

/** A `wave mcp --listen 127.0.0.1:0` process and the URL it serves. */
export interface McpListener {
  child: Deno.ChildProcess;
  url: URL;
  workspace: string;
  waveHome: string;
  stderr(): string;
  /** Connects one more client over streamable HTTP. */
  connect(options?: McpOptions): Promise<Client>;
  /** SIGTERM, and its exit code. */
  stop(): Promise<number>;
}

/** Starts `wave mcp --listen 127.0.0.1:0` and reads the URL it writes to stderr. */
export async function startMcpHttp(args: string[] = []): Promise<McpListener> {
  const { workspace, waveHome } = await dirs();
  const child = new Deno.Command(Deno.execPath(), {
    args: waveArgs([
      "mcp",
      "--workspace",
      workspace,
      "--listen",
      "127.0.0.1:0",
      ...args,
    ]),
    // Left open and silent, as a terminal would be: HTTP does not wait on it.
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: env(waveHome),
  }).spawn();
  let stderr = "";
  (async () => {
    for await (
      const chunk of child.stderr.pipeThrough(new TextDecoderStream())
    ) {
      stderr += chunk;
    }
  })();
  const stdout = new Response(child.stdout).text();
  const url = await waitUntil(
    () => /MCP over streamable HTTP at (\S+)/.exec(stderr)?.[1],
    "wave mcp --listen to say where it listens",
    { detail: () => stderr },
  );
  const clients: Client[] = [];
  return {
    child,
    url: new URL(url),
    workspace,
    waveHome,
    stderr: () => stderr,
    async connect(options = {}) {
      const client = new Client({ name: "wave-test", version: "1.0.0" }, {
        capabilities: options.capabilities ?? {},
      });
      options.setup?.(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.allSettled(clients.map((c) => c.close()));
      child.kill("SIGTERM");
      const { code } = await child.status;
      await child.stdin.close().catch(() => {});
      if ((await stdout) !== "") {
        throw new Error("wave mcp --listen wrote to stdout");
      }
      return code;
    },
  };
}
