/**
 * `wave acp`'s warm-up of the tools (`ToolCalls.prewarm`) in idle time,
 * as stream-json's: it starts when a workspace's core opens, a prompt
 * that arrives while a warm-up step runs is not queued behind it, and
 * closing the front stops it: no step starts after, and it has ended when
 * `serve` resolves. The front runs in this process, so the test tool
 * `WarmGate` (tests/fixtures/tools/warm_gate.ts) can say when each of its
 * warm-up steps starts and wait until the test lets it end.
 */

import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { serve } from "../../fronts/acp/main.ts";
import { parseFlags } from "../../session/config.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { WarmGateWatch } from "../fixtures/tools/warm_gate.ts";
import { MOCK_KEY, MockModel, textStep } from "../_mock_model.ts";
import { tempDir } from "../_temp.ts";
import { waitUntil } from "../_waiting.ts";
import { FIXTURE_TOOLS } from "../_wave.ts";

/** `wave acp` served in this process with WarmGate, and a client on it. */
interface InProcessAcp {
  agent: acp.ClientContext;
  /** A session in a new workspace; its id. */
  newSession(): Promise<string>;
  /** The WarmGate warm-up steps started so far, in order. */
  started: number[];
  /** The tool of each warm-up call so far, as serve's `onWarmup` was told. */
  warmupCalls: string[];
  /** serve's `onWarmup` was told the warm-up is over. */
  warmupEnded(): boolean;
  /** Lets WarmGate's warm-up step `step` answer. */
  open(step: number): void;
  /** Ends the client's connection (stdin ends); serve's exit code. */
  close(): Promise<number>;
}

async function serveAcp(mock: MockModel): Promise<InProcessAcp> {
  const env: Record<string, string> = {
    WAVE_HOME: await tempDir({ prefix: "wave-home-" }),
    ANTHROPIC_API_KEY: MOCK_KEY,
  };
  const parsed = parseFlags(
    [
      "acp",
      "--model",
      "anthropic:test-model",
      "--base-url",
      mock.url,
      "--tool-module",
      `${FIXTURE_TOOLS}/warm_gate.ts`,
    ],
    { get: (name) => env[name] },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  const { config } = parsed;
  const gate = new WarmGateWatch();
  const warmupCalls: string[] = [];
  let warmupEnded = false;
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const output = toClient.writable.getWriter();
  const serving = serve(config, {
    stdin: toAgent.readable,
    stdout: {
      async write(bytes) {
        await output.write(bytes);
        return bytes.length;
      },
    },
  }, {
    onWarmup: {
      call: (tool) => warmupCalls.push(tool),
      ended: () => warmupEnded = true,
    },
    modules: [
      ...TOOLSETS[config.toolset].map(builtinRef),
      ...config.toolModules,
    ],
  });
  const connection = acp.client({ name: "wave-test" })
    .connect(acp.ndJsonStream(toAgent.writable, toClient.readable));
  await connection.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  return {
    agent: connection.agent,
    started: gate.started,
    warmupCalls,
    warmupEnded: () => warmupEnded,
    async newSession() {
      const cwd = await Deno.realPath(await tempDir({ prefix: "wave-ws-" }));
      const { sessionId } = await connection.agent.request(
        acp.methods.agent.session.new,
        { cwd, mcpServers: [] },
      );
      return sessionId;
    },
    open: (step) => gate.open(step),
    async close() {
      connection.close();
      try {
        await toAgent.writable.close();
      } catch { /* closed with the connection */ }
      const code = await serving;
      await output.close().catch(() => {});
      gate.close();
      return code;
    },
  };
}

Deno.test("acp warm-up: it starts when the session's core opens; closing the front mid-step stops it, and it has ended when serve resolves", async () => {
  const mock = new MockModel();
  try {
    const wave = await serveAcp(mock);
    await wave.newSession();
    await waitUntil(
      () => wave.started.includes(1),
      "WarmGate's first warm-up step starts",
    );
    // The step is still waiting for its gate: close now.
    const before = [...wave.warmupCalls];
    assert.equal(before.at(-1), "WarmGate");
    assert.equal(await wave.close(), 0);
    assert.ok(wave.warmupEnded(), "the warm-up was over when serve resolved");
    assert.deepEqual(
      wave.warmupCalls,
      before,
      "no warm-up call started after the close",
    );
    assert.deepEqual(wave.started, [1]);
  } finally {
    await mock.close();
  }
});

Deno.test("acp warm-up: a prompt that arrives while a warm-up step runs sends its model request without waiting for the step, and the warm-up goes on after", async () => {
  const mock = new MockModel();
  try {
    mock.script(textStep("hello"));
    const wave = await serveAcp(mock);
    const sessionId = await wave.newSession();
    await waitUntil(
      () => wave.started.includes(1),
      "WarmGate's first warm-up step starts",
    );
    const prompting = wave.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    await waitUntil(
      () => mock.requests.length === 1,
      "the prompt's model request",
    );
    assert.deepEqual(wave.started, [1], "the warm-up step is still running");
    assert.deepEqual(await prompting, { stopReason: "end_turn" });
    wave.open(1);
    await waitUntil(
      () => wave.started.includes(2),
      "the warm-up goes on to its next step",
    );
    wave.open(2);
    assert.equal(await wave.close(), 0);
    assert.deepEqual(wave.started, [1, 2]);
  } finally {
    await mock.close();
  }
});
