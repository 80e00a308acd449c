/**
 * The transport to MCP servers the parent hosts (session/mcp/_parent_transport.ts),
 * against a real MCP `McpServer` on the parent's side, wired as the Claude
 * Agent SDK wires its in-process servers: wave's `mcp_message` requests
 * go to the server, its replies come back as `mcp_response`, and what it
 * sends on its own is delivered as the parent's `mcp_message`.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { echoServer } from "../../fixtures/mcp_echo_server.ts";
import { McpServers } from "../../../session/mcp/servers.ts";
import {
  type ParentRequest,
  ParentRequests,
} from "../../../session/parent_requests.ts";
import { ToolRegistry } from "../../../session/registry.ts";
import { ProcessGroups } from "../../../tools/kernel/processes.ts";
import { tempDir } from "../../_temp.ts";

/** The server's end, as the SDK's host keeps it: `send` is what the server says. */
class HostTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor(readonly said: (message: JSONRPCMessage) => void) {}
  start(): Promise<void> {
    return Promise.resolve();
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.said(message);
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

/** A parent hosting `echoServer` as "inproc", answering as the Claude Agent SDK does. */
async function hosted(answerWithError?: string) {
  const dir = await tempDir();
  const sent: ParentRequest[] = [];
  /** The wave request each of wave's JSON-RPC requests came in. */
  const waiting = new Map<string | number, string>();
  const host = new HostTransport((message) => {
    const id = "id" in message ? message.id : undefined;
    if (!("method" in message) && id !== undefined && waiting.has(id)) {
      const requestId = waiting.get(id)!;
      waiting.delete(id);
      requests.answer(requestId, {
        subtype: "success",
        response: { mcp_response: message },
      });
    } else {
      // The server speaks first: the parent's own mcp_message.
      assert.equal(servers.deliver("inproc", message), null);
    }
  });
  const requests = new ParentRequests((requestId, request) => {
    sent.push(request);
    assert.equal(request.subtype, "mcp_message");
    if (request.subtype !== "mcp_message") return;
    assert.equal(request.server_name, "inproc");
    const message = request.message as JSONRPCMessage;
    if (answerWithError) {
      requests.answer(requestId, { subtype: "error", error: answerWithError });
      return;
    }
    if ("method" in message && "id" in message) {
      waiting.set(message.id, requestId);
    } else {
      requests.answer(requestId, {
        subtype: "success",
        response: { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } },
      });
    }
    queueMicrotask(() => host.onmessage?.(message));
  });
  const registry = await ToolRegistry.load([]);
  const servers = new McpServers({
    registry,
    processes: new ProcessGroups(),
    env: {},
    workspace: dir,
    parent: requests,
  });
  const server = echoServer(dir, "inproc");
  await server.connect(host);
  return { dir, sent, server, servers, registry };
}

Deno.test("parent-hosted MCP server: connects over mcp_message, its tools are registered and called, results come back as mcp_response", async () => {
  const { dir, sent, server, servers, registry } = await hosted();
  await servers.connectHosted(["inproc"]);
  assert.deepEqual(servers.list(), [{ name: "inproc", status: "connected" }]);
  assert.deepEqual(
    sent.slice(0, 2).map((r) =>
      r.subtype === "mcp_message" && (r.message as { method: string }).method
    ),
    ["initialize", "notifications/initialized"],
  );
  assert.deepEqual(registry.names(), [
    "mcp__inproc__echo",
    "mcp__inproc__write_note",
    "mcp__inproc__env_of",
    "mcp__inproc__slow",
    "mcp__inproc__picture",
    "mcp__inproc__broken",
    "mcp__inproc__crash",
  ]);
  const echo = registry.get("mcp__inproc__echo")!;
  assert.deepEqual(
    await echo.external!.call(
      { text: "through the parent" },
      AbortSignal.any([]),
    ),
    { content: "echo: through the parent", isError: false, structured: null },
  );
  const wrote = await registry.get("mcp__inproc__write_note")!.external!.call(
    { name: "n.txt", text: "abc" },
    AbortSignal.any([]),
  );
  assert.deepEqual(wrote.structured, { bytes: 3 });
  assert.equal(await Deno.readTextFile(`${dir}/n.txt`), "abc");

  // The server asks wave's client (a ping): the request arrives as the
  // parent's mcp_message, and the client's reply goes back through the parent.
  assert.deepEqual(await server.server.ping(), {});

  // A tool the server adds is listed again (tools/list_changed) and registered.
  server.registerTool("later", {
    description: "Added after the connection.",
    annotations: { readOnlyHint: true },
  }, () => ({ content: [{ type: "text", text: "late" }] }));
  for (
    let tries = 0;
    !registry.get("mcp__inproc__later") && tries < 100;
    tries++
  ) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(
    await registry.get("mcp__inproc__later")!.external!.call(
      {},
      AbortSignal.any([]),
    ),
    { content: "late", isError: false, structured: null },
  );
  assert.equal(registry.names().length, 8);
  assert.deepEqual(servers.status()[0].tools!.at(-1), {
    name: "later",
    description: "Added after the connection.",
    annotations: { readOnly: true },
  });

  // Connecting it again leaves it as it is.
  await servers.connectHosted(["inproc"]);
  assert.equal(registry.names().length, 8);
  await servers.close();
  assert.deepEqual(registry.names(), []);
});

Deno.test("parent-hosted MCP server: a parent that answers with an error fails the server, saying why; a message for an unknown server is refused", async () => {
  const { servers, registry } = await hosted("no such server: inproc");
  await servers.connectHosted(["inproc"]);
  const [status] = servers.status();
  assert.equal(status.status, "failed");
  assert.equal(status.error, "MCP error -32603: no such server: inproc");
  assert.deepEqual(registry.names(), []);
  assert.equal(
    servers.deliver("other", { jsonrpc: "2.0", method: "x" }),
    'no MCP server named "other" is hosted by the parent in this session',
  );
  await servers.close();
});
