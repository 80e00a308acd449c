/**
 * Issue 16: wave as a drop-in for Claude Code under the real Claude Agent
 * SDK (`query()` with `pathToClaudeCodeExecutable` naming bin/wave),
 * against the mock Anthropic server.
 */

import assert from "node:assert/strict";
import {
  createSdkMcpServer,
  query,
  type SDKMessage,
  tool,
} from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { ROOT } from "../_wave.ts";
import {
  callStep,
  initOf,
  ofType,
  openPrompt,
  resultsOf,
  SdkSession,
  textStep,
  toolResults,
} from "../_claude_sdk.ts";
import { tempDir } from "../_temp.ts";

Deno.test("claude sdk: a plain turn: init, the reply, a success result with every field the SDK declares", async () => {
  const s = await SdkSession.open();
  try {
    s.script({
      reply: [{ type: "text", text: "Hello from wave." }],
      usage: { input: 1000, output: 200 },
    });
    const messages = await s.run("Say hello.");
    const init = initOf(messages);
    assert.equal(init.cwd, s.workspace);
    assert.equal(init.permissionMode, "default");
    assert.equal(init.model, "anthropic:claude-sonnet-5-5");
    assert.deepEqual(init.mcp_servers, []);
    assert.deepEqual(init.slash_commands, []);
    assert.equal(init.apiKeySource, "ANTHROPIC_API_KEY");
    assert.ok(init.tools.includes("Bash"));
    const [assistant] = ofType(messages, "assistant");
    assert.equal(assistant.parent_tool_use_id, null);
    assert.match(assistant.uuid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(assistant.message.content, [{
      type: "text",
      text: "Hello from wave.",
    }]);
    const [result] = resultsOf(messages);
    assert.equal(result.subtype, "success");
    assert.equal(result.is_error, false);
    if (result.subtype !== "success") return;
    assert.equal(result.result, "Hello from wave.");
    assert.deepEqual((result as { errors?: string[] }).errors, []);
    assert.equal(result.num_turns, 1);
    assert.equal(result.usage.input_tokens, 1000);
    assert.equal(result.usage.output_tokens, 200);
    // claude-sonnet-5-5 at $3 / $15 per million tokens.
    assert.equal(result.total_cost_usd, (1000 * 3 + 200 * 15) / 1e6);
    assert.equal(
      result.modelUsage["claude-sonnet-5-5"].costUSD,
      result.total_cost_usd,
    );
    assert.deepEqual(result.permission_denials, []);
    assert.equal(result.stop_reason, "end_turn");
    assert.equal(typeof result.duration_api_ms, "number");
    // The request carried wave's system prompt and the tools.
    const body = s.model.requests[0].body;
    assert.equal(body.model, "claude-sonnet-5-5");
    assert.ok(
      (body.tools as { name: string }[]).some((t) => t.name === "Read"),
    );
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: tools run, and their results come back as user messages the SDK reads", async () => {
  const s = await SdkSession.open({ "notes.txt": "alpha\nbeta\n" });
  try {
    s.script(
      callStep("toolu_1", "Read", { file_path: "notes.txt" }),
      textStep("It says alpha and beta."),
    );
    const messages = await s.run("What is in notes.txt?");
    const users = ofType(messages, "user");
    assert.equal(users.length, 1);
    assert.equal(users[0].parent_tool_use_id, null);
    const block = (users[0].message.content as {
      type: string;
      tool_use_id: string;
      content: string;
    }[])[0];
    assert.equal(block.type, "tool_result");
    assert.equal(block.tool_use_id, "toolu_1");
    assert.match(block.content, /alpha/);
    const [result] = resultsOf(messages);
    assert.equal(result.subtype, "success");
    assert.equal(result.num_turns, 2);
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: canUseTool is asked before a write in default mode, with the fields the SDK reads; allow, deny and updatedInput", async () => {
  const s = await SdkSession.open();
  try {
    const asked: {
      tool: string;
      input: Record<string, unknown>;
      options: Record<string, unknown>;
    }[] = [];
    s.script(
      callStep("toolu_w1", "Write", { file_path: "a.txt", content: "first\n" }),
      callStep("toolu_w2", "Write", {
        file_path: "b.txt",
        content: "second\n",
      }),
      callStep("toolu_w3", "Write", {
        file_path: "c.txt",
        content: "model's\n",
      }),
      textStep("done"),
    );
    const messages = await s.run("Write three files.", {
      canUseTool: (tool, input, options) => {
        asked.push({
          tool,
          input,
          options: options as unknown as Record<string, unknown>,
        });
        if (input.file_path === "b.txt") {
          return Promise.resolve({ behavior: "deny", message: "not b" });
        }
        if (input.file_path === "c.txt") {
          return Promise.resolve({
            behavior: "allow",
            updatedInput: { ...input, content: "the parent's\n" },
          });
        }
        return Promise.resolve({ behavior: "allow", updatedInput: input });
      },
    });
    assert.deepEqual(asked.map((a) => a.input.file_path), [
      "a.txt",
      "b.txt",
      "c.txt",
    ]);
    assert.equal(asked[0].tool, "Write");
    assert.equal(asked[0].options.toolUseID, "toolu_w1");
    assert.match(
      String(asked[0].options.decisionReason),
      /Write changes a\.txt/,
    );
    assert.ok(Array.isArray(asked[0].options.suggestions));
    assert.equal(await Deno.readTextFile(`${s.workspace}/a.txt`), "first\n");
    await assert.rejects(
      Deno.stat(`${s.workspace}/b.txt`),
      Deno.errors.NotFound,
    );
    assert.equal(
      await Deno.readTextFile(`${s.workspace}/c.txt`),
      "the parent's\n",
    );
    const [result] = resultsOf(messages);
    assert.equal(result.subtype, "success");
    assert.deepEqual(result.permission_denials, [{
      tool_name: "Write",
      tool_use_id: "toolu_w2",
      tool_input: { file_path: "b.txt", content: "second\n" },
    }]);
    const denied = toolResults(messages).map((r) => r.content).find((c) =>
      c.includes("not b")
    );
    assert.match(String(denied), /Write was denied by the user: not b/);
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: permission modes: acceptEdits lets edits go and asks before commands; bypassPermissions asks nothing; plan binds no writer", async () => {
  const s = await SdkSession.open();
  try {
    const asked: string[] = [];
    const canUseTool = (tool: string, input: Record<string, unknown>) => {
      asked.push(tool);
      return Promise.resolve({
        behavior: "allow" as const,
        updatedInput: input,
      });
    };
    s.script(
      callStep("t1", "Write", { file_path: "e.txt", content: "e\n" }),
      callStep("t2", "Bash", { command: "echo hi" }),
      textStep("ok"),
    );
    await s.run("acceptEdits", { permissionMode: "acceptEdits", canUseTool });
    assert.deepEqual(asked, ["Bash"]);
    assert.equal(await Deno.readTextFile(`${s.workspace}/e.txt`), "e\n");

    asked.length = 0;
    s.script(
      callStep("t3", "Write", { file_path: "f.txt", content: "f\n" }),
      callStep("t4", "Bash", { command: "echo hi" }),
      textStep("ok"),
    );
    const bypass = await s.run("bypass", {
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      canUseTool,
    });
    assert.deepEqual(asked, []);
    assert.equal(initOf(bypass).permissionMode, "bypassPermissions");
    assert.equal(await Deno.readTextFile(`${s.workspace}/f.txt`), "f\n");

    s.script(
      callStep("t5", "Write", { file_path: "g.txt", content: "g\n" }),
      textStep("ok"),
    );
    const plan = await s.run("plan", { permissionMode: "plan", canUseTool });
    assert.equal(initOf(plan).permissionMode, "plan");
    assert.ok(!initOf(plan).tools.includes("Write"));
    const [echo] = toolResults(plan);
    assert.equal(echo.is_error, true);
    assert.match(echo.content, /Write is not available in plan mode/);
    await assert.rejects(
      Deno.stat(`${s.workspace}/g.txt`),
      Deno.errors.NotFound,
    );
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: a PreToolUse hook blocks Bash, another rewrites Write's input; PostToolUse adds context", async () => {
  const s = await SdkSession.open();
  try {
    const seen: string[] = [];
    s.script(
      callStep("h1", "Bash", { command: "rm -rf ." }),
      callStep("h2", "Write", {
        file_path: "w.txt",
        content: "from the model\n",
      }),
      textStep("ok"),
    );
    const messages = await s.run("go", {
      permissionMode: "bypassPermissions",
      allowDangerouslySkipPermissions: true,
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [(input) => {
              seen.push(`pre:${(input as { tool_name: string }).tool_name}`);
              return Promise.resolve({
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  permissionDecision: "deny",
                  permissionDecisionReason: "no rm here",
                },
              });
            }],
          },
          {
            matcher: "Write",
            hooks: [(input) => {
              const tool = input as { tool_input: Record<string, unknown> };
              seen.push("pre:Write");
              return Promise.resolve({
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  updatedInput: {
                    ...tool.tool_input,
                    content: "from the hook\n",
                  },
                },
              });
            }],
          },
        ],
        PostToolUse: [{
          hooks: [(input) => {
            seen.push(`post:${(input as { tool_name: string }).tool_name}`);
            return Promise.resolve({
              hookSpecificOutput: {
                hookEventName: "PostToolUse",
                additionalContext: "remember to run the tests",
              },
            });
          }],
        }],
      },
    });
    assert.deepEqual(seen, ["pre:Bash", "pre:Write", "post:Write"]);
    assert.equal(
      await Deno.readTextFile(`${s.workspace}/w.txt`),
      "from the hook\n",
    );
    const results = toolResults(messages).map((r) => r.content);
    assert.match(results[0], /Bash was blocked by a hook: no rm here/);
    assert.match(results[1], /remember to run the tests/);
    const [result] = resultsOf(messages);
    assert.deepEqual(result.permission_denials.map((d) => d.tool_use_id), [
      "h1",
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: allowedTools run without asking, disallowedTools are not offered; systemPrompt and appendSystemPrompt reach the model", async () => {
  const s = await SdkSession.open();
  try {
    const asked: string[] = [];
    s.script(
      callStep("a1", "Bash", { command: "echo allowed" }),
      callStep("a2", "Bash", { command: "ls" }),
      textStep("ok"),
    );
    const messages = await s.run("go", {
      allowedTools: ["Bash(echo:*)"],
      disallowedTools: ["Grep"],
      systemPrompt: "You are a test harness.",
      canUseTool: (tool, input) => {
        asked.push(`${tool}:${input.command}`);
        return Promise.resolve({ behavior: "deny", message: "no" });
      },
    });
    assert.deepEqual(asked, ["Bash:ls"]);
    assert.ok(!initOf(messages).tools.includes("Grep"));
    const body = s.model.requests[0].body;
    assert.equal(body.system, "You are a test harness.");
    assert.ok(
      !(body.tools as { name: string }[]).some((t) => t.name === "Grep"),
    );

    s.script(textStep("ok"));
    await s.run("again", {
      systemPrompt: {
        type: "preset",
        preset: "claude_code",
        append: "Always answer in French.",
      },
    });
    const system = String(s.model.requests.at(-1)!.body.system);
    assert.match(system, /You are a coding agent/);
    assert.match(system, /Always answer in French\.$/);
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: max turns, an API error and an interrupt each end with an error result the SDK reads without throwing", async () => {
  const s = await SdkSession.open();
  try {
    s.script(
      callStep("m1", "Glob", { pattern: "*" }),
    );
    const maxTurns = resultsOf(await s.run("loop", { maxTurns: 1 }));
    assert.equal(maxTurns[0].subtype, "error_max_turns");
    assert.equal(maxTurns[0].is_error, true);
    assert.match(
      (maxTurns[0] as { errors: string[] }).errors[0],
      /--max-turns 1/,
    );

    s.script({
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "bad request" },
      },
    });
    const apiError = resultsOf(await s.run("fail"));
    assert.equal(apiError[0].subtype, "error_during_execution");
    assert.match(
      (apiError[0] as { errors: string[] }).errors[0],
      /the model API answered 400: bad request/,
    );

    s.script({
      hang: [{ type: "text", text: "thinking about it" }],
      events: 3,
    });
    const prompt = openPrompt("take your time");
    const q = query({ prompt: prompt.messages, options: s.options() });
    const messages: SDKMessage[] = [];
    const reading = (async () => {
      for await (const m of q) {
        messages.push(m);
        if (m.type === "result") prompt.end();
      }
    })();
    await s.model.hanging;
    await q.interrupt();
    await reading;
    const [interrupted] = resultsOf(messages);
    assert.equal(interrupted.subtype, "error_during_execution");
    assert.equal(interrupted.is_error, true);
    assert.match(
      (interrupted as { errors: string[] }).errors[0],
      /\[Request interrupted by user\]/,
    );
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: resume continues a session with its history; the control methods answer", async () => {
  const s = await SdkSession.open();
  try {
    s.script(textStep("The word is kiwi."));
    const first = await s.run("Remember the word kiwi.");
    const sessionId = initOf(first).session_id;
    s.script(textStep("kiwi"));
    const second = await s.run("What was the word?", { resume: sessionId });
    assert.equal(initOf(second).session_id, sessionId);
    const messages = s.model.requests.at(-1)!.body.messages as {
      role: string;
    }[];
    assert.equal(messages.length, 3);
    assert.equal(resultsOf(second)[0].subtype, "success");

    s.script(
      textStep("hi"),
      callStep("pm1", "Write", {
        file_path: "mode.txt",
        content: "accepted\n",
      }),
      textStep("again"),
    );
    const asked: string[] = [];
    const prompt = openPrompt("hello");
    const q = query({
      prompt: prompt.messages,
      options: s.options({
        canUseTool: (tool, input) => {
          asked.push(tool);
          return Promise.resolve({ behavior: "allow", updatedInput: input });
        },
      }),
    });
    const init = await q.initializationResult();
    assert.deepEqual(init.commands, []);
    assert.deepEqual(await q.supportedCommands(), []);
    const models = await q.supportedModels();
    assert.ok(models.some((m) => m.value === "sonnet"));
    await q.setPermissionMode("acceptEdits");
    await q.setModel("claude-haiku-5-5");
    await q.setMaxThinkingTokens(1024);
    let results = 0;
    for await (const m of q) {
      if (m.type === "result" && ++results === 1) prompt.send("and again");
      if (results === 2) prompt.end();
    }
    // The second turn went to the model set_model named, in acceptEdits:
    // the write was not asked about.
    assert.equal(s.model.requests.at(-1)!.body.model, "claude-haiku-5-5");
    assert.deepEqual(s.model.requests.at(-1)!.body.thinking, {
      type: "enabled",
      budget_tokens: 1024,
    });
    assert.deepEqual(asked, []);
    assert.equal(
      await Deno.readTextFile(`${s.workspace}/mode.txt`),
      "accepted\n",
    );
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: partial messages stream the reply's raw events as stream_event", async () => {
  const s = await SdkSession.open();
  try {
    s.script(textStep("streamed words"));
    const messages = await s.run("stream", { includePartialMessages: true });
    const events = ofType(messages, "stream_event").map((m) => m.event.type);
    assert.equal(events[0], "message_start");
    assert.ok(events.includes("content_block_delta"));
    assert.equal(events.at(-1), "message_stop");
    const text = ofType(messages, "stream_event").flatMap((m) =>
      m.event.type === "content_block_delta" &&
        m.event.delta.type === "text_delta"
        ? [m.event.delta.text]
        : []
    ).join("");
    assert.equal(text, "streamed words");
    // The events come before the whole reply.
    const firstEvent = messages.findIndex((m) => m.type === "stream_event");
    const reply = messages.findIndex((m) => m.type === "assistant");
    assert.ok(firstEvent < reply);
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: structured output, the budget, the fallback model, a forked session, no persistence, another directory, a debug file", async () => {
  const s = await SdkSession.open();
  const extra = await Deno.realPath(await tempDir());
  try {
    // outputFormat: the model answers through StructuredOutput.
    s.script(
      callStep("so1", "StructuredOutput", { answer: "four" }),
      callStep("so2", "StructuredOutput", { answer: 4 }),
    );
    const structured = resultsOf(
      await s.run("2+2?", {
        outputFormat: {
          type: "json_schema",
          schema: {
            type: "object",
            properties: { answer: { type: "number" } },
            required: ["answer"],
          },
        },
      }),
    );
    assert.equal(structured[0].subtype, "success");
    assert.deepEqual(
      (structured[0] as { structured_output?: unknown }).structured_output,
      { answer: 4 },
    );

    // maxBudgetUsd: 1M output tokens of Sonnet cost $15, over a $1 budget.
    s.script({
      ...callStep("b1", "Glob", { pattern: "*" }),
      usage: { input: 10, output: 1_000_000 },
    });
    const budget = resultsOf(await s.run("spend", { maxBudgetUsd: 1 }));
    assert.equal(budget[0].subtype, "error_max_budget_usd");
    assert.equal(budget[0].total_cost_usd, (10 * 3 + 1_000_000 * 15) / 1e6);

    // fallbackModel: the first model is overloaded, the fallback answers.
    s.script(
      {
        status: 529,
        body: {
          type: "error",
          error: { type: "overloaded_error", message: "overloaded" },
        },
      },
      {
        status: 529,
        body: {
          type: "error",
          error: { type: "overloaded_error", message: "overloaded" },
        },
      },
      {
        status: 529,
        body: {
          type: "error",
          error: { type: "overloaded_error", message: "overloaded" },
        },
      },
      {
        status: 529,
        body: {
          type: "error",
          error: { type: "overloaded_error", message: "overloaded" },
        },
      },
      textStep("from the fallback"),
    );
    const fallback = await s.run("hi", { fallbackModel: "claude-haiku-5-5" });
    assert.equal(resultsOf(fallback)[0].subtype, "success");
    assert.equal(s.model.requests.at(-1)!.body.model, "claude-haiku-5-5");
    assert.ok(
      ofType(fallback, "system").some((m) =>
        (m as { subtype: string; message?: string }).subtype === "warning" &&
        /fallback model anthropic:claude-haiku-5-5/.test(
          String((m as { message?: string }).message),
        )
      ),
    );

    // forkSession: a new id, the old history.
    s.script(textStep("noted"));
    const original = initOf(await s.run("The colour is teal.")).session_id;
    s.script(textStep("teal"));
    const forked = await s.run("Which colour?", {
      resume: original,
      forkSession: true,
    });
    assert.notEqual(initOf(forked).session_id, original);
    assert.equal(
      (s.model.requests.at(-1)!.body.messages as unknown[]).length,
      3,
    );

    // persistSession: false writes no transcript.
    s.script(textStep("gone"));
    const ephemeral =
      initOf(await s.run("forget me", { persistSession: false })).session_id;
    await assert.rejects(
      Deno.stat(`${s.waveHome}/sessions/${ephemeral}.jsonl`),
      Deno.errors.NotFound,
    );

    // additionalDirectories: read there without an approval; debugFile gets wave's log.
    await Deno.writeTextFile(`${extra}/shared.txt`, "shared\n");
    const debugFile = `${s.workspace}/../wave-debug-${crypto.randomUUID()}.log`;
    s.script(
      callStep("d1", "Read", { file_path: `${extra}/shared.txt` }),
      callStep("d2", "Bash", { command: `echo made > ${extra}/made.txt` }),
      textStep("read it"),
    );
    const added = await s.run("read the shared file", {
      additionalDirectories: [extra],
      debugFile,
      permissionMode: "dontAsk",
      allowedTools: ["Bash"],
    });
    const [read, made] = toolResults(added);
    assert.equal(read.is_error, false, read.content);
    assert.match(read.content, /shared/);
    // Commands may write there too, in their sandbox as in the workspace.
    assert.equal(made.is_error, false, made.content);
    assert.equal(await Deno.readTextFile(`${extra}/made.txt`), "made\n");
    assert.ok((await Deno.stat(debugFile)).isFile);
    await Deno.remove(debugFile);
  } finally {
    await Deno.remove(extra, { recursive: true });
    await s.close();
  }
});

Deno.test("claude sdk: UserPromptSubmit adds context and Stop makes the model go on; agents are refused in the answer; updatedPermissions add a rule; the thinking budget reaches the model", async () => {
  const s = await SdkSession.open();
  try {
    const events: string[] = [];
    s.script(
      textStep("first stop"),
      textStep("second stop"),
    );
    const prompt = openPrompt("hello");
    const q = query({
      prompt: prompt.messages,
      options: s.options({
        maxThinkingTokens: 4096,
        agents: {
          reviewer: { description: "reviews", prompt: "Review the code." },
        },
        hooks: {
          UserPromptSubmit: [{
            hooks: [(input) => {
              events.push(`prompt:${(input as { prompt: string }).prompt}`);
              return Promise.resolve({
                hookSpecificOutput: {
                  hookEventName: "UserPromptSubmit",
                  additionalContext: "The user's name is Ada.",
                },
              });
            }],
          }],
          Stop: [{
            hooks: [(input) => {
              const active =
                (input as { stop_hook_active: boolean }).stop_hook_active;
              events.push(`stop:${active}`);
              return Promise.resolve(
                active
                  ? {}
                  : { decision: "block", reason: "Check your work once more." },
              );
            }],
          }],
        },
      }),
    });
    const init = await q.initializationResult() as unknown as {
      warnings: string[];
    };
    assert.deepEqual(init.warnings, [
      "wave cannot run subagents yet, so the agents reviewer were not registered",
    ]);
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "result") prompt.end();
    }
    assert.deepEqual(events, ["prompt:hello", "stop:false", "stop:true"]);
    assert.equal(resultsOf(messages)[0].subtype, "success");
    assert.equal(
      (resultsOf(messages)[0] as { result: string }).result,
      "second stop",
    );
    const [first, second] = s.model.requests.map((r) => r.body);
    assert.match(JSON.stringify(first.messages), /The user's name is Ada\./);
    assert.match(
      JSON.stringify(second.messages),
      /Check your work once more\./,
    );
    assert.deepEqual(first.thinking, { type: "enabled", budget_tokens: 4096 });

    // Thinking comes back to the model before its tool results, unchanged.
    s.script(
      {
        reply: [
          { type: "thinking", thinking: "Let me look.", signature: "sig-1" },
          {
            type: "tool_use",
            id: "th1",
            name: "Glob",
            input: { pattern: "*" },
          },
        ],
      },
      textStep("looked"),
    );
    const thought = await s.run("look", { maxThinkingTokens: 2048 });
    assert.deepEqual(
      (ofType(thought, "assistant")[0].message.content as { type: string }[])[
        0
      ],
      { type: "thinking", thinking: "Let me look.", signature: "sig-1" },
    );
    const sent = s.model.requests.at(-1)!.body.messages as {
      role: string;
      content: { type: string }[];
    }[];
    assert.deepEqual(sent.at(-2)!.content[0], {
      type: "thinking",
      thinking: "Let me look.",
      signature: "sig-1",
    });

    // updatedPermissions: the parent's rule lets the next echo run unasked.
    const asked: string[] = [];
    s.script(
      callStep("u1", "Bash", { command: "echo one" }),
      callStep("u2", "Bash", { command: "echo two" }),
      textStep("ok"),
    );
    await s.run("echo twice", {
      canUseTool: (_tool, input, { suggestions }) => {
        asked.push(String(input.command));
        return Promise.resolve({
          behavior: "allow",
          updatedInput: input,
          updatedPermissions: suggestions,
        });
      },
    });
    assert.deepEqual(asked, ["echo one"]);
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: when wave stops waiting for canUseTool (its approval timeout), control_cancel_request aborts the callback's signal", async () => {
  const s = await SdkSession.open();
  try {
    s.script(
      callStep("c1", "Write", { file_path: "never.txt", content: "x\n" }),
      textStep("fine"),
    );
    const order: string[] = [];
    const messages: SDKMessage[] = [];
    for await (
      const m of query({
        prompt: "write it",
        options: s.options({
          extraArgs: { "approval-timeout": "1s" },
          canUseTool: (_tool, _input, { signal }) =>
            new Promise((resolve) => {
              signal.addEventListener("abort", () => {
                order.push("aborted");
                resolve({ behavior: "deny", message: "cancelled" });
              });
            }),
        }),
      })
    ) {
      messages.push(m);
      if (m.type === "result") order.push("result");
    }
    // Cancelled while the turn went on, not when the session closed.
    assert.deepEqual(order, ["aborted", "result"]);
    const [denied] = toolResults(messages).map((r) => r.content);
    assert.match(denied, /did not answer the approval request within 1 s/);
    await assert.rejects(
      Deno.stat(`${s.workspace}/never.txt`),
      Deno.errors.NotFound,
    );
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: an external stdio MCP server's tool is offered as mcp__<server>__<tool>, the model calls it, and mcpServerStatus() reports it; a write tool asks first", async () => {
  const s = await SdkSession.open();
  try {
    const asked: string[] = [];
    s.script(
      callStep("x1", "mcp__echo__echo", { text: "over MCP" }),
      callStep("x2", "mcp__echo__write_note", { name: "note.txt", text: "hi" }),
      textStep("done"),
    );
    const prompt = openPrompt("use the echo server");
    const q = query({
      prompt: prompt.messages,
      options: s.options({
        mcpServers: {
          echo: {
            type: "stdio",
            command: Deno.execPath(),
            args: ["run", "-A", `${ROOT}tests/fixtures/mcp_echo_server.ts`],
          },
          broken: { type: "stdio", command: "/nonexistent/server" },
        },
        canUseTool: (tool) => {
          asked.push(tool);
          return Promise.resolve({ behavior: "deny", message: "not now" });
        },
      }),
    });
    const messages: SDKMessage[] = [];
    let status: Awaited<ReturnType<typeof q.mcpServerStatus>> = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "result") {
        status = await q.mcpServerStatus();
        prompt.end();
      }
    }
    const init = initOf(messages);
    assert.deepEqual(
      init.mcp_servers.map(({ name, status }) => ({ name, status })).sort((
        a,
        b,
      ) => a.name.localeCompare(b.name)),
      [{ name: "broken", status: "failed" }, {
        name: "echo",
        status: "connected",
      }],
    );
    assert.ok(init.tools.includes("mcp__echo__echo"));
    const [echoed, refused] = toolResults(messages);
    assert.equal(echoed.is_error, false);
    assert.match(JSON.stringify(echoed.content), /echo: over MCP/);
    // write_note is no read-only tool: default mode asks before it.
    assert.deepEqual(asked, ["mcp__echo__write_note"]);
    assert.match(JSON.stringify(refused.content), /not now/);
    const echo = status.find((server) => server.name === "echo");
    assert.equal(echo?.status, "connected");
    assert.ok(echo?.tools?.some((t) => t.name === "echo"));
  } finally {
    await s.close();
  }
});

Deno.test("claude sdk: an in-process SDK MCP server (createSdkMcpServer) is reached through mcp_message", async () => {
  const s = await SdkSession.open();
  try {
    let called = "";
    const server = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool(
          "add",
          "Adds two numbers.",
          { a: z.number(), b: z.number() },
          (args) => {
            called = `${args.a}+${args.b}`;
            return Promise.resolve({
              content: [{ type: "text", text: String(args.a + args.b) }],
            });
          },
        ),
      ],
    });
    s.script(
      callStep("k1", "mcp__calc__add", { a: 2, b: 3 }),
      textStep("5"),
    );
    const prompt = openPrompt("add");
    const q = query({
      prompt: prompt.messages,
      options: s.options({
        mcpServers: { calc: server },
        allowedTools: ["mcp__calc"],
      }),
    });
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === "result") prompt.end();
    }
    assert.equal(called, "2+3");
    // The parent may hand its servers over in initialize instead of argv.
    s.script(
      callStep("k2", "mcp__echo__echo", { text: "via initialize" }),
      textStep("ok"),
    );
    const viaInitialize = await s.run("echo", {
      mcpServersDelivery: "initialize",
      allowedTools: ["mcp__echo"],
      mcpServers: {
        echo: {
          type: "stdio",
          command: Deno.execPath(),
          args: ["run", "-A", `${ROOT}tests/fixtures/mcp_echo_server.ts`],
        },
      },
    });
    // The init written once initialize connected them lists them.
    const inits = ofType(viaInitialize, "system", "init") as ReturnType<
      typeof initOf
    >[];
    assert.deepEqual(inits.at(-1)!.mcp_servers, [
      { name: "echo", status: "connected" },
    ]);
    assert.ok(inits.at(-1)!.tools.includes("mcp__echo__echo"));
    const [echoed] = toolResults(viaInitialize);
    assert.match(JSON.stringify(echoed.content), /echo: via initialize/);
    const [added] = toolResults(messages);
    assert.equal(added.is_error, false);
    assert.match(JSON.stringify(added.content), /"5"|5/);
    assert.equal(resultsOf(messages)[0].subtype, "success");
  } finally {
    await s.close();
  }
});
