/**
 * `wave mcp` end to end (issue 17): the official MCP client SDK spawns the
 * real CLI (stdio) or talks streamable HTTP to it, and every answer goes
 * through the session core.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ResourceUpdatedNotificationSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TINY_PNG } from "../_images.ts";
import { type McpSession, startMcp, startMcpHttp } from "../_mcp.ts";
import {
  processesLeft,
  processesPreparedBy,
  processesStarted,
} from "../_processes.ts";
import { waitUntil } from "../_waiting.ts";
import { waveArgs } from "../../scripts/flags.ts";
import { TOOLSETS } from "../../tools/toolsets.ts";
import { PROTOCOL_VERSIONS } from "../../fronts/mcp/early.ts";
import { MAX_SESSIONS } from "../../fronts/mcp/_http.ts";
import { tempDir } from "../_temp.ts";

// deno-lint-ignore no-explicit-any
type Result = Record<string, any>;

function textOf(result: Result): string {
  return result.content.map((c: { text?: string }) => c.text ?? "").join("");
}

async function withMcp(
  options: Parameters<typeof startMcp>[0],
  fn: (mcp: McpSession) => Promise<void>,
): Promise<void> {
  const mcp = await startMcp(options);
  try {
    await fn(mcp);
  } finally {
    await mcp.close();
  }
}

Deno.test("wave mcp: the session's first command runs in a process made for it ahead, while wave waited", async () => {
  await withMcp({}, async ({ client, pid, waveHome }) => {
    const ahead = await waitUntil(
      () => {
        const found = processesPreparedBy(pid);
        return found.length === 2 && found;
      },
      "two processes made ahead for the first commands",
      { detail: () => JSON.stringify(processesPreparedBy(pid)) },
    );
    // Made for the session: under bubblewrap its spill directory is the
    // one bound, not the process's own.
    const spill = `${await Deno.realPath(waveHome)}/spill/`;
    for (const { cmdline } of ahead) {
      if (!cmdline.includes("bwrap")) continue;
      const bound = cmdline.split(" ").filter((a) => a.startsWith(spill));
      assert.ok(
        bound.length > 0 &&
          bound.every((a) => a.slice(spill.length).split("/").length === 2),
        cmdline,
      );
    }
    const ran = await client.callTool({
      name: "Bash",
      arguments: { command: "echo ran" },
    });
    assert.equal(textOf(ran as Result), "ran");
    // The oldest ran it; the other is still there for the next command
    // (one made for other settings would have been killed with it).
    const after = processesPreparedBy(pid).map((p) => p.pid);
    assert.ok(!after.includes(ahead[0].pid), JSON.stringify(after));
    assert.ok(after.includes(ahead[1].pid), JSON.stringify(after));
  });
});

Deno.test("wave mcp: tools/list gives the bound tools with their JSON Schemas and scope annotations", async () => {
  await withMcp({}, async ({ client }) => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOLSETS.wave.map((e) => e.name),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    const read = byName.get("Read")!;
    assert.match(read.description!, /Reads a file/i);
    assert.equal(read.inputSchema.type, "object");
    assert.deepEqual(read.inputSchema.required, ["file_path"]);
    const hints = (name: string) => {
      const { readOnlyHint, destructiveHint, openWorldHint } = byName.get(name)!
        .annotations!;
      return { readOnlyHint, destructiveHint, openWorldHint };
    };
    const readOnly = {
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    };
    const destructive = {
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: false,
    };
    for (const name of ["Read", "Glob", "Grep", "TaskGet", "TaskList"]) {
      assert.deepEqual(hints(name), readOnly, name);
    }
    for (const name of ["Write", "Edit", "Bash"]) {
      assert.deepEqual(hints(name), destructive, name);
    }
    assert.deepEqual(hints("TaskCreate"), {
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: false,
    });
  });
  // --mode binds as it does for stream-json.
  await withMcp({ args: ["--mode", "ask"] }, async ({ client }) => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOLSETS.wave.filter((e) => e.mode === "ask").map((e) => e.name),
    );
    const write = await client.callTool({
      name: "Write",
      arguments: { file_path: "x.txt", content: "x" },
    });
    assert.equal(write.isError, true);
    assert.equal(
      textOf(write),
      "Write is not available in ask mode; it needs agent mode or wider (set_permission_mode)",
    );
  });
});

Deno.test("wave mcp: tools/call runs each kind of tool through the core (text, image, write, edit, search, command, errors)", async () => {
  await withMcp({}, async ({ client, workspace }) => {
    await Deno.writeTextFile(`${workspace}/a.txt`, "hello\nworld\n");
    await Deno.writeFile(`${workspace}/dot.png`, TINY_PNG);

    const read = await client.callTool({
      name: "Read",
      arguments: { file_path: "a.txt" },
    });
    assert.equal(read.isError, false);
    assert.deepEqual(read.content, [{
      type: "text",
      text: "     1\thello\n     2\tworld",
    }]);
    assert.equal((read.structuredContent as Result).totalLines, 2);

    const image = await client.callTool({
      name: "Read",
      arguments: { file_path: "dot.png" },
    }) as Result;
    assert.equal(image.isError, false);
    const picture = image.content.find((c: Result) => c.type === "image");
    assert.equal(picture.mimeType, "image/png");
    assert.deepEqual(
      Uint8Array.from(atob(picture.data), (c) => c.charCodeAt(0)),
      TINY_PNG,
    );

    const write = await client.callTool({
      name: "Write",
      arguments: { file_path: "new/b.txt", content: "one\ntwo\n" },
    });
    assert.equal(write.isError, false, textOf(write as Result));
    assert.equal(
      await Deno.readTextFile(`${workspace}/new/b.txt`),
      "one\ntwo\n",
    );
    const edit = await client.callTool({
      name: "Edit",
      arguments: {
        file_path: "new/b.txt",
        old_string: "two",
        new_string: "three",
      },
    });
    assert.equal(edit.isError, false, textOf(edit as Result));
    assert.equal(
      await Deno.readTextFile(`${workspace}/new/b.txt`),
      "one\nthree\n",
    );

    const grep = await client.callTool({
      name: "Grep",
      arguments: { pattern: "thr+ee", output_mode: "content" },
    }) as Result;
    assert.equal(grep.isError, false, textOf(grep));
    assert.match(textOf(grep), /new\/b\.txt:2:three/);
    const glob = await client.callTool({
      name: "Glob",
      arguments: { pattern: "**/*.txt" },
    }) as Result;
    assert.deepEqual(textOf(glob).split("\n").sort(), ["a.txt", "new/b.txt"]);

    const bash = await client.callTool({
      name: "Bash",
      arguments: { command: "cat new/b.txt; exit 3" },
    }) as Result;
    assert.equal(bash.isError, true);
    assert.match(textOf(bash), /^one\nthree\n[\s\S]*3/);
    assert.equal(bash.structuredContent.exitCode, 3);

    // A tool failure is isError, with the tool's own words.
    const missing = await client.callTool({
      name: "Read",
      arguments: { file_path: "nope.txt" },
    }) as Result;
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /nope\.txt/);
    // Input the schema refuses, and a tool wave does not have.
    const invalid = await client.callTool({
      name: "Read",
      arguments: { file_path: 42 },
    }) as Result;
    assert.equal(invalid.isError, true);
    assert.match(textOf(invalid), /^invalid input for Read: file_path/);
    const unknown = await client.callTool({ name: "Nope", arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match(
      textOf(unknown as Result),
      /^unknown tool "Nope"; this toolset \(wave\) has: Read, Write/,
    );
  });
});

Deno.test("wave mcp: an escape from the workspace is refused without elicitation (../ and an absolute path), and nothing is written", async () => {
  await withMcp({}, async ({ client, workspace }) => {
    const outside =
      `${workspace}/../wave-mcp-escape-${crypto.randomUUID()}.txt`;
    const write = await client.callTool({
      name: "Write",
      arguments: { file_path: outside, content: "x" },
    }) as Result;
    assert.equal(write.isError, true);
    assert.match(
      textOf(write),
      /^Write was denied: path outside the workspace: .*wave-mcp-escape-.*\.txt\. the MCP client does not support elicitation \(elicitation\/create\), so wave cannot ask it; start wave mcp with --approvals allow to allow such calls$/,
    );
    assert.equal(write.structuredContent.type, "permission_denied");
    await assert.rejects(Deno.stat(outside), Deno.errors.NotFound);
    const read = await client.callTool({
      name: "Read",
      arguments: { file_path: "/etc/hostname" },
    }) as Result;
    assert.equal(read.isError, true);
    assert.match(
      textOf(read),
      /^Read was denied: path outside the workspace: \/etc\/hostname\. /,
    );
  });
});

Deno.test("wave mcp: approvals by elicitation when the client supports it (accept, decline), else --approvals decides", async () => {
  const outsideDir = await tempDir({ prefix: "wave-outside-" });
  const outside = `${outsideDir}/secret.txt`;
  await Deno.writeTextFile(outside, "outside\n");
  const asked: string[] = [];
  let answer: "accept" | "decline" | "cancel" = "accept";
  await withMcp({
    capabilities: { elicitation: { form: {} } },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push((request.params as { message: string }).message);
        return {
          action: answer,
          ...(answer === "accept" ? { content: {} } : {}),
        };
      }),
  }, async ({ client }) => {
    const allowed = await client.callTool({
      name: "Read",
      arguments: { file_path: outside },
    }) as Result;
    assert.equal(allowed.isError, false, textOf(allowed));
    assert.match(textOf(allowed), /outside/);
    assert.deepEqual(asked, [
      `wave asks to run Read: path outside the workspace: ${await Deno.realPath(
        outside,
      )}. Allow this call?`,
    ]);
    answer = "decline";
    const declined = await client.callTool({
      name: "Read",
      arguments: { file_path: outside },
    }) as Result;
    assert.equal(declined.isError, true);
    assert.equal(
      textOf(declined),
      `Read was denied by the user (path outside the workspace: ${await Deno
        .realPath(outside)})`,
    );
    answer = "cancel";
    const dismissed = await client.callTool({
      name: "Read",
      arguments: { file_path: outside },
    }) as Result;
    assert.match(textOf(dismissed), /^Read was denied: the user dismissed/);
    assert.equal(asked.length, 3);
  });
  // --approvals given: it decides; an elicitation-capable client is not asked under deny.
  asked.length = 0;
  answer = "accept";
  await withMcp({
    args: ["--approvals", "deny"],
    capabilities: { elicitation: {} },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, () => {
        asked.push("asked");
        return { action: "accept", content: {} };
      }),
  }, async ({ client }) => {
    const denied = await client.callTool({
      name: "Read",
      arguments: { file_path: outside },
    }) as Result;
    assert.match(textOf(denied), /wave runs with --approvals deny/);
    assert.deepEqual(asked, []);
  });
  await withMcp({ args: ["--approvals", "allow"] }, async ({ client }) => {
    const allowed = await client.callTool({
      name: "Read",
      arguments: { file_path: outside },
    }) as Result;
    assert.equal(allowed.isError, false, textOf(allowed));
  });
});

Deno.test("wave mcp: a long command reports progress, and cancelling it kills its process group", async () => {
  await withMcp({}, async ({ client }) => {
    const marker = `${1000 + Math.floor(Math.random() * 1000)}.25`;
    const progress: { progress: number; message?: string }[] = [];
    const controller = new AbortController();
    const call = client.callTool(
      {
        name: "Bash",
        arguments: {
          command:
            `echo started; sleep ${marker} & sleep ${marker}; echo never`,
        },
      },
      undefined,
      {
        signal: controller.signal,
        onprogress: (p) => progress.push(p),
      },
    );
    await processesStarted(`sleep ${marker}`, 2);
    await waitUntil(
      () => progress.some((p) => p.message === "started\n"),
      "progress with the command's first output",
      { detail: () => JSON.stringify(progress) },
    );
    assert.deepEqual(progress[0], { progress: 8, message: "started\n" });
    controller.abort("the test cancels it");
    await assert.rejects(call);
    assert.deepEqual(await processesLeft(`sleep ${marker}`, 5000), []);
    // The session goes on after a cancellation.
    const after = await client.callTool({
      name: "Bash",
      arguments: { command: "echo still here" },
    });
    assert.equal(textOf(after as Result), "still here");
  });
});

Deno.test("wave mcp: the task list is the resource wave://tasks/<list>, updated after a change", async () => {
  await withMcp({ args: ["--task-list", "mcp-list"] }, async ({ client }) => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => [r.uri, r.mimeType]), [
      ["wave://tasks/mcp-list", "application/json"],
    ]);
    const updated: string[] = [];
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void updated.push(n.params.uri),
    );
    await client.subscribeResource({ uri: "wave://tasks/mcp-list" });
    const created = await client.callTool({
      name: "TaskCreate",
      arguments: { subject: "Write the MCP front", description: "issue 17" },
    }) as Result;
    assert.equal(created.isError, false, textOf(created));
    // The update is sent before the call's answer.
    assert.deepEqual(updated, ["wave://tasks/mcp-list"]);
    const read = await client.readResource({ uri: "wave://tasks/mcp-list" });
    assert.deepEqual(read.contents.length, 1);
    assert.equal(read.contents[0].mimeType, "application/json");
    assert.deepEqual(JSON.parse((read.contents[0] as { text: string }).text), {
      task_list_id: "mcp-list",
      tasks: [{ id: "1", subject: "Write the MCP front", status: "pending" }],
      visible: true,
    });
    await assert.rejects(
      client.readResource({ uri: "wave://tasks/other" }),
      /unknown resource wave:\/\/tasks\/other; wave has wave:\/\/tasks\/mcp-list/,
    );
  });
});

Deno.test("wave mcp: stdout carries JSON-RPC only; a bad line gets a JSON-RPC error and the session goes on; EOF ends wave with 0", async () => {
  const workspace = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: waveArgs(["mcp", "--workspace", workspace]),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { WAVE_HOME: await tempDir() },
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  await writer.write(encoder.encode("not json\n"));
  await writer.write(
    encoder.encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
  );
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0);
  const lines = new TextDecoder().decode(out.stdout).trimEnd().split("\n").map(
    (l) => JSON.parse(l),
  );
  assert.equal(lines.length, 2);
  assert.equal(lines[0].jsonrpc, "2.0");
  assert.equal(lines[0].id, null);
  assert.equal(lines[0].error.code, -32700);
  assert.match(lines[0].error.message, /^line 1 is not JSON/);
  assert.deepEqual(lines[1], { jsonrpc: "2.0", id: 1, result: {} });
});

Deno.test("wave mcp --listen: streamable HTTP on 127.0.0.1 with sessions, progress, elicitation and a checked Host header", async () => {
  const wave = await startMcpHttp();
  try {
    assert.equal(wave.url.hostname, "127.0.0.1");
    assert.equal(wave.url.pathname, "/mcp");
    const first = await wave.connect();
    const asked: string[] = [];
    const second = await wave.connect({
      capabilities: { elicitation: { form: {} } },
      setup: (client) =>
        client.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push((request.params as { message: string }).message);
          return { action: "decline" };
        }),
    });
    const { tools } = await first.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOLSETS.wave.map((e) => e.name),
    );
    const progress: string[] = [];
    const bash = await first.callTool(
      {
        name: "Bash",
        arguments: { command: "echo one; sleep 0.2; echo two" },
      },
      undefined,
      { onprogress: (p) => void progress.push(p.message!) },
    );
    assert.equal(textOf(bash as Result), "one\ntwo");
    assert.deepEqual(progress.join(""), "one\ntwo\n");
    // Elicitation goes to the client whose call it is.
    const denied = await second.callTool({
      name: "Read",
      arguments: { file_path: "/etc/hostname" },
    }) as Result;
    assert.equal(
      textOf(denied),
      "Read was denied by the user (path outside the workspace: /etc/hostname)",
    );
    assert.equal(asked.length, 1);
    const byFirst = await first.callTool({
      name: "Read",
      arguments: { file_path: "/etc/hostname" },
    }) as Result;
    assert.match(textOf(byFirst), /does not support elicitation/);
    assert.equal(asked.length, 1);

    // DNS rebinding: a Host that is not the loopback address is refused
    // (raw HTTP: fetch does not let a page, or a test, set Host).
    const body = JSON.stringify(initialize(1));
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(wave.url.port),
    });
    await conn.write(
      new TextEncoder().encode(
        `POST /mcp HTTP/1.1\r\nHost: evil.example:${wave.url.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ),
    );
    const reply = await new Response(conn.readable).text();
    assert.match(reply, /^HTTP\/1\.1 403 /);
    assert.match(reply, /Invalid Host header: evil\.example/);
    // A page elsewhere (its Origin is not the server's own) is refused; a
    // client that sends no Origin, or the server's own, is served.
    const post = (origin?: string) =>
      fetch(new URL("/mcp", wave.url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...origin ? { origin } : {},
        },
        body,
      });
    const foreign = await post("http://evil.example");
    assert.equal(foreign.status, 403);
    assert.match(
      await foreign.text(),
      /Invalid Origin header: http:\/\/evil\.example/,
    );
    for (const origin of [undefined, `http://127.0.0.1:${wave.url.port}`]) {
      const own = await post(origin);
      assert.equal(own.status, 200, String(origin));
      await own.body?.cancel();
    }
    const elsewhere = await fetch(new URL("/other", wave.url));
    assert.equal(elsewhere.status, 404);
    await elsewhere.body?.cancel();
  } finally {
    // SIGTERM ends it as it ends stream-json wave: 143.
    assert.equal(await wave.stop(), 143);
  }
});

Deno.test("wave mcp --listen: each MCP session's model reads for itself: a read in one session does not let another edit, nor hide a change made since its own read; the output one session's command spilled is outside for another", async () => {
  const wave = await startMcpHttp();
  try {
    await Deno.writeTextFile(`${wave.workspace}/a.txt`, "one\ntwo\n");
    const reader = await wave.connect();
    const other = await wave.connect();
    const call = async (
      client: typeof reader,
      name: string,
      args: Record<string, unknown>,
    ) => await client.callTool({ name, arguments: args }) as Result;
    const edit = (from: string, to: string) => ({
      file_path: "a.txt",
      old_string: from,
      new_string: to,
    });
    assert.equal(
      (await call(reader, "Read", { file_path: "a.txt" })).isError,
      false,
    );
    const unread = await call(other, "Edit", edit("one", "ONE"));
    assert.equal(unread.isError, true);
    assert.equal(
      textOf(unread),
      "a.txt has not been read in this session. Call Read on it first, then edit it.",
    );
    // other reads and edits; reader's read is now stale, and says so.
    await call(other, "Read", { file_path: "a.txt" });
    assert.equal(
      (await call(other, "Edit", edit("one", "ONE"))).isError,
      false,
    );
    const stale = await call(reader, "Write", {
      file_path: "a.txt",
      content: "reader's\n",
    });
    assert.equal(stale.isError, true);
    assert.equal(
      textOf(stale),
      "a.txt has changed on disk since it was last read (by the user, a formatter or another process). Call Read on it again, then overwrite it.",
    );
    assert.equal(
      await Deno.readTextFile(`${wave.workspace}/a.txt`),
      "ONE\ntwo\n",
    );
    // The output a session's command spilled is that session's to read.
    const printed = await call(reader, "Bash", {
      command: "seq 1 20000 | sed 's/^/READER-/'",
    });
    const spilled = /The full output is in (\S+?\.log)/.exec(
      textOf(printed),
    )?.[1];
    assert.ok(spilled, textOf(printed).slice(-300));
    const tail = { file_path: spilled, offset: 20000, limit: 1 };
    const foreign = await call(other, "Read", tail);
    assert.equal(foreign.isError, true);
    assert.match(textOf(foreign), /path outside the workspace/);
    assert.match(textOf(await call(reader, "Read", tail)), /READER-20000/);
    // A session that ends takes its spill directory with it when empty.
    const spills = spilled.slice(
      0,
      spilled.lastIndexOf("/", spilled.lastIndexOf("/") - 1),
    );
    const dirs = () =>
      [...Deno.readDirSync(spills)].filter((e) => e.isDirectory).length;
    assert.equal(dirs(), 2);
    await (other.transport as StreamableHTTPClientTransport)
      .terminateSession();
    await waitUntil(
      () => dirs() === 1 || undefined,
      "the ended session's spill directory gone",
    );
    assert.ok(Deno.statSync(spilled).isFile);
  } finally {
    assert.equal(await wave.stop(), 143);
  }
});

Deno.test("wave mcp --listen: a session no request uses for --listen-idle is closed (404, start a new one); one in use, or answering a long call, is kept", async () => {
  const wave = await startMcpHttp(["--listen-idle", "1"]);
  try {
    const post = (body: unknown, session?: string) =>
      postMcp(wave.url, body, session);
    const session = await openMcpSession(wave.url, 1);
    const list = async (id: number) => {
      const response = await post(
        { jsonrpc: "2.0", id, method: "tools/list" },
        session,
      );
      return { status: response.status, text: await response.text() };
    };
    // Used every 300 ms for 2.4 s: kept.
    for (let i = 0; i < 8; i++) {
      assert.equal((await list(10 + i)).status, 200);
      await new Promise((r) => setTimeout(r, 300));
    }
    // A call that takes 2.5 s keeps it while it is answered.
    const call = await post({
      jsonrpc: "2.0",
      id: 30,
      method: "tools/call",
      params: { name: "Bash", arguments: { command: "sleep 2.5; echo done" } },
    }, session);
    assert.equal(call.status, 200);
    assert.match(await call.text(), /done/);
    assert.equal((await list(31)).status, 200);
    // Unused for 2.5 s: closed.
    await new Promise((r) => setTimeout(r, 2500));
    const gone = await list(40);
    assert.equal(gone.status, 404);
    assert.equal(
      JSON.parse(gone.text).error.message,
      `no MCP session ${session}: initialize a new one`,
    );
    // A new one opens as the first did.
    const again = await post(initialize(2));
    assert.equal(again.status, 200);
    await again.body?.cancel();
  } finally {
    assert.equal(await wave.stop(), 143);
  }
});

Deno.test("wave mcp --listen: past MAX_SESSIONS open sessions, the one unused the longest is closed (404, start a new one)", async () => {
  const wave = await startMcpHttp();
  try {
    const post = (body: unknown, session?: string) =>
      postMcp(wave.url, body, session);
    const open = (id: number) => openMcpSession(wave.url, id);
    const ping = async (session: string) => {
      const response = await post(
        { jsonrpc: "2.0", id: 7, method: "ping" },
        session,
      );
      await response.body?.cancel();
      return response.status;
    };
    const oldest = await open(1);
    const used = await open(2);
    const others: string[] = [];
    for (let i = 0; i < MAX_SESSIONS - 2; i++) others.push(await open(10 + i));
    // At the cap all are open; the first two were just used, so the
    // longest unused is now the first of the others.
    assert.equal(await ping(oldest), 200);
    assert.equal(await ping(used), 200);
    const newest = await open(999);
    assert.equal(await ping(oldest), 200);
    assert.equal(await ping(others[0]), 404);
    assert.equal(await ping(newest), 200);
    assert.equal(await ping(used), 200);
  } finally {
    assert.equal(await wave.stop(), 143);
  }
});

/** Runs `wave mcp` on `lines` to EOF; its stdout lines, parsed. */
async function rawMcp(lines: unknown[]): Promise<Result[]> {
  const workspace = await Deno.realPath(await tempDir());
  const out = await new Deno.Command(Deno.execPath(), {
    args: waveArgs(["mcp", "--workspace", workspace]),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { WAVE_HOME: await tempDir() },
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    ),
  );
  await writer.close();
  const { stdout } = await out.output();
  return new TextDecoder().decode(stdout).trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  ).map((m) => (m.result?.instructions &&
    (m.result.instructions = m.result.instructions.replace(workspace, "WS")),
    m)
  );
}

/** A client's `initialize` request. */
/** POSTs one JSON-RPC message to `wave mcp --listen` at `url`, in MCP session `session` if given. */
function postMcp(url: URL, body: unknown, session?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...session ? { "mcp-session-id": session } : {},
    },
    body: JSON.stringify(body),
  });
}

/** Opens an MCP session of `wave mcp --listen` at `url` (initialize, then initialized); its id. */
async function openMcpSession(url: URL, id: number): Promise<string> {
  const opened = await postMcp(url, initialize(id));
  assert.equal(opened.status, 200);
  await opened.body?.cancel();
  const session = opened.headers.get("mcp-session-id")!;
  const ready = await postMcp(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  await ready.body?.cancel();
  return session;
}

const initialize = (id: number, protocolVersion = "2025-06-18") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

Deno.test("wave mcp: initialize is answered before the SDK loads, once, exactly as the SDK answers it", async () => {
  const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
  // First line: answered early. After a ping: answered by the SDK.
  const early = await rawMcp([initialize(1, "2025-06-18"), ping]);
  const late = await rawMcp([ping, initialize(1, "2025-06-18")]);
  assert.deepEqual(early.map((m) => m.id), [1, 9]);
  assert.deepEqual(late.map((m) => m.id), [9, 1]);
  assert.deepEqual(early[0], late[1]);
  assert.equal(early[0].result.protocolVersion, "2025-06-18");
  // A version the SDK does not speak: its newest, both ways.
  const [odd] = await rawMcp([initialize(2, "1999-01-01")]);
  const [, oddLate] = await rawMcp([ping, initialize(2, "1999-01-01")]);
  assert.deepEqual(odd, oddLate);
  assert.equal(odd.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.deepEqual([...PROTOCOL_VERSIONS], SUPPORTED_PROTOCOL_VERSIONS);
});

Deno.test("wave mcp: a request whose id is already in flight gets an error and is not run; the first still gets its answer, also when the client closes its end at once", async () => {
  const call = (name: string, args: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const answers = await rawMcp([
    initialize(1),
    { jsonrpc: "2.0", method: "notifications/initialized" },
    call("Bash", { command: "sleep 1; echo slow" }),
    call("Glob", { pattern: "*.txt" }),
  ]);
  const fives = answers.filter((a) => a.id === 5);
  assert.equal(fives.length, 2, JSON.stringify(answers));
  assert.deepEqual(fives[0], {
    jsonrpc: "2.0",
    id: 5,
    error: {
      code: -32600,
      message:
        "request id 5 is already in flight: ids must be unique among the requests awaiting an answer; this one was not run",
    },
  });
  assert.match(JSON.stringify(fives[1].result), /slow/);
});
