/**
 * `wave mcp`'s warm-up of the tools (`ToolCalls.prewarm`) in idle time:
 * it starts once the core opens, and when the client's input ends mid-step
 * it stops, and is over before `serve` resolves: nothing of it runs after.
 * The front runs in this process, so the test tool `WarmGate`
 * (tests/fixtures/tools/warm_gate.ts) can say when its warm-up step starts
 * and hold it until the end.
 */

import assert from "node:assert/strict";
import { serve } from "../../fronts/mcp/main.ts";
import { parseFlags } from "../../session/config.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { WarmGateWatch } from "../fixtures/tools/warm_gate.ts";
import { tempDir } from "../_temp.ts";
import { waitUntil } from "../_waiting.ts";
import { FIXTURE_TOOLS } from "../_wave.ts";

Deno.test("mcp warm-up: when the client's input ends mid-step, the warm-up stops and is over before serve resolves", async () => {
  const env: Record<string, string> = {
    WAVE_HOME: await tempDir({ prefix: "wave-home-" }),
  };
  const workspace = await Deno.realPath(await tempDir({ prefix: "wave-ws-" }));
  const parsed = parseFlags(
    [
      "mcp",
      "--workspace",
      workspace,
      "--tool-module",
      `${FIXTURE_TOOLS}/warm_gate.ts`,
    ],
    { get: (name) => env[name] },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  const { config } = parsed;
  const gate = new WarmGateWatch();
  const { started } = gate;
  const calls: string[] = [];
  let ended = false;
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const serving = serve(config, {
    stdin: input.readable,
    stdout: { write: (bytes) => Promise.resolve(bytes.length) },
  }, {
    modules: [
      ...TOOLSETS[config.toolset].map(builtinRef),
      ...config.toolModules,
    ],
    onWarmup: {
      call: (tool) => calls.push(tool),
      ended: () => ended = true,
    },
  });
  try {
    await waitUntil(
      () => started.includes(1),
      "WarmGate's first warm-up step starts",
    );
    const before = [...calls];
    assert.equal(before.at(-1), "WarmGate");
    // The step is still waiting for its gate: the input ends now.
    await input.writable.close();
    assert.equal(await serving, 0);
    assert.ok(ended, "the warm-up was over when serve resolved");
    assert.deepEqual(calls, before, "no warm-up call started after the end");
    assert.deepEqual(started, [1]);
  } finally {
    gate.close();
  }
});
