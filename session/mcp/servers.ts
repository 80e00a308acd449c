/**
 * The session's MCP servers: each entry connected through the official
 * client of `@modelcontextprotocol/sdk` (stdio servers as child processes
 * in their own process group, streamable HTTP, SSE, and servers the parent
 * hosts), all at once and each within a timeout; their tools registered as
 * `mcp__<server>__<tool>` in the session's one registry, so they take the
 * same call path as wave's own. Each server is `pending`, `connected` or
 * `failed` (with its error); a failed server's tools are not offered, and
 * the session goes on.
 *
 * Loaded only when a session has MCP servers (by a computed specifier),
 * so the SDK's client costs nothing otherwise.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client"
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ParentRequests } from "../parent_requests.ts";
import type { ToolRegistry } from "../registry.ts";
import { VERSION } from "../version.ts";
import type { ProcessGroups } from "../../tools/kernel/processes.ts";
import { parseEntry, type ServerEntry } from "./_config.ts";
import { ParentTransport } from "./_parent_transport.ts";
import { StdioServerTransport } from "./_stdio.ts";
import { registeredTool } from "./_tools.ts";

export { mcpToolName } from "./_tools.ts";

/** How long a server may take to start and answer `initialize` and `tools/list`, unless told. */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;

/**
 * How long one call of a server's tool may take, unless told; each
 * progress notification the server sends starts the wait again.
 */
export const MCP_TOOL_TIMEOUT_MS = 10 * 60 * 1000;

/** Where a server is: connecting, serving its tools, or not (with the error). */
export type McpServerState = "pending" | "connected" | "failed";

/**
 * A server as `mcp_status` answers it (the Claude Agent SDK's
 * `McpServerStatus`): its configuration without `env` and `headers`
 * (they may hold secrets), and its tools once connected.
 */
export interface McpServerStatus {
  name: string;
  status: McpServerState;
  serverInfo?: { name: string; version: string };
  error?: string;
  config?: Record<string, unknown>;
  tools?: {
    name: string;
    description?: string;
    annotations?: {
      readOnly?: boolean;
      destructive?: boolean;
      openWorld?: boolean;
    };
  }[];
}

/** What {@linkcode McpServers} needs from its session. */
export interface McpServersDeps {
  /**
   * Where the servers' tools are registered (and removed when a server
   * goes); a promise while the session's tools still load, so servers
   * start meanwhile.
   */
  registry: ToolRegistry | Promise<ToolRegistry>;
  /** The session's process groups: a stdio server's is killed with them. */
  processes: ProcessGroups;
  /** The environment commands get (the allow-list); a stdio server gets it plus its entry's `env`. */
  env: Record<string, string>;
  /** A stdio server's working directory. */
  workspace: string;
  /** The parent, for the servers it hosts (`type: "sdk"`). */
  parent: ParentRequests;
  /** How long a server may take to connect (default {@linkcode MCP_CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
  /** How long one tool call may take (default {@linkcode MCP_TOOL_TIMEOUT_MS}). */
  toolTimeoutMs?: number;
  /** Told once, when {@linkcode McpServers.close} is first called (its owner forgets it). */
  onClose?: () => void;
}

interface Server {
  name: string;
  status: McpServerState;
  error?: string;
  entry?: ServerEntry;
  serverInfo?: { name: string; version: string };
  client?: Client;
  transport?: Transport;
  tools: Tool[];
  /** The registry names of its tools. */
  registered: string[];
  connecting?: Promise<void>;
}

/** One session's MCP servers. */
export class McpServers {
  #deps: McpServersDeps;
  #registry: ToolRegistry | undefined;
  #servers = new Map<string, Server>();
  #closed = false;

  /** Servers whose tools join `deps.registry`. */
  constructor(deps: McpServersDeps) {
    this.#deps = deps;
    Promise.resolve(deps.registry).then(
      (registry) => this.#registry = registry,
      () => {},
    );
  }

  /**
   * Connects every server of `entries` (`--mcp-config`'s, by name) at
   * once, except those the parent hosts (`type: "sdk"`: their messages
   * travel through the parent, which answers only once the session reads
   * its input; {@linkcode connectHosted} connects them). Resolves when
   * each has connected or failed (an entry that is no valid server is a
   * failed server); never rejects.
   */
  async connect(entries: Record<string, unknown>): Promise<void> {
    if (this.#closed) return;
    const connecting: Promise<void>[] = [];
    for (const [name, value] of Object.entries(entries)) {
      const known = this.#servers.get(name);
      if (known) {
        // Already connecting (an earlier call): wait for it too.
        if (known.connecting) connecting.push(known.connecting);
        continue;
      }
      const entry = parseEntry(value);
      const server: Server = {
        name,
        status: "pending",
        tools: [],
        registered: [],
      };
      this.#servers.set(name, server);
      if ("error" in entry) {
        server.status = "failed";
        server.error = `invalid --mcp-config entry: ${entry.error}`;
        continue;
      }
      server.entry = entry;
      if (entry.type === "sdk") continue;
      connecting.push(this.#start(server));
    }
    await Promise.all(connecting);
  }

  /**
   * Connects the servers the parent hosts (the Claude Agent SDK's
   * in-process servers, which `initialize` names in `sdkMcpServers`, and
   * `--mcp-config`'s `type: "sdk"` entries): each message to one goes to
   * the parent as `control_request` `mcp_message`. A name already
   * connected or connecting is left as it is. Resolves when each has
   * connected or failed; never rejects. Call it once the session reads
   * the parent's input (the parent's answers come in there).
   */
  async connectHosted(names?: readonly string[]): Promise<void> {
    if (this.#closed) return;
    const wanted = names ??
      [...this.#servers.values()].filter((s) =>
        s.entry?.type === "sdk" && s.status === "pending" && !s.connecting
      ).map((s) => s.name);
    const connecting: Promise<void>[] = [];
    for (const name of wanted) {
      let server = this.#servers.get(name);
      if (server && (server.status === "connected" || server.connecting)) {
        if (server.connecting) connecting.push(server.connecting);
        continue;
      }
      server = { name, status: "pending", tools: [], registered: [] };
      server.entry = { type: "sdk" };
      this.#servers.set(name, server);
      connecting.push(this.#start(server));
    }
    await Promise.all(connecting);
  }

  /**
   * Hands a message a parent-hosted server sent on its own (the parent's
   * `control_request` `mcp_message`) to that server's client; what is
   * wrong, or null.
   */
  deliver(serverName: string, message: unknown): string | null {
    const transport = this.#servers.get(serverName)?.transport;
    if (!(transport instanceof ParentTransport)) {
      return `no MCP server named ${
        JSON.stringify(serverName).slice(0, 100)
      } is hosted by the parent in this session`;
    }
    return transport.deliver(message);
  }

  /** `system/init`'s `mcp_servers`: each server's name and state, in order. */
  list(): { name: string; status: McpServerState }[] {
    return [...this.#servers.values()].map(({ name, status }) => ({
      name,
      status,
    }));
  }

  /** `mcp_status`'s servers, in order. */
  status(): McpServerStatus[] {
    return [...this.#servers.values()].map((server) => ({
      name: server.name,
      status: server.status,
      ...server.serverInfo ? { serverInfo: server.serverInfo } : {},
      ...server.error !== undefined ? { error: server.error } : {},
      ...server.entry ? { config: shownConfig(server.name, server.entry) } : {},
      ...server.status === "connected"
        ? {
          tools: server.tools.map((tool) => ({
            name: tool.name,
            ...tool.description !== undefined
              ? { description: tool.description }
              : {},
            // The hints the server gave, under the SDK's names.
            annotations: {
              ...tool.annotations?.readOnlyHint !== undefined
                ? { readOnly: tool.annotations.readOnlyHint }
                : {},
              ...tool.annotations?.destructiveHint !== undefined
                ? { destructive: tool.annotations.destructiveHint }
                : {},
              ...tool.annotations?.openWorldHint !== undefined
                ? { openWorld: tool.annotations.openWorldHint }
                : {},
            },
          })),
        }
        : {},
    }));
  }

  /**
   * Closes every server (a stdio server's process group is killed) and
   * removes their tools. Later connects do nothing.
   */
  async close(): Promise<void> {
    if (!this.#closed) this.#deps.onClose?.();
    this.#closed = true;
    await Promise.all(
      [...this.#servers.values()].map(async (server) => {
        this.#unregister(server);
        await server.client?.close().catch(() => {});
        await server.transport?.close().catch(() => {});
      }),
    );
  }

  #start(server: Server): Promise<void> {
    server.connecting = this.#connect(server).finally(() => {
      server.connecting = undefined;
    });
    return server.connecting;
  }

  async #connect(server: Server): Promise<void> {
    const entry = server.entry!;
    const timeout = this.#deps.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
    const transport = this.#transportOf(server.name, entry);
    const client = new Client({ name: "wave", version: VERSION });
    server.transport = transport;
    server.client = client;
    const failed = (message: string) => {
      server.status = "failed";
      server.error = message;
      this.#unregister(server);
    };
    try {
      await client.connect(transport, { timeout });
      await this.#listTools(server, client, timeout);
      // A server whose tools change says so: they are listed again, and
      // the next model request is offered the new ones.
      client.setNotificationHandler(
        ToolListChangedNotificationSchema,
        async () => {
          if (server.status !== "connected" || this.#closed) return;
          try {
            await this.#listTools(server, client, timeout);
          } catch (error) {
            console.error(
              `wave: the MCP server ${server.name}'s changed tools could not be listed: ${
                (error as Error).message
              }`,
            );
          }
        },
      );
      const info = client.getServerVersion();
      if (info) server.serverInfo = { name: info.name, version: info.version };
      server.status = "connected";
      client.onclose = () => {
        if (!this.#closed) failed("the server closed the connection");
      };
    } catch (error) {
      let message = (error as Error).message;
      if (transport instanceof StdioServerTransport) {
        // Give an exiting server a moment: its exit says more than a
        // closed pipe does, and so do its last words on stderr.
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          transport.exited,
          new Promise((r) => timer = setTimeout(r, 1000)),
        ]);
        clearTimeout(timer);
        const status = transport.status;
        if (status) {
          message = `the server exited (${
            status.signal ? `signal ${status.signal}` : `code ${status.code}`
          }) before it was ready`;
        }
        const said = transport.stderr.trim();
        if (said) message += `; its stderr ends: ${said.slice(-500)}`;
      }
      failed(message);
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    }
  }

  /** Lists a server's tools and registers them in place of its earlier ones. */
  async #listTools(
    server: Server,
    client: Client,
    timeout: number,
  ): Promise<void> {
    const tools: Tool[] = [];
    if (client.getServerCapabilities()?.tools) {
      let cursor: string | undefined;
      let pages = 0;
      do {
        if (++pages > 100) {
          throw new Error("tools/list gave more than 100 pages of tools");
        }
        const page = await client.listTools(cursor ? { cursor } : {}, {
          timeout,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    }
    if (this.#closed) throw new Error("the session closed");
    const registered = tools.map((tool) =>
      registeredTool(
        server.name,
        tool,
        client,
        this.#deps.toolTimeoutMs ?? MCP_TOOL_TIMEOUT_MS,
      )
    );
    const registry = await this.#deps.registry;
    if (this.#closed) throw new Error("the session closed");
    const earlier = server.registered
      .map((name) => registry.get(name))
      .filter((tool) => tool !== undefined);
    registry.remove(server.registered);
    try {
      registry.add(registered);
    } catch (error) {
      registry.add(earlier);
      throw error;
    }
    server.tools = tools;
    server.registered = registered.map((t) => t.def.name);
  }

  #transportOf(name: string, entry: ServerEntry): Transport {
    switch (entry.type) {
      case "stdio":
        return new StdioServerTransport({
          server: name,
          command: entry.command,
          args: entry.args,
          env: { ...this.#deps.env, ...entry.env },
          cwd: this.#deps.workspace,
          processes: this.#deps.processes,
        });
      case "http":
        return new StreamableHTTPClientTransport(new URL(entry.url), {
          requestInit: { headers: entry.headers },
        });
      case "sse":
        return new SSEClientTransport(new URL(entry.url), {
          requestInit: { headers: entry.headers },
        });
      case "sdk":
        return new ParentTransport(name, this.#deps.parent);
    }
  }

  #unregister(server: Server): void {
    if (server.registered.length > 0) {
      this.#registry?.remove(server.registered);
    }
    server.registered = [];
  }
}

/** An entry as `mcp_status` shows it: without `env` and `headers`. */
function shownConfig(
  name: string,
  entry: ServerEntry,
): Record<string, unknown> {
  switch (entry.type) {
    case "stdio":
      return { type: "stdio", command: entry.command, args: entry.args };
    case "http":
    case "sse":
      return { type: entry.type, url: entry.url };
    case "sdk":
      return { type: "sdk", name };
  }
}
