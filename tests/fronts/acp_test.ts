/**
 * `wave acp` end to end (issue 17): the official ACP SDK's client spawns
 * the real CLI, and the agent loop runs against the mock model server.
 */

import assert from "node:assert/strict";
import {
  acp,
  type AcpSession,
  finished,
  newSession,
  startAcp,
  updatesOf,
  withAcp,
} from "../_acp.ts";
import {
  processesLeft,
  processesPreparedBy,
  processesStarted,
} from "../_processes.ts";
import { waitUntil, within } from "../_waiting.ts";
import { waveArgs } from "../../scripts/flags.ts";
import { ACP_PROTOCOL_VERSION } from "../../fronts/acp/early.ts";
import { DENO_DIR, ROOT } from "../_wave.ts";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { echoServer } from "../fixtures/mcp_echo_server.ts";
import { tempDir } from "../_temp.ts";
import { filesUnder } from "../_files.ts";
import { callStep, textStep } from "../_mock_model.ts";

/** `deno` arguments that run the test MCP server (tests/fixtures/mcp_echo_server.ts), tagged `tag` to find its process. */
function echoServerArgs(tag: string): string[] {
  return [
    "run",
    "-A",
    "--config",
    `${ROOT}deno.json`,
    `${ROOT}tests/fixtures/mcp_echo_server.ts`,
    tag,
  ];
}

function prompt(
  wave: AcpSession,
  sessionId: string,
  text: string,
): Promise<acp.PromptResponse> {
  return wave.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
}

Deno.test("wave acp: initialize, and a session announces wave's modes", async () => {
  await withAcp({}, async (wave) => {
    const init = await wave.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
    assert.deepEqual(init.agentCapabilities, {
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    });
    assert.equal(init.agentInfo?.name, "wave");
    const created = await wave.agent.request(acp.methods.agent.session.new, {
      cwd: wave.workspace,
      mcpServers: [],
    });
    assert.equal(created.modes?.currentModeId, "agent");
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ["ask", "plan", "agent"],
    );
    await wave.agent.request(acp.methods.agent.session.setMode, {
      sessionId: created.sessionId,
      modeId: "ask",
    });
    await wave.waitForUpdate(
      (u) =>
        u.sessionUpdate === "current_mode_update" && u.currentModeId === "ask",
      "current_mode_update to ask",
    );
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.setMode, {
        sessionId: created.sessionId,
        modeId: "yolo",
      }),
      /unknown mode "yolo"; wave's modes are ask, plan, agent/,
    );
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.new, {
        cwd: `${wave.workspace}/missing`,
        mcpServers: [],
      }),
      /the session's cwd is not a directory wave can work in/,
    );
  });
});

Deno.test("wave acp: a prompt reads, edits (diff content), runs a command and updates its plan, as ACP updates", async () => {
  await withAcp({}, async (wave, mock) => {
    await Deno.writeTextFile(`${wave.workspace}/a.txt`, "hello world\n");
    mock.script(
      {
        reply: [
          { type: "text", text: "Reading it first." },
          {
            type: "tool_use",
            id: "read_1",
            name: "Read",
            input: { file_path: "a.txt" },
          },
        ],
      },
      {
        reply: [{
          type: "tool_use",
          id: "edit_1",
          name: "Edit",
          input: {
            file_path: "a.txt",
            old_string: "world",
            new_string: "there",
          },
        }],
      },
      {
        reply: [{
          type: "tool_use",
          id: "bash_1",
          name: "Bash",
          input: { command: "cat a.txt" },
        }],
      },
      {
        reply: [{
          type: "tool_use",
          id: "task_1",
          name: "TaskCreate",
          input: {
            subject: "Check the greeting",
            description: "after the edit",
          },
        }],
      },
      { reply: [{ type: "text", text: "Done." }] },
    );
    const sessionId = await newSession(wave);
    const answer = await prompt(wave, sessionId, "fix the greeting");
    assert.deepEqual(answer, { stopReason: "end_turn" });
    assert.equal(
      await Deno.readTextFile(`${wave.workspace}/a.txt`),
      "hello there\n",
    );
    assert.ok(wave.updates.every((n) => n.sessionId === sessionId));

    // The replies' text comes as it streams: chunks that add up to it.
    const chunks = updatesOf(wave, "agent_message_chunk").map((u) => u.content);
    assert.ok(chunks.every((c) => c.type === "text"));
    assert.equal(
      chunks.map((c) => c.text).join(""),
      "Reading it first.Done.",
    );
    assert.ok(chunks.length > 2, `${chunks.length} chunks`);
    const calls = updatesOf(wave, "tool_call");
    assert.deepEqual(
      calls.map((c) => [c.toolCallId, c.kind, c.status]),
      [
        ["read_1", "read", "pending"],
        ["edit_1", "edit", "pending"],
        ["bash_1", "execute", "pending"],
        ["task_1", "think", "pending"],
      ],
    );
    assert.deepEqual(calls[0].locations, [{ path: `${wave.workspace}/a.txt` }]);
    assert.equal(calls[0].title, `Read ${wave.workspace}/a.txt`);
    assert.equal(calls[2].title, "Bash: cat a.txt");

    const read = finished(wave, "read_1")!;
    assert.equal(read.status, "completed");
    assert.deepEqual(read.content, [{
      type: "content",
      content: { type: "text", text: "     1\thello world" },
    }]);
    const edit = finished(wave, "edit_1")!;
    assert.equal(edit.status, "completed");
    assert.deepEqual(edit.content![0], {
      type: "diff",
      path: `${wave.workspace}/a.txt`,
      oldText: "hello world",
      newText: "hello there",
    });
    assert.deepEqual(edit.locations, [{
      path: `${wave.workspace}/a.txt`,
      line: 1,
    }]);
    const bash = finished(wave, "bash_1")!;
    assert.equal(bash.status, "completed");
    assert.deepEqual(bash.content, [{
      type: "content",
      content: { type: "text", text: "hello there" },
    }]);
    const running = updatesOf(wave, "tool_call_update").filter((u) =>
      u.toolCallId === "bash_1" && u.status === "in_progress"
    );
    assert.ok(running.length >= 1, "the command's output while it ran");
    assert.deepEqual(updatesOf(wave, "plan").at(-1)?.entries, [{
      content: "Check the greeting",
      priority: "medium",
      status: "pending",
    }]);
    // The plan comes before the call that changed it finishes.
    const order = wave.updates.map((n) => n.update);
    assert.ok(
      order.findIndex((u) => u.sessionUpdate === "plan") <
        order.findIndex((u) =>
          u.sessionUpdate === "tool_call_update" && u.toolCallId === "task_1" &&
          u.status === "completed"
        ),
    );
  });
});

Deno.test("wave acp: approvals through session/request_permission: allow once, allow always (remembered for the session, never for a sensitive file), reject", async () => {
  const outsideDir = await Deno.realPath(
    await tempDir({ prefix: "wave-outside-" }),
  );
  const outside = `${outsideDir}/notes.txt`;
  await Deno.writeTextFile(outside, "outside notes\n");
  const answers = ["allow_once", "allow_always", "allow_once", "reject_once"];
  await withAcp({ permission: () => answers.shift()! }, async (wave, mock) => {
    await Deno.writeTextFile(`${wave.workspace}/.env`, "TOKEN=secret\n");
    const read = (id: string) => ({
      reply: [{
        type: "tool_use" as const,
        id,
        name: "Read",
        input: { file_path: outside },
      }],
    });
    mock.script(
      read("r1"),
      read("r2"),
      read("r3"),
      callStep("env1", "Read", { file_path: ".env" }),
      { reply: [{ type: "text", text: "Read it three times." }] },
      read("r4"),
      { reply: [{ type: "text", text: "Not allowed." }] },
    );
    const first = await newSession(wave);
    assert.deepEqual(await prompt(wave, first, "read it"), {
      stopReason: "end_turn",
    });
    // Asked twice: the third call was allowed by "always". Not the .env:
    // "always" does not cover a sensitive file, nor is it offered for one.
    assert.equal(wave.permissions.length, 3);
    assert.equal(wave.permissions[2].toolCall.toolCallId, "env1");
    assert.deepEqual(
      wave.permissions[2].options.map((o) => o.optionId),
      ["allow_once", "reject_once"],
    );
    assert.equal(finished(wave, "env1")?.status, "completed");
    const asked = wave.permissions[0];
    assert.equal(asked.sessionId, first);
    assert.equal(asked.toolCall.toolCallId, "r1");
    assert.deepEqual(asked.options.map((o) => [o.optionId, o.kind]), [
      ["allow_once", "allow_once"],
      ["allow_always", "allow_always"],
      ["reject_once", "reject_once"],
    ]);
    assert.deepEqual(asked.toolCall.content, [{
      type: "content",
      content: {
        type: "text",
        text: `Needs approval: path outside the workspace: ${outside}`,
      },
    }]);
    for (const id of ["r1", "r2", "r3"]) {
      assert.equal(finished(wave, id)?.status, "completed", id);
    }
    // Another session does not inherit "always".
    const { sessionId: second } = await wave.agent.request(
      acp.methods.agent.session.new,
      { cwd: wave.workspace, mcpServers: [] },
    );
    assert.deepEqual(await prompt(wave, second, "again"), {
      stopReason: "end_turn",
    });
    assert.equal(wave.permissions.length, 4);
    const denied = finished(wave, "r4")!;
    assert.equal(denied.status, "failed");
    assert.deepEqual(denied.content, [{
      type: "content",
      content: {
        type: "text",
        text:
          `Read was denied by the user (path outside the workspace: ${outside})`,
      },
    }]);
  });
});

Deno.test("wave acp: session/cancel mid-command ends the turn as cancelled and leaves no process", async () => {
  await withAcp({}, async (wave, mock) => {
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.75`;
    mock.script({
      reply: [{
        type: "tool_use",
        id: "long_1",
        name: "Bash",
        input: { command: `echo begun; sleep ${marker} & sleep ${marker}` },
      }],
    });
    const sessionId = await newSession(wave);
    const answer = prompt(wave, sessionId, "wait a while");
    await processesStarted(`sleep ${marker}`, 2);
    await wave.waitForUpdate(
      (u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "in_progress",
      "the command's output",
    );
    await wave.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    assert.deepEqual(await within(answer, 10_000, "the cancelled prompt"), {
      stopReason: "cancelled",
    });
    assert.deepEqual(await processesLeft(`sleep ${marker}`, 5000), []);
    assert.equal(finished(wave, "long_1")?.status, "failed");
  });
});

Deno.test("wave acp: session/list shows the session, titled by its first prompt; session/load replays the transcript as updates, then its task list as the plan, and the session goes on from it", async () => {
  const waveHome = await tempDir({ prefix: "wave-home-" });
  const workspace = await Deno.realPath(await tempDir());
  await Deno.writeTextFile(`${workspace}/a.txt`, "first\n");
  let sessionId = "";
  await withAcp({ waveHome, workspace }, async (wave, mock) => {
    mock.script(
      {
        reply: [
          { type: "text", text: "Looking." },
          {
            type: "tool_use",
            id: "t1",
            name: "Read",
            input: { file_path: "a.txt" },
          },
        ],
      },
      callStep("t2", "TaskCreate", {
        subject: "Check a.txt",
        description: "again",
      }),
      { reply: [{ type: "text", text: "It says first." }] },
    );
    sessionId = await newSession(wave);
    assert.deepEqual(await prompt(wave, sessionId, "what does a.txt say?"), {
      stopReason: "end_turn",
    });
    // Open here: another wave does not load it meanwhile (two histories
    // would interleave in one transcript).
    const other = await startAcp({ waveHome, workspace });
    try {
      await other.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      await assert.rejects(
        other.agent.request(acp.methods.agent.session.load, {
          sessionId,
          cwd: workspace,
          mcpServers: [],
        }),
        {
          message:
            `session ${sessionId} is open in another wave process; load it once that one has ended`,
        },
      );
    } finally {
      await other.close();
    }
  });
  await withAcp({ waveHome, workspace }, async (wave, mock) => {
    await wave.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    // The editor's history lists it, titled by its first prompt; another
    // workspace's list does not.
    const elsewhere = await Deno.realPath(await tempDir());
    const listed = await wave.agent.request(acp.methods.agent.session.list, {
      cwd: workspace,
    });
    assert.equal(listed.nextCursor, undefined);
    // When its transcript last changed.
    const changed = Deno.statSync(`${waveHome}/sessions/${sessionId}.jsonl`)
      .mtime!.toISOString();
    assert.deepEqual(listed.sessions, [{
      sessionId,
      cwd: workspace,
      title: "what does a.txt say?",
      updatedAt: changed,
    }]);
    assert.deepEqual(
      await wave.agent.request(acp.methods.agent.session.list, {
        cwd: elsewhere,
      }),
      { sessions: [] },
    );
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.list, { cursor: "nope" }),
      { message: `not a cursor of wave's session list: "nope"` },
    );
    // Not in another workspace: its history names this one's files.
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: elsewhere,
        mcpServers: [],
      }),
      {
        message:
          `session ${sessionId} is a session of ${workspace}, not of ${elsewhere}; load it with that cwd`,
      },
    );
    const loaded = await wave.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: workspace,
      mcpServers: [],
    });
    assert.equal(loaded.modes?.currentModeId, "agent");
    // Replayed before the answer, then the session's task list as its
    // plan. The SDK's client hands a notification to its handler a few
    // ticks after it reads it, and resolves a response at once: the last
    // update can reach the test just after the answer did.
    const plan = await wave.waitForUpdate(
      (u) => u.sessionUpdate === "plan",
      "the replay's last update, the plan",
    );
    assert.deepEqual(plan, {
      sessionUpdate: "plan",
      entries: [{
        content: "Check a.txt",
        priority: "medium",
        status: "pending",
      }],
    });
    assert.deepEqual(
      wave.updates.map((n) => [n.sessionId, n.update.sessionUpdate]),
      [
        [sessionId, "user_message_chunk"],
        [sessionId, "agent_message_chunk"],
        [sessionId, "tool_call"],
        [sessionId, "tool_call_update"],
        [sessionId, "tool_call"],
        [sessionId, "tool_call_update"],
        [sessionId, "agent_message_chunk"],
        [sessionId, "plan"],
      ],
    );
    assert.deepEqual(wave.updates[0].update, {
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "what does a.txt say?" },
    });
    assert.equal(finished(wave, "t1")?.status, "completed");
    mock.script({ reply: [{ type: "text", text: "Still first." }] });
    assert.deepEqual(await prompt(wave, sessionId, "and now?"), {
      stopReason: "end_turn",
    });
    // The model saw the loaded history.
    const messages = mock.requests.at(-1)!.body.messages as unknown[];
    assert.equal(messages.length, 7);
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.load, {
        sessionId: "../../etc/passwd",
        cwd: workspace,
        mcpServers: [],
      }),
      /not a wave session id/,
    );
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.load, {
        sessionId: "no-such-session",
        cwd: workspace,
        mcpServers: [],
      }),
      /there is no session no-such-session to load/,
    );
  });
});

Deno.test("wave acp: initialize is answered before the SDK loads, once, as the SDK's handler answers it", async () => {
  const workspace = await Deno.realPath(await tempDir());
  const run = async (lines: unknown[]) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: waveArgs(["acp", "--workspace", workspace]),
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      env: { WAVE_HOME: await tempDir() },
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(
        lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
      ),
    );
    // Each line is answered; then the input ends.
    const answers: Record<string, unknown>[] = [];
    let buffer = "";
    for await (
      const chunk of child.stdout.pipeThrough(new TextDecoderStream())
    ) {
      buffer += chunk;
      while (buffer.includes("\n")) {
        answers.push(JSON.parse(buffer.slice(0, buffer.indexOf("\n"))));
        buffer = buffer.slice(buffer.indexOf("\n") + 1);
      }
      if (answers.length >= lines.length) break;
    }
    await writer.close();
    assert.equal((await child.status).code, 0);
    return answers;
  };
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  };
  const unknown = { jsonrpc: "2.0", id: 7, method: "nope/nope", params: {} };
  const early = await run([initialize, unknown]);
  const late = await run([unknown, initialize]);
  assert.deepEqual(early.map((m) => m.id), [1, 7]);
  assert.deepEqual(late.map((m) => m.id), [7, 1]);
  assert.deepEqual(early[0].result, late[1].result);
  assert.equal(ACP_PROTOCOL_VERSION, acp.PROTOCOL_VERSION);
});

Deno.test("wave acp: session/new's mcpServers (stdio and http) become that session's tools, which the model calls", async () => {
  const seenAuth: (string | null)[] = [];
  const web = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seenAuth.push(request.headers.get("authorization"));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await echoServer(await tempDir(), "acp-http").connect(
        transport,
      );
      return await transport.handleRequest(request);
    },
  );
  const url = `http://127.0.0.1:${(web.addr as Deno.NetAddr).port}/mcp`;
  const tag = `acp${crypto.randomUUID().slice(0, 8)}`;
  const serverArgs = echoServerArgs(tag);
  try {
    await mcpSession(serverArgs, url, seenAuth);
  } finally {
    await web.shutdown();
  }
  // The server ended with wave.
  assert.deepEqual(
    await processesLeft([Deno.execPath(), ...serverArgs].join(" ")),
    [],
  );
});

async function mcpSession(
  serverArgs: string[],
  url: string,
  seenAuth: (string | null)[],
): Promise<void> {
  await withAcp({}, async (wave, mock) => {
    mock.script(
      {
        reply: [{
          type: "tool_use",
          id: "mcp_1",
          name: "mcp__echo__env_of",
          input: { names: ["FROM_ACP", "ANTHROPIC_API_KEY"] },
        }],
      },
      { reply: [{ type: "text", text: "Done." }] },
      { reply: [{ type: "text", text: "No tools here." }] },
    );
    await wave.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await wave.agent.request(
      acp.methods.agent.session.new,
      {
        cwd: wave.workspace,
        mcpServers: [{
          name: "echo",
          command: Deno.execPath(),
          args: serverArgs,
          env: [
            { name: "DENO_DIR", value: DENO_DIR },
            { name: "FROM_ACP", value: "yes" },
          ],
        }, {
          type: "http",
          name: "web",
          url,
          headers: [{ name: "Authorization", value: "Bearer acp" }],
        }],
      },
    );
    assert.deepEqual(await prompt(wave, sessionId, "use the server"), {
      stopReason: "end_turn",
    });
    const offered = (mock.requests[0].body.tools as { name: string }[]).map((
      t,
    ) => t.name);
    assert.ok(offered.includes("mcp__echo__echo"), String(offered));
    assert.ok(offered.includes("mcp__echo__write_note"));
    assert.ok(offered.includes("mcp__web__echo"), String(offered));
    assert.ok(seenAuth.length > 0);
    assert.ok(seenAuth.every((a) => a === "Bearer acp"), String(seenAuth));
    const done = finished(wave, "mcp_1");
    assert.equal(done?.status, "completed");
    const text = JSON.stringify(done?.content);
    assert.ok(
      text.includes(
        JSON.stringify(
          JSON.stringify({ FROM_ACP: "yes", ANTHROPIC_API_KEY: null }),
        )
          .slice(1, -1),
      ),
      text,
    );

    // Another session on the same workspace is not offered them.
    const other = await wave.agent.request(acp.methods.agent.session.new, {
      cwd: wave.workspace,
      mcpServers: [],
    });
    await prompt(wave, other.sessionId, "anything");
    const offeredThere = (mock.requests[2].body.tools as { name: string }[])
      .map((t) => t.name);
    assert.ok(!offeredThere.some((n) => n.startsWith("mcp__")));
    assert.equal(
      (await processesStarted([Deno.execPath(), ...serverArgs].join(" ")))
        .length,
      1,
    );
  });
}

Deno.test("wave acp: each session on a workspace has its own mode, read state, task list and file history: what one does leaves its sibling as it was", async () => {
  await withAcp({}, async (wave, mock) => {
    await Deno.writeTextFile(`${wave.workspace}/a.txt`, "hello world\n");
    const edit = (id: string) =>
      callStep(id, "Edit", {
        file_path: "a.txt",
        old_string: "world",
        new_string: id,
      });
    const done = textStep("ok");
    mock.script(
      // b reads a.txt.
      callStep("read_b", "Read", { file_path: "a.txt" }),
      done,
      // b, now in ask mode, may not edit it.
      edit("edit_b_ask"),
      done,
      // a never read it: its edit is refused, b's read is not a's.
      edit("edit_a"),
      callStep("task_a", "TaskCreate", {
        subject: "a's own task",
        description: "for a only",
      }),
      done,
      // b, back in agent mode, edits what it read.
      edit("edit_b"),
      done,
    );
    const open = async () =>
      (await wave.agent.request(acp.methods.agent.session.new, {
        cwd: wave.workspace,
        mcpServers: [],
      })).sessionId;
    const setMode = (sessionId: string, modeId: string) =>
      wave.agent.request(acp.methods.agent.session.setMode, {
        sessionId,
        modeId,
      });
    const a = await newSession(wave);
    const b = await open();
    const of = (sessionId: string, kind: string) =>
      wave.updates.filter((n) =>
        n.sessionId === sessionId && n.update.sessionUpdate === kind
      ).map((n) => n.update);
    const failure = (id: string) => {
      const update = finished(wave, id)!;
      assert.equal(update.status, "failed", id);
      return JSON.stringify(update.content);
    };

    assert.deepEqual(await prompt(wave, b, "read"), { stopReason: "end_turn" });
    await setMode(b, "ask");
    await wave.waitForUpdate(
      (u) => u.sessionUpdate === "current_mode_update",
      "b's current_mode_update",
    );
    assert.deepEqual(of(b, "current_mode_update"), [{
      sessionUpdate: "current_mode_update",
      currentModeId: "ask",
    }]);
    assert.deepEqual(of(a, "current_mode_update"), []);
    // A session opened now starts in the configured mode, not in b's.
    const c = await wave.agent.request(acp.methods.agent.session.new, {
      cwd: wave.workspace,
      mcpServers: [],
    });
    assert.equal(c.modes?.currentModeId, "agent");
    // b's model is offered no Edit in ask mode, and a call of it fails.
    await prompt(wave, b, "edit in ask mode");
    const offered = (n: number) =>
      (mock.requests[n].body.tools as { name: string }[]).map((t) => t.name);
    assert.ok(!offered(2).includes("Edit"), offered(2).join(" "));
    assert.match(failure("edit_b_ask"), /Edit is not available in ask mode/);

    await prompt(wave, a, "edit without reading");
    assert.ok(offered(4).includes("Edit"), "a is still in agent mode");
    assert.match(
      failure("edit_a"),
      /a\.txt has not been read in this session\. Call Read on it first/,
    );
    assert.equal(
      await Deno.readTextFile(`${wave.workspace}/a.txt`),
      "hello world\n",
    );
    // a's task list is a's: named by its id, and shown as a's plan only.
    assert.deepEqual(
      [...Deno.readDirSync(`${wave.waveHome}/tasks`)].map((e) => e.name),
      [a],
    );
    assert.equal(of(a, "plan").length, 1);
    assert.deepEqual(of(b, "plan"), []);

    await setMode(b, "agent");
    await prompt(wave, b, "edit now");
    assert.equal(finished(wave, "edit_b")?.status, "completed");
    assert.equal(
      await Deno.readTextFile(`${wave.workspace}/a.txt`),
      "hello edit_b\n",
    );
    // The change is b's in the file history.
    const history = JSON.stringify(
      filesUnder(`${wave.waveHome}/history`).map((f) =>
        Deno.readTextFileSync(f)
      ),
    );
    assert.ok(history.includes(b), "b's id in its history");
    assert.ok(!history.includes(a), "a changed nothing");
  });
});

Deno.test("wave acp: a task list --task-list names is every session's: a change in one is each one's plan", async () => {
  await withAcp({ args: ["--task-list", "shared"] }, async (wave, mock) => {
    mock.script(
      callStep("task_a", "TaskCreate", {
        subject: "the shared task",
        description: "seen by both",
      }),
      textStep("ok"),
    );
    const a = await newSession(wave);
    const b = (await wave.agent.request(acp.methods.agent.session.new, {
      cwd: wave.workspace,
      mcpServers: [],
    })).sessionId;
    await prompt(wave, a, "add a task");
    const plansOf = () =>
      wave.updates.filter((n) => n.update.sessionUpdate === "plan");
    const plans = await waitUntil(
      () => plansOf().length >= 2 ? plansOf() : undefined,
      "a plan for each session",
    );
    assert.deepEqual(plans.map((n) => n.sessionId).sort(), [a, b].sort());
    for (const { update } of plans) {
      assert.deepEqual((update as acp.Plan).entries, [{
        content: "the shared task",
        priority: "medium",
        status: "pending",
      }]);
    }
    assert.deepEqual(
      [...Deno.readDirSync(`${wave.waveHome}/tasks`)].map((e) => e.name),
      ["shared"],
    );
    // A session opened on it now is shown it, after session/new's answer.
    const c = (await wave.agent.request(acp.methods.agent.session.new, {
      cwd: wave.workspace,
      mcpServers: [],
    })).sessionId;
    const shown = await waitUntil(
      () => wave.updates.find((n) => n.sessionId === c),
      "the new session's plan",
    );
    assert.deepEqual(shown.update, plans[0].update);
  });
});

Deno.test("wave acp: sessions stay apart where a model or a client could cross: another session's spilled output needs approval, a tool_use id two sessions use shows each its own output, a second load of one id is refused, and so is a cwd that is relative or inside WAVE_HOME", async () => {
  await withAcp({}, async (wave, mock) => {
    const a = await newSession(wave);
    const open = async () =>
      (await wave.agent.request(acp.methods.agent.session.new, {
        cwd: wave.workspace,
        mcpServers: [],
      })).sessionId;
    const b = await open();
    // a's command prints more than a result holds: the rest is spilled.
    mock.script(
      callStep("spill_a", "Bash", {
        command: "seq 1 20000 | sed 's/^/A-OUTPUT-/'",
      }),
      textStep("spilled"),
    );
    await prompt(wave, a, "print a lot");
    const text = JSON.stringify(finished(wave, "spill_a")?.content);
    const spilled = /The full output is in (\S+?\.log)/.exec(text)?.[1];
    assert.ok(spilled, text.slice(0, 300));
    // b's Read of it is asked about (and refused by the test client); a's is not.
    mock.script(
      callStep("read_b", "Read", {
        file_path: spilled,
        offset: 19999,
        limit: 2,
      }),
      textStep("b done"),
      callStep("read_a", "Read", {
        file_path: spilled,
        offset: 19999,
        limit: 2,
      }),
      textStep("a done"),
    );
    await prompt(wave, b, "read a's output");
    assert.deepEqual(
      wave.permissions.map((p) => [p.sessionId, p.toolCall.toolCallId]),
      [[b, "read_b"]],
    );
    assert.equal(finished(wave, "read_b")?.status, "failed");
    await prompt(wave, a, "read my output");
    assert.equal(wave.permissions.length, 1);
    assert.match(
      JSON.stringify(finished(wave, "read_a")?.content),
      /A-OUTPUT-20000/,
    );

    // Both models call their commands "same": each session is shown its
    // own command's output, and b's does not end a's.
    mock.script(
      callStep("same", "Bash", {
        command: "for i in 1 2 3 4; do echo A-LINE-$i; sleep 0.3; done",
      }),
      callStep("same", "Bash", { command: "echo B-LINE; sleep 0.3" }),
      textStep("b ok"),
      textStep("a ok"),
    );
    const aRuns = prompt(wave, a, "run a");
    await waitUntil(
      () =>
        wave.updates.some((n) =>
          n.sessionId === a && n.update.sessionUpdate === "tool_call" &&
          n.update.toolCallId === "same"
        ),
      "a's command to start",
    );
    await prompt(wave, b, "run b");
    await aRuns;
    const shown = (sessionId: string) =>
      JSON.stringify(
        wave.updates.filter((n) =>
          n.sessionId === sessionId &&
          n.update.sessionUpdate === "tool_call_update" &&
          n.update.toolCallId === "same"
        ),
      );
    assert.doesNotMatch(shown(b), /A-LINE/);
    assert.match(shown(b), /B-LINE/);
    assert.match(shown(a), /A-LINE-4/);
    assert.doesNotMatch(shown(a), /B-LINE/);

    // Two loads of one id at once: one opens it, the other is refused.
    const load = () =>
      wave.agent.request(acp.methods.agent.session.load, {
        sessionId: a,
        cwd: wave.workspace,
        mcpServers: [],
      });
    const c = await open();
    mock.script(textStep("c"));
    await prompt(wave, c, "hello");
    // a is open; c is open too: loads of a closed one race instead.
    const closed = crypto.randomUUID();
    await Deno.copyFile(
      `${wave.waveHome}/sessions/${c}.jsonl`,
      `${wave.waveHome}/sessions/${closed}.jsonl`,
    );
    const loads = await Promise.allSettled(
      [0, 1].map(() =>
        wave.agent.request(acp.methods.agent.session.load, {
          sessionId: closed,
          cwd: wave.workspace,
          mcpServers: [],
        })
      ),
    );
    assert.deepEqual(loads.map((l) => l.status).sort(), [
      "fulfilled",
      "rejected",
    ]);
    const refused = loads.find((l) => l.status === "rejected");
    assert.match(
      String((refused as PromiseRejectedResult).reason?.message),
      new RegExp(`session ${closed} is already open in this wave`),
    );
    await assert.rejects(load(), /is already open in this wave/);

    // A cwd is absolute, and not wave's own state.
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.new, {
        cwd: ".",
        mcpServers: [],
      }),
      /the session's cwd must be an absolute path, not "\."/,
    );
    for (const cwd of [wave.waveHome, `${wave.waveHome}/sessions`]) {
      await assert.rejects(
        wave.agent.request(acp.methods.agent.session.new, {
          cwd,
          mcpServers: [],
        }),
        /is inside wave's own state directory \(WAVE_HOME /,
        cwd,
      );
    }
  });
});

/**
 * Runs `fn` with another `wave acp` on `wave`'s WAVE_HOME and workspace,
 * initialized, and ends that one after.
 */
async function withOtherWave<T>(
  wave: AcpSession,
  fn: (other: AcpSession) => Promise<T>,
): Promise<T> {
  const other = await startAcp({
    waveHome: wave.waveHome,
    workspace: wave.workspace,
  });
  try {
    await other.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    return await fn(other);
  } finally {
    await other.close();
  }
}

/** Asserts that `client`'s wave may not resume `sessionId`: another wave process has it open. */
async function assertOpenElsewhere(
  client: AcpSession,
  sessionId: string,
): Promise<void> {
  await assert.rejects(
    client.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: client.workspace,
      mcpServers: [],
    }),
    {
      message:
        `session ${sessionId} is open in another wave process; resume it once that one has ended`,
    },
  );
}

/** The session's spill directories under WAVE_HOME (one per workspace core it was opened on). */
function spillDirsOf(waveHome: string, sessionId: string): string[] {
  const dirs: string[] = [];
  for (const core of Deno.readDirSync(`${waveHome}/spill`)) {
    try {
      Deno.statSync(`${waveHome}/spill/${core.name}/${sessionId}`);
      dirs.push(`${waveHome}/spill/${core.name}/${sessionId}`);
    } catch { /* not this core's */ }
  }
  return dirs;
}

Deno.test("wave acp: session/close cancels the session's turn (its prompt answered first), ends its MCP server, its commands and the processes made ahead for them, lets its transcript go, and session/resume goes on from it without a replay", async () => {
  const tag = `close${crypto.randomUUID().slice(0, 8)}`;
  const serverArgs = echoServerArgs(tag);
  const server = [Deno.execPath(), ...serverArgs].join(" ");
  const waveHome = await tempDir({ prefix: "wave-home-" });
  await withAcp({ waveHome }, async (wave, mock) => {
    await wave.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await wave.agent.request(
      acp.methods.agent.session.new,
      {
        cwd: wave.workspace,
        mcpServers: [{
          name: "echo",
          command: Deno.execPath(),
          args: serverArgs,
          env: [{ name: "DENO_DIR", value: DENO_DIR }],
        }],
      },
    );
    assert.equal((await processesStarted(server)).length, 1);
    assert.equal(spillDirsOf(waveHome, sessionId).length, 1);
    // While it waited for a prompt, its first commands' processes were
    // made (under bubblewrap each binds the session's spill directory).
    const ahead = await waitUntil(
      () => {
        const found = processesPreparedBy(wave.child.pid);
        return found.length === 2 && found;
      },
      "two processes made ahead for the session's commands",
    );
    for (const { cmdline } of ahead) {
      if (cmdline.includes("bwrap")) {
        assert.ok(cmdline.includes(`/${sessionId} `), cmdline);
      }
    }
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.25`;
    mock.script(callStep("long_1", "Bash", {
      command: `echo begun; sleep ${marker}`,
    }));
    const order: string[] = [];
    const answer = prompt(wave, sessionId, "wait a while").then((a) => {
      order.push("prompt");
      return a;
    });
    await processesStarted(`sleep ${marker}`);
    await wave.waitForUpdate(
      (u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "in_progress",
      "the command's output",
    );
    const closed = await within(
      wave.agent.request(acp.methods.agent.session.close, { sessionId }),
      10_000,
      "session/close",
    );
    order.push("close");
    assert.deepEqual(closed, {});
    assert.deepEqual(await answer, { stopReason: "cancelled" });
    assert.deepEqual(order, ["prompt", "close"]);
    assert.equal(finished(wave, "long_1")?.status, "failed");
    assert.deepEqual(await processesLeft(`sleep ${marker}`, 5000), []);
    assert.deepEqual(await processesLeft(server, 5000), []);
    await waitUntil(
      () => processesPreparedBy(wave.child.pid).length === 0,
      "the processes made ahead for its commands killed",
    );
    // Nothing was spilled into it: its directory is gone.
    assert.deepEqual(spillDirsOf(waveHome, sessionId), []);
    await assert.rejects(prompt(wave, sessionId, "still there?"), {
      message:
        `no session ${sessionId} is open in this wave; start one with session/new, or open it with session/load or session/resume`,
    });
    // Closing what is not open succeeds, as ACP asks.
    assert.deepEqual(
      await wave.agent.request(acp.methods.agent.session.close, { sessionId }),
      {},
    );

    // Its transcript is no longer held: another wave resumes it (and,
    // meanwhile, this one cannot).
    const other = await withOtherWave(wave, async (other) => {
      const resumed = await other.agent.request(
        acp.methods.agent.session.resume,
        { sessionId, cwd: wave.workspace, mcpServers: [] },
      );
      assert.equal(resumed.modes?.currentModeId, "agent");
      await assertOpenElsewhere(wave, sessionId);
      return other;
    });
    assert.deepEqual(other.updates, []);

    // Resumed here: no replay, and the model is given the history.
    const before = wave.updates.length;
    await wave.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: wave.workspace,
      mcpServers: [],
    });
    mock.script(textStep("Back."));
    assert.deepEqual(await prompt(wave, sessionId, "and now?"), {
      stopReason: "end_turn",
    });
    assert.deepEqual(
      wave.updates.slice(before).map((n) => [
        n.sessionId,
        n.update.sessionUpdate,
      ]),
      [[sessionId, "agent_message_chunk"]],
    );
    // The prompt, the call, then the call's interrupted result beside
    // the new prompt.
    const messages = mock.requests.at(-1)!.body.messages as {
      role: string;
      content: { type: string; tool_use_id?: string; text?: string }[];
    }[];
    assert.deepEqual(messages.map((m) => m.role), [
      "user",
      "assistant",
      "user",
    ]);
    assert.deepEqual(
      messages[2].content.map((b) => b.tool_use_id ?? b.text),
      ["long_1", "and now?"],
    );
    await assert.rejects(
      wave.agent.request(acp.methods.agent.session.resume, {
        sessionId: "no-such-session",
        cwd: wave.workspace,
        mcpServers: [],
      }),
      /there is no session no-such-session to resume/,
    );
  });
});

Deno.test("wave acp: session/close against what comes meanwhile: a second close answers once the first has let go, a resume waits for it and then holds the transcript, and a session closed as soon as it opened leaves no process made ahead", async () => {
  const waveHome = await tempDir({ prefix: "wave-home-" });
  await withAcp({ waveHome }, async (wave, mock) => {
    const other = await newSession(wave);
    const { sessionId } = await wave.agent.request(
      acp.methods.agent.session.new,
      { cwd: wave.workspace, mcpServers: [] },
    );
    // The other session's command holds the write queue; this session's
    // waits behind it, and its turn takes a while to end once interrupted.
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.5`;
    mock.script(callStep("holder", "Bash", { command: `sleep ${marker}` }));
    const held = prompt(wave, other, "hold the queue");
    await processesStarted(`sleep ${marker}`);
    mock.script(callStep("queued", "Bash", { command: "echo queued" }));
    const answer = prompt(wave, sessionId, "wait");
    await wave.waitForUpdate(
      (u) => u.sessionUpdate === "tool_call" && u.toolCallId === "queued",
      "the queued call",
    );
    const order: string[] = [];
    const first = wave.agent.request(acp.methods.agent.session.close, {
      sessionId,
    }).then(() => order.push("close"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = wave.agent.request(acp.methods.agent.session.close, {
      sessionId,
    }).then(() => order.push("second close"));
    const resumed = wave.agent.request(acp.methods.agent.session.resume, {
      sessionId,
      cwd: wave.workspace,
      mcpServers: [],
    }).then(() => order.push("resume"));
    await within(Promise.all([first, second, resumed]), 10_000, "the three");
    assert.deepEqual(order, ["close", "second close", "resume"]);
    assert.deepEqual(await answer, { stopReason: "cancelled" });
    await wave.agent.notify(acp.methods.agent.session.cancel, {
      sessionId: other,
    });
    assert.deepEqual(await held, { stopReason: "cancelled" });
    // The resumed session holds its transcript: no other wave takes it.
    await withOtherWave(wave, (other) => assertOpenElsewhere(other, sessionId));
    mock.script(textStep("Here."));
    assert.deepEqual(await prompt(wave, sessionId, "still here?"), {
      stopReason: "end_turn",
    });
    for (const id of [sessionId, other]) {
      await wave.agent.request(acp.methods.agent.session.close, {
        sessionId: id,
      });
    }

    // Opened and closed at once, three times: what was being made ahead
    // for each is never started.
    for (let i = 0; i < 3; i++) {
      const { sessionId: id } = await wave.agent.request(
        acp.methods.agent.session.new,
        { cwd: wave.workspace, mcpServers: [] },
      );
      await wave.agent.request(acp.methods.agent.session.close, {
        sessionId: id,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(processesPreparedBy(wave.child.pid), []);
  });
});
