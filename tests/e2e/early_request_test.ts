/**
 * End-to-end: the early first request (session/early_request.ts, issue 18)
 * is the request the SDK sends, byte for byte in its body and in every
 * header, and the SDK takes its response over (one request per model
 * turn); the same session with WAVE_EARLY_REQUEST=off is the reference.
 */

import assert from "node:assert/strict";
import { MOCK_KEY, MockModel, mockModelSession } from "../_mock_model.ts";
import { startWave, type WaveProcess } from "../_wave.ts";
import { INTERRUPT_WITHIN_MS, within } from "../_waiting.ts";
import { tempDir } from "../_temp.ts";

/** What the mock recorded of one request, everything a server sees but the port. */
interface Seen {
  path: string;
  text: string;
  headers: [string, string][];
}

/** Runs one session (its lines sent as soon as system/init arrives) and returns the requests the mock saw, and wave's stderr. */
async function session(
  provider: "anthropic" | "openai",
  early: boolean,
  lines: unknown[],
  options: { args?: string[]; waveHome?: string; workspace: string },
): Promise<
  { seen: Seen[]; ports: number[]; stderr: string; results: unknown[] }
> {
  const mock = new MockModel();
  mock.script(
    {
      reply: [{
        type: "tool_use",
        id: "call_1",
        name: "Glob",
        input: { pattern: "*.txt" },
      }],
    },
    { reply: [{ type: "text", text: "done" }] },
  );
  const modelled = mockModelSession(provider, mock, options.args);
  const wave = await startWave({
    workspace: options.workspace,
    waveHome: options.waveHome,
    args: modelled.args,
    env: {
      ...modelled.env,
      ...early ? {} : { WAVE_EARLY_REQUEST: "off" },
    },
  });
  try {
    for (const line of lines) await wave.send(line as Record<string, unknown>);
    await wave.waitFor((m) => m.type === "result", { timeoutMs: 30_000 });
    await wave.closeStdin();
    await wave.wait();
    return {
      seen: mock.requests.map((r) => ({
        path: r.path,
        text: r.text,
        headers: [...r.headers].filter(([name]) => name !== "host"),
      })),
      ports: mock.requests.map((r) => r.remotePort),
      stderr: wave.stderr,
      results: wave.messages.filter((m) => m.type === "result").map((m) => [
        m.subtype,
        m.result,
      ]),
    };
  } finally {
    await wave.kill();
    await mock.close();
  }
}

const user = (content: unknown) => ({
  type: "user",
  message: { role: "user", content },
});

const CASES: {
  name: string;
  provider: "anthropic" | "openai";
  args?: string[];
  content: unknown;
}[] = [
  { name: "anthropic, wave tools", provider: "anthropic", content: "hi" },
  { name: "openai, wave tools", provider: "openai", content: "hi" },
  {
    name: "anthropic, a system prompt flag, sata tools, plan mode, text blocks",
    provider: "anthropic",
    args: [
      "--append-system-prompt",
      "Answer in French.",
      "--toolset",
      "sata",
      "--mode",
      "plan",
    ],
    content: [{ type: "text", text: "bonjour" }, { type: "text", text: "é" }],
  },
  {
    name: "openai, --system-prompt, devflow tools, --disallowedTools",
    provider: "openai",
    args: [
      "--system-prompt",
      "You are terse.",
      "--toolset",
      "devflow",
      "--disallowedTools",
      "run_command",
    ],
    content: "list the files",
  },
  {
    name: "openai, Claude Code's --permission-mode plan",
    provider: "openai",
    args: ["--permission-mode", "plan"],
    content: "plan it",
  },
  {
    name:
      "anthropic, files tools (a description with {{output_dir}}), thinking",
    provider: "anthropic",
    args: ["--toolset", "files", "--max-thinking-tokens", "2048"],
    content: "make a report",
  },
];

for (const c of CASES) {
  Deno.test(`early first request (${c.name}): the same bytes as the SDK's, taken over by it`, async () => {
    const workspace = await tempDir({ prefix: "wave-ws-" });
    await Deno.writeTextFile(`${workspace}/a.txt`, "a\n");
    // The tool may not be offered (a toolset without Glob): the call
    // then fails the same way on both paths.
    const off = await session(c.provider, false, [user(c.content)], {
      args: c.args,
      workspace,
    });
    const on = await session(c.provider, true, [user(c.content)], {
      args: c.args,
      workspace,
    });
    assert.equal(off.seen.length, 2, off.stderr);
    // One request per model turn: the SDK took the early one over.
    assert.deepEqual(on.seen, off.seen, on.stderr);
    assert.doesNotMatch(on.stderr, /early first request differed/);
    assert.deepEqual(on.results, off.results);
    // Which path sent the first request: the SDK's fetch keeps one
    // connection for both turns; the early request has a connection of
    // its own, so the second turn comes on another one.
    assert.equal(off.ports[0], off.ports[1], "one connection without it");
    assert.notEqual(on.ports[0], on.ports[1], "the first on its own");
  });
}

Deno.test("early first request: --resume takes the normal path, and sends the history", async () => {
  const workspace = await tempDir({ prefix: "wave-ws-" });
  const waveHome = await tempDir({ prefix: "wave-home-" });
  const id = "early-resume-1";
  await session("anthropic", true, [user("first")], {
    args: ["--session-id", id],
    workspace,
    waveHome,
  });
  const off = await session("anthropic", false, [user("second")], {
    args: ["--resume", id, "--fork-session"],
    workspace,
    waveHome,
  });
  const on = await session("anthropic", true, [user("second")], {
    args: ["--resume", id, "--fork-session"],
    workspace,
    waveHome,
  });
  assert.equal(on.seen.length, 2);
  assert.deepEqual(on.seen, off.seen);
  assert.match(on.seen[0].text, /"first"/);
});

Deno.test("early first request: a first line that is not a user turn sends nothing early", async () => {
  const workspace = await tempDir({ prefix: "wave-ws-" });
  const lines = [
    {
      type: "control_request",
      request_id: "r1",
      request: { subtype: "list_tools" },
    },
    user("hi"),
  ];
  const off = await session("openai", false, lines, { workspace });
  const on = await session("openai", true, lines, { workspace });
  assert.deepEqual(on.seen, off.seen);
});

Deno.test("early first request: an interrupt while it streams ends the turn within a second", async () => {
  const mock = new MockModel();
  mock.script({
    hang: [{ type: "text", text: "thinking about it" }],
    events: 3,
  });
  const wave: WaveProcess = await startWave({
    args: ["--model", "anthropic:test-model", "--base-url", mock.url],
    env: {
      ANTHROPIC_API_KEY: MOCK_KEY,
      PATH: Deno.env.get("PATH")!,
    },
  });
  try {
    await wave.send(user("hi"));
    await within(mock.hanging, 30_000, "the early request to stream");
    const asked = performance.now();
    await wave.request({ subtype: "interrupt" });
    const result = await wave.waitFor((m) => m.type === "result", {
      timeoutMs: 10_000,
    });
    assert.ok(performance.now() - asked < INTERRUPT_WITHIN_MS);
    assert.equal(result.subtype, "error_interrupted");
    assert.equal(mock.requests.length, 1);
  } finally {
    await wave.kill();
    await mock.close();
  }
});
