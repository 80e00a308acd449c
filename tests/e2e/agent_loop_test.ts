/**
 * End-to-end: the agent loop against a mock model server on 127.0.0.1 that
 * speaks the real SSE formats of the Anthropic Messages API and OpenAI
 * Chat Completions.
 */

import assert from "node:assert/strict";
import { TINY_PNG } from "../_images.ts";
import { MOCK_KEY, MockModel, mockModelSession } from "../_mock_model.ts";
import { processesLeft, processesStarted } from "../_processes.ts";
import { type Message, startWave, type WaveProcess } from "../_wave.ts";
import { INTERRUPT_WITHIN_MS, WAIT_MS, within } from "../_waiting.ts";
import { tempDir } from "../_temp.ts";

async function withModel(
  provider: "anthropic" | "openai",
  fn: (wave: WaveProcess, mock: MockModel) => Promise<void>,
  options: { args?: string[]; waveHome?: string; workspace?: string } = {},
): Promise<void> {
  const mock = new MockModel();
  const wave = await startWave({
    ...mockModelSession(provider, mock, options.args),
    waveHome: options.waveHome,
    workspace: options.workspace,
  });
  try {
    await fn(wave, mock);
  } finally {
    await wave.kill();
    await mock.close();
  }
}

const userTurn = (wave: WaveProcess, text: string) =>
  wave.send({ type: "user", message: { role: "user", content: text } });

const resultOf = (wave: WaveProcess, nth = 1) => {
  let seen = 0;
  return wave.waitFor((m) => m.type === "result" && ++seen === nth, {
    timeoutMs: 30_000,
    what: `result number ${nth} (the end of turn ${nth})`,
  });
};

for (const provider of ["anthropic", "openai"] as const) {
  Deno.test(`loop (${provider}): multi-turn tool use, streamed and fed back`, () =>
    withModel(provider, async (wave, mock) => {
      await Deno.writeTextFile(`${wave.workspace}/hello.txt`, "hello world\n");
      mock.script(
        {
          reply: [
            { type: "text", text: "I will read the file first." },
            {
              type: "tool_use",
              id: "call_read_1",
              name: "Read",
              input: { file_path: "hello.txt" },
            },
          ],
        },
        {
          reply: [{
            type: "tool_use",
            id: "call_edit_1",
            name: "Edit",
            input: {
              file_path: "hello.txt",
              old_string: "world",
              new_string: "wave",
            },
          }],
        },
        {
          reply: [{
            type: "text",
            text: "Done: the greeting now says hello wave.",
          }],
          usage: { input: 300, output: 12 },
        },
      );
      await userTurn(wave, "Change world to wave in hello.txt");
      const result = await resultOf(wave);
      assert.equal(result.subtype, "success");
      assert.equal(result.is_error, false);
      assert.equal(result.num_turns, 3);
      assert.equal(result.result, "Done: the greeting now says hello wave.");
      assert.equal(result.usage.input_tokens, 500);
      assert.equal(result.usage.output_tokens, 52);
      assert.equal(
        await Deno.readTextFile(`${wave.workspace}/hello.txt`),
        "hello wave\n",
      );

      // The stream: assistant, user (tool result), assistant, user, assistant, result.
      const kinds = wave.messages.filter((m) =>
        ["assistant", "user", "result"].includes(m.type)
      ).map((m) => m.type);
      assert.deepEqual(kinds, [
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "result",
      ]);
      const first = wave.messages.find((m) => m.type === "assistant")!;
      assert.deepEqual(first.message.content, [
        { type: "text", text: "I will read the file first." },
        {
          type: "tool_use",
          id: "call_read_1",
          name: "Read",
          input: { file_path: "hello.txt" },
        },
      ]);
      assert.equal(first.message.stop_reason, "tool_use");
      assert.equal(first.message.model, "test-model");
      const toolResult = wave.messages.find((m) => m.type === "user")!;
      assert.equal(toolResult.message.content[0].tool_use_id, "call_read_1");
      assert.equal(
        toolResult.message.content[0].content,
        "     1\thello world",
      );
      assert.equal(toolResult.tool_use_result.type, "text");

      // What the model was sent: tools, system prompt, and the history with the tool result.
      assert.equal(mock.requests.length, 3);
      const body = mock.requests[1].body;
      if (provider === "anthropic") {
        assert.equal(mock.requests[0].path, "/v1/messages");
        const auth = mock.requests[0].headers.get("x-api-key") ??
          mock.requests[0].headers.get("authorization")?.replace(
            /^Bearer /,
            "",
          );
        assert.equal(auth, MOCK_KEY);

        assert.match(
          body.system as string,
          /Workspace: .*\nYou are in agent mode/,
        );
        // Offered exactly the tools bound in the session.
        const tools = (body.tools as { name: string }[]).map((t) => t.name);
        assert.deepEqual(tools, wave.messages[0].tools);
        const messages = body.messages as Message[];
        assert.deepEqual(messages[2].content, [
          {
            type: "tool_result",
            tool_use_id: "call_read_1",
            content: "     1\thello world",
            is_error: false,
          },
        ]);
      } else {
        assert.equal(mock.requests[0].path, "/v1/chat/completions");
        assert.equal(
          mock.requests[0].headers.get("authorization"),
          `Bearer ${MOCK_KEY}`,
        );
        const messages = body.messages as Message[];
        assert.equal(messages[0].role, "system");
        assert.deepEqual(messages[2], {
          role: "assistant",
          content: "I will read the file first.",
          tool_calls: [{
            id: "call_read_1",
            type: "function",
            function: {
              name: "Read",
              arguments: JSON.stringify({ file_path: "hello.txt" }),
            },
          }],
        });
        assert.deepEqual(messages[3], {
          role: "tool",
          tool_call_id: "call_read_1",
          content: "     1\thello world",
        });
        const tools = (body.tools as { function: { name: string } }[]).map((
          t,
        ) => t.function.name);
        assert.deepEqual(tools, wave.messages[0].tools);
      }
    }));

  Deno.test(`loop (${provider}): parallel tool calls in one reply all run, results in order`, () =>
    withModel(provider, async (wave, mock) => {
      await Deno.writeTextFile(`${wave.workspace}/a.txt`, "A\n");
      await Deno.writeTextFile(`${wave.workspace}/b.txt`, "B\n");
      mock.script(
        {
          reply: [
            {
              type: "tool_use",
              id: "t1",
              name: "Read",
              input: { file_path: "a.txt" },
            },
            {
              type: "tool_use",
              id: "t2",
              name: "Read",
              input: { file_path: "b.txt" },
            },
            {
              type: "tool_use",
              id: "t3",
              name: "Glob",
              input: { pattern: "*.txt" },
            },
            {
              type: "tool_use",
              id: "t4",
              name: "Read",
              input: { file_path: "missing.txt" },
            },
          ],
        },
        { reply: [{ type: "text", text: "read both" }] },
      );
      await userTurn(wave, "read a and b");
      const result = await resultOf(wave);
      assert.equal(result.subtype, "success");
      const results = wave.messages.filter((m) => m.type === "user").map((m) =>
        m.message.content[0]
      );
      assert.deepEqual(results.map((r) => r.tool_use_id), [
        "t1",
        "t2",
        "t3",
        "t4",
      ]);
      assert.equal(results[0].content, "     1\tA");
      assert.equal(results[1].content, "     1\tB");
      assert.equal(
        results[3].is_error,
        true,
        "a tool failure is a result for the model",
      );
      const sent = mock.requests[1].body.messages as Message[];
      if (provider === "anthropic") {
        assert.equal(
          (sent[2].content as unknown[]).length,
          4,
          "all results in one user message",
        );
      } else {
        assert.deepEqual(
          sent.slice(3).map((m) =>
            (m as unknown as { tool_call_id: string }).tool_call_id
          ),
          [
            "t1",
            "t2",
            "t3",
            "t4",
          ],
        );
      }
    }));
}

Deno.test("loop (openai): an image a tool returns reaches the model in a user message after the tool messages", () =>
  withModel("openai", async (wave, mock) => {
    await Deno.writeFile(`${wave.workspace}/dot.png`, TINY_PNG);
    await Deno.writeTextFile(`${wave.workspace}/a.txt`, "text\n");
    mock.script(
      {
        reply: [
          {
            type: "tool_use",
            id: "call_img",
            name: "Read",
            input: { file_path: "dot.png" },
          },
          {
            type: "tool_use",
            id: "call_txt",
            name: "Read",
            input: { file_path: "a.txt" },
          },
        ],
      },
      { reply: [{ type: "text", text: "A red dot." }] },
    );
    await userTurn(wave, "What is in dot.png?");
    assert.equal((await resultOf(wave)).result, "A red dot.");
    const messages = mock.requests[1].body.messages as {
      role: string;
      content: unknown;
      tool_call_id?: string;
    }[];
    assert.deepEqual(messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
    ]);
    const [image, text, attached] = messages.slice(3);
    assert.equal(image.tool_call_id, "call_img");
    assert.match(
      image.content as string,
      /\[image 1: attached in the next user message\]/,
    );
    assert.equal(text.tool_call_id, "call_txt");
    assert.equal(text.content, "     1\ttext");
    assert.deepEqual(attached.content, [
      { type: "text", text: "Image 1, from the result of call_img:" },
      {
        type: "image_url",
        image_url: {
          url: `data:image/png;base64,${
            btoa(String.fromCharCode(...TINY_PNG))
          }`,
        },
      },
    ]);
  }));

Deno.test("loop: a 429 is retried, honouring retry-after, then the turn succeeds", () =>
  withModel("anthropic", async (wave, mock) => {
    mock.script(
      { status: 429, headers: { "retry-after": "1" } },
      {
        status: 529,
        headers: { "retry-after-ms": "10" },
        body: {
          type: "error",
          error: { type: "overloaded_error", message: "overloaded" },
        },
      },
      { reply: [{ type: "text", text: "finally" }] },
    );
    const started = performance.now();
    await userTurn(wave, "hi");
    const result = await resultOf(wave);
    assert.equal(result.subtype, "success");
    assert.equal(result.result, "finally");
    assert.equal(mock.requests.length, 3);
    assert.ok(
      performance.now() - started >= 1000,
      "waited the second retry-after asked for",
    );
  }));

Deno.test("loop: a stream cut mid-reply is retried; cut every time, the turn ends with an actionable error", async () => {
  await withModel("anthropic", async (wave, mock) => {
    mock.script(
      {
        cut: [{ type: "tool_use", name: "Read", input: { file_path: "x" } }],
        events: 4,
      },
      { reply: [{ type: "text", text: "recovered" }] },
    );
    await userTurn(wave, "hi");
    const result = await resultOf(wave);
    assert.equal(result.subtype, "success");
    assert.equal(result.result, "recovered");
    // The cut reply was never shown as an assistant message.
    assert.equal(wave.messages.filter((m) => m.type === "assistant").length, 1);
  });
  await withModel("openai", async (wave, mock) => {
    const cut = {
      cut: [{ type: "text" as const, text: "partial answer that never ends" }],
      events: 3,
    };
    mock.script(cut, cut, cut);
    await userTurn(wave, "hi");
    const result = await resultOf(wave);
    assert.equal(result.subtype, "error_during_execution");
    assert.equal(result.is_error, true);
    assert.match(
      result.result,
      /the model's reply stream broke off: .* \(tried 3 times\); the turn was stopped, and sending the message again will retry it/,
    );
  });
});

Deno.test("loop: a model API error ends the turn with a message a parent can act on", () =>
  withModel("anthropic", async (wave, mock) => {
    mock.script({
      status: 401,
      body: {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    });
    await userTurn(wave, "hi");
    const result = await resultOf(wave);
    assert.equal(result.subtype, "error_during_execution");
    assert.match(
      result.result,
      /^the model API answered 401: invalid x-api-key\. Check the API key/,
    );
    // The session goes on: the next turn works.
    mock.script({ reply: [{ type: "text", text: "ok now" }] });
    await userTurn(wave, "again");
    const second = await resultOf(wave, 2);
    assert.equal(second.subtype, "success");
  }));

Deno.test("loop: interrupt mid-stream ends the turn with error_interrupted within 1 s", () =>
  withModel("anthropic", async (wave, mock) => {
    mock.script({ hang: [{ type: "text", text: "a long answer" }], events: 3 });
    await userTurn(wave, "hi");
    await within(
      mock.hanging,
      WAIT_MS,
      "the mock model's reply to stop mid-stream",
    );
    const started = performance.now();
    await wave.request({ subtype: "interrupt" });
    const result = await resultOf(wave);
    const took = performance.now() - started;
    // README: "interrupt ends a turn within a second".
    assert.ok(took < INTERRUPT_WITHIN_MS, `the interrupt took ${took} ms`);
    assert.equal(result.subtype, "error_interrupted");
    assert.equal(result.is_error, true);
  }));

Deno.test("loop: interrupt during a tool kills the command and ends the turn within 1 s", () =>
  withModel("openai", async (wave, mock) => {
    // A sleep no other test runs, found by its command line (also inside a sandbox's pid namespace).
    const sleep = `sleep 60.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
    mock.script({
      reply: [{
        type: "tool_use",
        id: "sleepy",
        name: "Bash",
        input: { command: `echo started; ${sleep}` },
      }],
    });
    await userTurn(wave, "wait");
    await wave.waitFor(
      (m) => m.subtype === "tool_progress" && m.text.includes("started"),
      { what: "the command's start (tool_progress 'started')" },
    );
    await processesStarted(sleep);
    const started = performance.now();
    await wave.request({ subtype: "interrupt" });
    const result = await resultOf(wave);
    const took = performance.now() - started;
    // README: "interrupt ends a turn within a second", killing running commands.
    assert.ok(took < INTERRUPT_WITHIN_MS, `the interrupt took ${took} ms`);
    assert.equal(result.subtype, "error_interrupted");
    assert.deepEqual(await processesLeft(sleep), [], "the command was killed");
    // The tool_use got its tool_result, so the conversation stays valid.
    const toolResult = wave.messages.find((m) => m.type === "user")!;
    assert.equal(toolResult.message.content[0].tool_use_id, "sleepy");
    assert.equal(toolResult.message.content[0].is_error, true);
  }));

Deno.test("loop: --max-turns stops a model that keeps calling tools", () =>
  withModel("anthropic", async (wave, mock) => {
    const again = {
      reply: [{
        type: "tool_use" as const,
        name: "Glob",
        input: { pattern: "*" },
      }],
    };
    mock.script(again, again, again, again);
    await userTurn(wave, "loop forever");
    const result = await resultOf(wave);
    assert.equal(result.subtype, "error_max_turns");
    assert.equal(result.is_error, true);
    assert.equal(result.num_turns, 2);
    assert.equal(mock.requests.length, 2);
    assert.match(
      result.result,
      /stopped after 2 model turns \(--max-turns 2\)/,
    );
  }, { args: ["--max-turns", "2"] }));

Deno.test("loop: API keys never reach a command's environment", () =>
  withModel("anthropic", async (wave, mock) => {
    mock.script(
      {
        reply: [{
          type: "tool_use",
          id: "env",
          name: "Bash",
          input: { command: "env; cat /proc/self/environ | tr '\\0' '\\n'" },
        }],
      },
      { reply: [{ type: "text", text: "checked" }] },
    );
    await userTurn(wave, "show env");
    await resultOf(wave);
    const result = wave.messages.find((m) => m.type === "user")!;
    const content = JSON.stringify(result);
    assert.ok(
      !content.includes(MOCK_KEY),
      "the API key leaked into the command",
    );
    assert.ok(!content.includes("ANTHROPIC_API_KEY"));
    assert.match(result.message.content[0].content, /PATH=/);
  }));

Deno.test("loop: transcripts record every message; --resume sends the history back to the model, in its own workspace, while no other wave has the session open", async () => {
  const { runWave } = await import("../_wave.ts");
  const waveHome = await tempDir();
  const workspace = await Deno.realPath(await tempDir());
  await Deno.writeTextFile(`${workspace}/f.txt`, "remember me\n");
  let sessionId = "";
  /** A second wave's --resume of the session while this one has it open. */
  const refusedWhileOpen = async () => {
    const meanwhile = await runWave(
      ["--workspace", workspace, "--resume", sessionId],
      "",
      { WAVE_HOME: waveHome },
    );
    assert.equal(meanwhile.code, 2);
    assert.equal(meanwhile.stdout, "");
    assert.equal(
      meanwhile.stderr,
      `wave: session ${sessionId} is open in another wave process; resume it once that one has ended, or fork it (--fork-session)\n`,
    );
  };
  await withModel("anthropic", async (wave, mock) => {
    sessionId = wave.messages[0].session_id;
    mock.script(
      {
        reply: [{
          type: "tool_use",
          id: "r1",
          name: "Read",
          input: { file_path: "f.txt" },
        }],
      },
      { reply: [{ type: "text", text: "It says: remember me." }] },
    );
    await userTurn(wave, "what does f.txt say?");
    await resultOf(wave);
    // Open here: another wave does not go on with it meanwhile (two
    // histories would interleave in one transcript).
    await refusedWhileOpen();
  }, { waveHome, workspace });

  const lines =
    (await Deno.readTextFile(`${waveHome}/sessions/${sessionId}.jsonl`)).trim()
      .split("\n");
  assert.deepEqual(lines.map((l) => JSON.parse(l).type), [
    "session",
    "user",
    "assistant",
    "user",
    "assistant",
    "result",
  ]);
  // A crash mid-write leaves half a line: resume skips it with a warning.
  await Deno.writeTextFile(
    `${waveHome}/sessions/${sessionId}.jsonl`,
    '{"type":"assistant","mess',
    { append: true },
  );

  await withModel("anthropic", async (wave, mock) => {
    assert.equal(wave.messages[0].session_id, sessionId);
    const warning = await wave.waitFor((m) => m.subtype === "warning");
    assert.match(
      warning.message,
      /line 7 is not a complete message \(a write cut short, most likely\); it was skipped/,
    );
    mock.script({
      reply: [{ type: "text", text: "You asked what f.txt says." }],
    });
    await userTurn(wave, "what did I ask before?");
    const result = await resultOf(wave);
    assert.equal(result.subtype, "success");
    const sent = mock.requests[0].body.messages as Message[];
    assert.equal(sent.length, 5);
    assert.equal(sent[0].content, "what does f.txt say?");
    assert.deepEqual(
      (sent[3].content as { text: string }[])[0].text,
      "It says: remember me.",
    );
    assert.equal(sent[4].content, "what did I ask before?");
    // Resumed here: held here too.
    await refusedWhileOpen();
  }, { waveHome, workspace, args: ["--resume", sessionId] });

  // Only in its own workspace (as ACP's session/load): its history names
  // that workspace's files, which another workspace's model would be given.
  const other = await Deno.realPath(await tempDir());
  const out = await runWave(
    ["--workspace", other, "--resume", sessionId],
    "",
    { WAVE_HOME: waveHome },
  );
  assert.equal(out.code, 2);
  assert.equal(out.stdout, "");
  assert.equal(
    out.stderr,
    `wave: session ${sessionId} is a session of ${workspace}, not of ${other}; resume it with --workspace ${workspace} (see wave --help)\n`,
  );
});

Deno.test("loop: user turns sent while one runs wait their turn; each gets one result", () =>
  withModel("anthropic", async (wave, mock) => {
    mock.script(
      { reply: [{ type: "text", text: "first" }] },
      { reply: [{ type: "text", text: "second" }] },
    );
    await userTurn(wave, "one");
    await userTurn(wave, "two");
    const a = await resultOf(wave, 1);
    const b = await resultOf(wave, 2);
    assert.deepEqual([a.result, b.result], ["first", "second"]);
    const second = mock.requests[1].body.messages as Message[];
    assert.deepEqual(second.map((m) => m.role), ["user", "assistant", "user"]);
  }));

Deno.test("CLI: bad --model choices exit 2 with one line", async () => {
  const { runWave } = await import("../_wave.ts");
  const cases: [string[], Record<string, string>, RegExp][] = [
    [
      ["--model", "google:gemini"],
      {},
      /--model must be a Claude model name, or PROVIDER:NAME/,
    ],
    // A bare name is Claude Code's: an Anthropic model, which needs its key.
    [["--model", "gpt4"], {}, /needs ANTHROPIC_API_KEY/],
    [["--model", "anthropic:claude"], {}, /needs ANTHROPIC_API_KEY/],
    [["--model", "openai:gpt"], {}, /needs OPENAI_API_KEY/],
    [
      ["--model", "replay:/no/such/file.json"],
      {},
      /the replay script \/no\/such\/file\.json does not exist/,
    ],
    [["--resume", "nope"], {}, /there is no session nope to resume/],
  ];
  for (const [args, env, pattern] of cases) {
    const out = await runWave(args, "", {
      WAVE_HOME: "/tmp/wave-none",
      ...env,
    });
    assert.equal(out.code, 2, args.join(" "));
    assert.equal(out.stdout, "");
    assert.match(out.stderr, pattern);
  }
});
