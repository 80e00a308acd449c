/**
 * MCP servers as tools (issue 16, `--mcp-config`): a real stdio server
 * written with the MCP SDK (tests/fixtures/mcp_echo_server.ts) and a real
 * streamable-HTTP one, whose tools the real CLI offers as
 * `mcp__<server>__<tool>` through its one call path.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { echoServer, PIXEL_PNG } from "../fixtures/mcp_echo_server.ts";
import { MockModel } from "../_mock_model.ts";
import { processesLeft, processesStarted } from "../_processes.ts";
import { waitUntil } from "../_waiting.ts";
import { DENO_DIR, type Message, ROOT, startWave } from "../_wave.ts";
import { tempDir } from "../_temp.ts";

const FIXTURE = `${ROOT}tests/fixtures/mcp_echo_server.ts`;
const KEY = "sk-test-secret-key";

/** The command line of the fixture server started with `tag`. */
function serverArgs(tag: string): string[] {
  return ["run", "-A", "--config", `${ROOT}deno.json`, FIXTURE, tag];
}

/** A stdio entry of `--mcp-config` that runs the fixture server. */
function echoEntry(tag: string, env: Record<string, string> = {}) {
  return {
    command: Deno.execPath(),
    args: serverArgs(tag),
    env: { DENO_DIR, ...env },
  };
}

/** The exact command line of the fixture server started with `tag`, as /proc shows it. */
function cmdlineOf(tag: string): string {
  return [Deno.execPath(), ...serverArgs(tag)].join(" ");
}

const mcpConfig = (servers: Record<string, unknown>) =>
  JSON.stringify({ mcpServers: servers });

const tag = () => `t${crypto.randomUUID().slice(0, 8)}`;

Deno.test("mcp stdio: init reports each server's state, list_tools and call_tool see the tools, results map, the env holds its entries and no model key", async () => {
  const name = tag();
  const wave = await startWave({
    args: [
      "--mcp-config",
      mcpConfig({
        echo: echoEntry(name, { MY_VAR: "from-entry" }),
        missing: { command: "/no/such/server" },
        broken: { type: "http" },
      }),
    ],
    env: { ANTHROPIC_API_KEY: KEY, WAVE_TEST_SECRET: "not-allowed" },
  });
  try {
    const init = wave.messages[0];
    assert.deepEqual(init.mcp_servers, [
      { name: "echo", status: "connected" },
      { name: "missing", status: "failed" },
      { name: "broken", status: "failed" },
    ]);
    assert.deepEqual(init.tools.filter((t: string) => t.startsWith("mcp__")), [
      "mcp__echo__echo",
      "mcp__echo__write_note",
      "mcp__echo__env_of",
      "mcp__echo__slow",
      "mcp__echo__picture",
      "mcp__echo__broken",
      "mcp__echo__crash",
    ]);

    const listed = await wave.request({ subtype: "list_tools" });
    const echo = listed.response.tools.find((t: Message) =>
      t.name === "mcp__echo__echo"
    );
    assert.deepEqual(echo, {
      name: "mcp__echo__echo",
      description: "Repeats the text.",
      input_schema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
      scopes: { read: false, write: false, run: [] },
    });
    const writer = listed.response.tools.find((t: Message) =>
      t.name === "mcp__echo__write_note"
    );
    assert.deepEqual(writer.scopes, { read: false, write: true, run: [] });

    assert.deepEqual(await wave.callTool("mcp__echo__echo", { text: "hi" }), {
      tool_use_id: "toolu_wave_1",
      content: "echo: hi",
      is_error: false,
      structured: null,
    });
    const wrote = await wave.callTool("mcp__echo__write_note", {
      name: "note.txt",
      text: "hello",
    });
    assert.equal(wrote.content, "wrote note.txt");
    assert.deepEqual(wrote.structured, { bytes: 5 });
    assert.equal(
      await Deno.readTextFile(`${wave.workspace}/note.txt`),
      "hello",
    );
    const picture = await wave.callTool("mcp__echo__picture", {});
    assert.deepEqual(picture.content, [
      { type: "text", text: "a pixel" },
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: PIXEL_PNG },
      },
    ]);
    const broken = await wave.callTool("mcp__echo__broken", {});
    assert.equal(broken.is_error, true);
    assert.equal(broken.content, "it broke");

    // Invalid input is refused before the server sees it.
    const refused = await wave.request({
      subtype: "call_tool",
      tool_name: "mcp__echo__write_note",
      input: { name: "bad.txt", text: 5 },
    });
    assert.equal(refused.subtype, "error");
    assert.equal(
      refused.error,
      "invalid input for mcp__echo__write_note: text: Invalid input: expected string, received number",
    );
    assert.equal(
      await Deno.stat(`${wave.workspace}/bad.txt`).catch(() => null),
      null,
    );

    const env = await wave.callTool("mcp__echo__env_of", {
      names: ["MY_VAR", "ANTHROPIC_API_KEY", "WAVE_TEST_SECRET", "PATH"],
    });
    const seen = JSON.parse(env.content);
    assert.equal(seen.MY_VAR, "from-entry");
    assert.equal(seen.ANTHROPIC_API_KEY, null);
    assert.equal(seen.WAVE_TEST_SECRET, null);
    assert.equal(typeof seen.PATH, "string");
  } finally {
    await wave.kill();
  }
});

Deno.test("mcp: mcp_status answers each server as the Claude Agent SDK's McpServerStatus", async () => {
  const name = tag();
  const wave = await startWave({
    args: [
      "--mcp-config",
      mcpConfig({
        echo: echoEntry(name, { HIDDEN: "x" }),
        missing: { command: "/no/such/server", args: ["a"] },
        broken: { type: "http" },
        dies: { command: "sh", args: ["-c", "echo boom >&2; exit 3"] },
      }),
      "--strict-mcp-config",
    ],
  });
  try {
    assert.ok(!wave.stderr.includes("strict-mcp-config"));
    const status = await wave.request({ subtype: "mcp_status" });
    assert.equal(status.subtype, "success");
    const [echo, missing, broken, dies] = status.response.mcpServers;
    assert.deepEqual(echo.serverInfo, {
      name: "echo-fixture",
      version: "1.2.3",
    });
    assert.deepEqual(echo.config, {
      type: "stdio",
      command: Deno.execPath(),
      args: serverArgs(name),
    });
    assert.equal(echo.status, "connected");
    assert.deepEqual(echo.tools.slice(0, 2), [
      {
        name: "echo",
        description: "Repeats the text.",
        annotations: { readOnly: true },
      },
      {
        name: "write_note",
        description: "Writes a note file.",
        annotations: {},
      },
    ]);
    assert.deepEqual(missing, {
      name: "missing",
      status: "failed",
      error: "cannot start /no/such/server: no such command",
      config: { type: "stdio", command: "/no/such/server", args: ["a"] },
    });
    assert.deepEqual(broken, {
      name: "broken",
      status: "failed",
      error:
        "invalid --mcp-config entry: url: Invalid input: expected string, received undefined",
    });
    assert.deepEqual(dies, {
      name: "dies",
      status: "failed",
      error:
        "the server exited (code 3) before it was ready; its stderr ends: boom",
      config: {
        type: "stdio",
        command: "sh",
        args: ["-c", "echo boom >&2; exit 3"],
      },
    });
  } finally {
    await wave.kill();
  }
});

Deno.test("mcp: without --mcp-config, system/init has an empty mcp_servers and mcp_status an empty list", async () => {
  const wave = await startWave();
  try {
    assert.deepEqual(wave.messages[0].mcp_servers, []);
    const status = await wave.request({ subtype: "mcp_status" });
    assert.deepEqual(status.response, { mcpServers: [] });
  } finally {
    await wave.kill();
  }
});

Deno.test("mcp: modes apply — a readOnlyHint tool binds in ask mode, a writing one needs agent mode", async () => {
  const name = tag();
  const wave = await startWave({
    args: [
      "--mode",
      "ask",
      "--mcp-config",
      mcpConfig({ echo: echoEntry(name) }),
    ],
  });
  try {
    const init = wave.messages[0];
    assert.ok(init.tools.includes("mcp__echo__echo"));
    assert.ok(!init.tools.includes("mcp__echo__write_note"));
    const listed = await wave.request({ subtype: "list_tools" });
    const names = listed.response.tools.map((t: Message) => t.name);
    assert.ok(names.includes("mcp__echo__env_of"));
    assert.ok(!names.includes("mcp__echo__write_note"));
    const refused = await wave.request({
      subtype: "call_tool",
      tool_name: "mcp__echo__write_note",
      input: { name: "n.txt", text: "x" },
    });
    assert.equal(
      refused.error,
      "mcp__echo__write_note is not available in ask mode; it needs agent mode or wider (set_permission_mode)",
    );
    assert.equal(
      (await wave.callTool("mcp__echo__echo", { text: "ok" })).content,
      "echo: ok",
    );
    await wave.request({ subtype: "set_permission_mode", mode: "agent" });
    const wrote = await wave.callTool("mcp__echo__write_note", {
      name: "n.txt",
      text: "x",
    });
    assert.equal(wrote.content, "wrote n.txt");
  } finally {
    await wave.kill();
  }
});

Deno.test("mcp: the model calls an MCP tool and gets its result", async () => {
  const name = tag();
  const mock = new MockModel();
  const wave = await startWave({
    args: [
      "--model",
      "anthropic:test-model",
      "--base-url",
      mock.url,
      "--mcp-config",
      mcpConfig({ echo: echoEntry(name) }),
    ],
    env: { ANTHROPIC_API_KEY: KEY },
  });
  try {
    mock.script(
      {
        reply: [{
          type: "tool_use",
          id: "toolu_m1",
          name: "mcp__echo__echo",
          input: { text: "from the model" },
        }],
        stop: "tool_use",
      },
      { reply: [{ type: "text", text: "done" }] },
    );
    await wave.send({
      type: "user",
      message: { role: "user", content: "echo something" },
    });
    const result = await wave.waitFor((m) => m.type === "result", {
      timeoutMs: 30_000,
    });
    assert.equal(result.subtype, "success");
    const offered = mock.requests[0].body.tools as Message[];
    assert.deepEqual(
      offered.find((t) => t.name === "mcp__echo__echo"),
      {
        name: "mcp__echo__echo",
        description: "Repeats the text.",
        input_schema: {
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
        },
      },
    );
    const echoed = wave.messages.find((m) =>
      m.type === "user" && m.message.content[0].tool_use_id === "toolu_m1"
    )!;
    assert.equal(echoed.message.content[0].content, "echo: from the model");
    const fed = JSON.stringify(mock.requests[1].body.messages);
    assert.ok(fed.includes("echo: from the model"), fed);
  } finally {
    await wave.kill();
    await mock.close();
  }
});

Deno.test("mcp: an interrupt cancels a slow MCP tool call (the server sees the cancellation)", async () => {
  const name = tag();
  const wave = await startWave({
    args: ["--mcp-config", mcpConfig({ echo: echoEntry(name) })],
  });
  try {
    await wave.sendCall("slow1", "mcp__echo__slow", { ms: 120_000 });
    const marker = (what: string) => () => {
      try {
        return Deno.readTextFileSync(`${wave.workspace}/${what}-${name}`) ===
          "yes";
      } catch {
        return false;
      }
    };
    await waitUntil(marker("started"), "the call to reach the server");
    await wave.request({ subtype: "interrupt" });
    const answer = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "slow1"
    );
    assert.deepEqual(answer.response.response, {
      tool_use_id: answer.response.response.tool_use_id,
      content: "mcp__echo__slow was interrupted before it finished.",
      is_error: true,
      structured: { type: "interrupted" },
    });
    await waitUntil(
      marker("cancelled"),
      "the server to record the cancellation",
    );
  } finally {
    await wave.kill();
  }
});

for (const how of ["stdin closed", "SIGTERM", "SIGKILL"] as const) {
  Deno.test(`mcp: after wave exits (${how}) no server process is left`, async () => {
    const name = tag();
    const wave = await startWave({
      args: ["--mcp-config", mcpConfig({ echo: echoEntry(name) })],
    });
    let exited = false;
    try {
      const pids = await processesStarted(cmdlineOf(name));
      assert.equal(pids.length, 1);
      if (how !== "stdin closed") wave.child.kill(how);
      const status = how === "stdin closed"
        ? await wave.finish()
        : await wave.wait();
      exited = true;
      assert.equal(
        status.code,
        { "stdin closed": 0, SIGTERM: 143, SIGKILL: 137 }[how],
      );
      assert.deepEqual(await processesLeft(cmdlineOf(name)), []);
    } finally {
      if (!exited) await wave.kill();
    }
  });
}

Deno.test("mcp streamable HTTP: the server's tools are called over HTTP, with the entry's headers", async () => {
  const dir = await tempDir({ prefix: "wave-mcp-http-" });
  const seenAuth: (string | null)[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seenAuth.push(request.headers.get("authorization"));
      // Stateless: a server and a transport per request.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      const mcp = echoServer(dir, "http");
      await mcp.connect(transport);
      return await transport.handleRequest(request);
    },
  );
  const url = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/mcp`;
  const wave = await startWave({
    args: [
      "--mcp-config",
      mcpConfig({
        web: { type: "http", url, headers: { Authorization: "Bearer t0k" } },
      }),
    ],
  });
  try {
    assert.deepEqual(wave.messages[0].mcp_servers, [
      { name: "web", status: "connected" },
    ]);
    assert.equal(
      (await wave.callTool("mcp__web__echo", { text: "over http" })).content,
      "echo: over http",
    );
    await wave.callTool("mcp__web__write_note", { name: "h.txt", text: "h" });
    assert.equal(await Deno.readTextFile(`${dir}/h.txt`), "h");
    assert.ok(seenAuth.length > 0);
    assert.ok(seenAuth.every((a) => a === "Bearer t0k"), String(seenAuth));
  } finally {
    await wave.kill();
    await server.shutdown();
  }
});

Deno.test("mcp sdk: a server the parent hosts is reached through control_request mcp_message, and its tools are called", async () => {
  const dir = await tempDir({ prefix: "wave-mcp-sdk-" });
  const wave = await startWave({
    args: [
      "--mcp-config",
      mcpConfig({ inproc: { type: "sdk", name: "inproc" } }),
    ],
  });
  // The parent's side, as the Claude Agent SDK hosts an in-process server.
  const server = echoServer(dir, "sdk");
  const waiting = new Map<string | number, string>();
  const answer = (requestId: string, response: unknown) =>
    wave.send({
      type: "control_response",
      response: { subtype: "success", request_id: requestId, response },
    });
  await server.connect({
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: async (message) => {
      const id = "id" in message ? message.id : undefined;
      if (!("method" in message) && id !== undefined && waiting.has(id)) {
        const requestId = waiting.get(id)!;
        waiting.delete(id);
        await answer(requestId, { mcp_response: message });
      }
    },
  });
  const transport = (server.server as unknown as {
    transport: { onmessage(m: unknown): void };
  }).transport;
  const handled = new Set<string>();
  let serving = true;
  const parent = (async () => {
    while (serving) {
      const request = await wave.waitFor(
        (m) =>
          m.type === "control_request" &&
          m.request.subtype === "mcp_message" && !handled.has(m.request_id),
        { timeoutMs: 60_000 },
      ).catch(() => null);
      if (!request) return;
      handled.add(request.request_id);
      assert.equal(request.request.server_name, "inproc");
      const message = request.request.message;
      if ("method" in message && "id" in message) {
        waiting.set(message.id, request.request_id);
      } else {
        await answer(request.request_id, {
          mcp_response: { jsonrpc: "2.0", result: {}, id: 0 },
        });
      }
      transport.onmessage(message);
    }
  })();
  try {
    // Not connected before wave reads its input: pending in init.
    assert.deepEqual(wave.messages[0].mcp_servers, [
      { name: "inproc", status: "pending" },
    ]);
    let status: Message;
    for (let tries = 0;; tries++) {
      status = await wave.request({ subtype: "mcp_status" });
      if (status.response.mcpServers[0].status !== "pending" || tries > 200) {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status.response.mcpServers[0].status, "connected");
    assert.deepEqual(status.response.mcpServers[0].config, {
      type: "sdk",
      name: "inproc",
    });
    assert.equal(
      (await wave.callTool("mcp__inproc__echo", { text: "hosted" })).content,
      "echo: hosted",
    );
    // What the server sends on its own reaches wave as the parent's mcp_message.
    const delivered = await wave.request({
      subtype: "mcp_message",
      server_name: "inproc",
      message: { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    });
    assert.deepEqual(delivered, {
      subtype: "success",
      request_id: delivered.request_id,
      response: {},
    });
    const unknown = await wave.request({
      subtype: "mcp_message",
      server_name: "nope",
      message: { jsonrpc: "2.0", method: "x" },
    });
    assert.equal(
      unknown.error,
      'mcp_message: no MCP server named "nope" is hosted by the parent in this session',
    );
  } finally {
    serving = false;
    await wave.kill();
    await parent;
  }
});

Deno.test("mcp: a server that dies mid-session is failed, its tools are gone, and the session goes on", async () => {
  const name = tag();
  const wave = await startWave({
    args: ["--mcp-config", mcpConfig({ echo: echoEntry(name) })],
  });
  try {
    const crashed = await wave.callTool("mcp__echo__crash", {});
    assert.equal(crashed.is_error, true);
    assert.match(
      crashed.content,
      /^mcp__echo__crash failed: the MCP server echo answered: /,
    );
    let status: Message;
    for (let tries = 0;; tries++) {
      status = await wave.request({ subtype: "mcp_status" });
      if (status.response.mcpServers[0].status !== "connected" || tries > 200) {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status.response.mcpServers[0].status, "failed");
    assert.equal(
      status.response.mcpServers[0].error,
      "the server closed the connection",
    );
    const listed = await wave.request({ subtype: "list_tools" });
    assert.ok(
      !listed.response.tools.some((t: Message) => t.name.startsWith("mcp__")),
    );
    const gone = await wave.request({
      subtype: "call_tool",
      tool_name: "mcp__echo__echo",
      input: { text: "x" },
    });
    assert.match(gone.error, /^unknown tool "mcp__echo__echo"/);
    assert.equal(
      (await wave.callTool("Glob", { pattern: "*" })).is_error,
      false,
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("mcp: a server that never answers is failed after MCP_TIMEOUT (init still goes out, its process is killed); a call past MCP_TOOL_TIMEOUT is an error", async () => {
  const name = tag();
  // A unique command line, to find its process.
  const hang = ["sleep", `${600 + Math.floor(Math.random() * 1000)}.5`];
  const wave = await startWave({
    args: [
      "--mcp-config",
      mcpConfig({
        mute: { command: hang[0], args: [hang[1]] },
        echo: echoEntry(name),
      }),
    ],
    env: { MCP_TIMEOUT: "1500", MCP_TOOL_TIMEOUT: "1000" },
  });
  try {
    assert.deepEqual(wave.messages[0].mcp_servers, [
      { name: "mute", status: "failed" },
      { name: "echo", status: "connected" },
    ]);
    const status = await wave.request({ subtype: "mcp_status" });
    assert.equal(
      status.response.mcpServers[0].error,
      "MCP error -32001: Request timed out",
    );
    assert.deepEqual(await processesLeft(hang.join(" ")), []);
    const slow = await wave.callTool("mcp__echo__slow", { ms: 60_000 });
    assert.deepEqual(slow, {
      tool_use_id: slow.tool_use_id,
      content:
        "mcp__echo__slow failed: the MCP server echo answered: MCP error -32001: Request timed out",
      is_error: true,
      structured: { type: "mcp_error" },
    });
  } finally {
    await wave.kill();
  }
});
