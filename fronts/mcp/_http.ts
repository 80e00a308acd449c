/**
 * MCP's streamable HTTP transport on a loopback address (`wave mcp
 * --listen`): one SDK transport and server per MCP session, at `/mcp`,
 * with the Host header checked so a web page cannot reach it through DNS
 * rebinding, and an `Origin` header, when a browser sends one, checked to
 * be the server's own (MCP's transport rules).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpFront } from "./_server.ts";

/**
 * Serves `front` over streamable HTTP at `http://HOST:PORT/mcp` until
 * `signal` aborts; writes the address it listens on to stderr once it
 * does (PORT 0 picks a free port). Resolves when the listener closed.
 */
export async function serveHttp(
  front: McpFront,
  listen: { hostname: string; port: number },
  signal: AbortSignal,
): Promise<void> {
  const transports = new Map<
    string,
    WebStandardStreamableHTTPServerTransport
  >();
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];
  const server = Deno.serve({
    hostname: listen.hostname,
    port: listen.port,
    signal,
    onListen: ({ port }) => {
      allowedHosts = ["127.0.0.1", "localhost", "[::1]"].map((h) =>
        `${h}:${port}`
      );
      allowedOrigins = allowedHosts.map((host) => `http://${host}`);
      const host = listen.hostname.includes(":")
        ? `[${listen.hostname}]`
        : listen.hostname;
      console.error(
        `wave: MCP over streamable HTTP at http://${host}:${port}/mcp`,
      );
    },
  }, async (request) => {
    if (new URL(request.url).pathname !== "/mcp") {
      return new Response("not found: wave serves MCP at /mcp\n", {
        status: 404,
      });
    }
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const known = transports.get(id);
      if (known) return await known.handleRequest(request);
      return Response.json({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32001,
          message: `no MCP session ${id}: initialize a new one`,
        },
      }, { status: 404 });
    }
    // No session yet: the transport accepts only an initialize request.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => void transports.set(sid, transport),
      onsessionclosed: (sid) => void transports.delete(sid),
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
    });
    const mcp = front.newServer();
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    const response = await transport.handleRequest(request);
    if (!transport.sessionId) await mcp.close();
    return response;
  });
  await server.finished;
  await Promise.allSettled([...transports.values()].map((t) => t.close()));
}
