/**
 * MCP's streamable HTTP transport on a loopback address (`wave mcp
 * --listen`): one SDK transport and server per MCP session, at `/mcp`,
 * with the Host header checked so a web page cannot reach it through DNS
 * rebinding, and an `Origin` header, when a browser sends one, checked to
 * be the server's own (MCP's transport rules). A session no request has
 * used for the idle time is closed, so clients that walk away without
 * ending theirs (a DELETE) do not keep its server forever.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpFront } from "./_server.ts";

/**
 * The most MCP sessions kept open: each holds some 40 KB (its SDK server
 * and transport), and a client that opens sessions and walks away would
 * otherwise pile them up for the idle time. Past it, the session no
 * request has used the longest (none in flight) is closed as an idle
 * one is.
 */
export const MAX_SESSIONS = 100;

/**
 * Serves `front` over streamable HTTP at `http://HOST:PORT/mcp` until
 * `signal` aborts; writes the address it listens on to stderr once it
 * does (PORT 0 picks a free port). A session that no request has used
 * for `idleMs` (none in flight) is closed, and so is the longest unused
 * one when a new session would make more than {@linkcode MAX_SESSIONS}:
 * its next request gets 404, on which MCP clients start a new one.
 * Resolves when the listener closed.
 */
export async function serveHttp(
  front: McpFront,
  listen: { hostname: string; port: number },
  signal: AbortSignal,
  idleMs: number,
): Promise<void> {
  const sessions = new Map<string, Session>();
  const ended = (session: Session) => {
    session.answering--;
    session.at = Date.now();
  };
  /** Closes the longest unused sessions with none in flight, but `opened`, until at most MAX_SESSIONS are open. */
  const cap = (opened: string) => {
    const idle = [...sessions]
      .filter(([id, s]) => id !== opened && s.answering === 0)
      .sort(([, a], [, b]) => a.at - b.at);
    for (const [id, session] of idle) {
      if (sessions.size <= MAX_SESSIONS) return;
      sessions.delete(id);
      session.transport.close().catch(() => {});
    }
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (session.answering > 0 || now - session.at < idleMs) continue;
      sessions.delete(id);
      session.transport.close().catch(() => {});
    }
  }, Math.min(idleMs / 2, 60_000));
  Deno.unrefTimer(sweep);
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
      const session = sessions.get(id);
      if (session) {
        session.at = Date.now();
        session.answering++;
        let response: Response;
        try {
          response = await session.transport.handleRequest(request);
        } catch (error) {
          ended(session);
          throw error;
        }
        // A stream (a call's progress and answer, or the client's own
        // event stream) is being answered until it ends.
        return whenEnded(response, () => ended(session));
      }
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
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, at: Date.now(), answering: 0 });
        cap(sid);
      },
      onsessionclosed: (sid) => void sessions.delete(sid),
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
    });
    const mcp = front.newServer();
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await mcp.connect(transport);
    const response = await transport.handleRequest(request);
    if (!transport.sessionId) await mcp.close();
    return response;
  });
  await server.finished;
  clearInterval(sweep);
  await Promise.allSettled(
    [...sessions.values()].map(({ transport }) => transport.close()),
  );
}

/** An MCP session: its transport, when a request last came or ended, and how many are being answered. */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  at: number;
  answering: number;
}

/** `response` with `done` called once its body has ended (or was cancelled), or at once when it has none. */
function whenEnded(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  let called = false;
  const once = () => {
    if (!called) {
      called = true;
      done();
    }
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done: end } = await reader.read();
        if (end) {
          once();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        once();
        controller.error(error);
      }
    },
    cancel(reason) {
      once();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
