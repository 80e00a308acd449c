/**
 * Foundation figures: start-up against an empty Deno script, and pipelined
 * `call_tool` throughput through the worker sandbox.
 *
 * @module
 */

import { waveArgs } from "../flags.ts";
import {
  BenchWave,
  emptyScriptArgs,
  type Figure,
  paired,
  ratio,
  timeToFirstLine,
} from "./measure.ts";

const ECHO =
  new URL("../../tests/fixtures/tools/echo.ts", import.meta.url).pathname;

/** Start to `system/init` ÷ an empty script's start to its first line, same flags, interleaved runs. */
export async function startup(runs = 21): Promise<Figure[]> {
  const dir = await Deno.makeTempDir({ prefix: "wave-bench-" });
  const emptyArgs = await emptyScriptArgs(dir);
  const env = { WAVE_HOME: `${dir}/home` };
  // Each is run once untimed first (module cache, page cache).
  const [w, b] = await paired(
    runs,
    () => timeToFirstLine(waveArgs(["--workspace", dir]), env),
    () => timeToFirstLine(emptyArgs),
  );
  await Deno.remove(dir, { recursive: true });
  return [
    ratio(
      "start → system/init ÷ empty Deno script",
      w,
      b,
      1.5,
      `(median of ${runs})`,
    ),
  ];
}

/** An MCP client's `initialize` request, one line: what a server answers first. */
export const MCP_INITIALIZE: string = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  },
}) + "\n";

/**
 * `wave mcp` and `wave acp`: start to the answer of the client's
 * `initialize` ÷ an empty script's start to its first line, same flags,
 * interleaved runs (issue 17: within 1.5×).
 */
export async function fronts(runs = 21): Promise<Figure[]> {
  const dir = await Deno.makeTempDir({ prefix: "wave-bench-" });
  const emptyArgs = await emptyScriptArgs(dir);
  const env = { WAVE_HOME: `${dir}/home` };
  const initialize = {
    mcp: MCP_INITIALIZE,
    acp: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }) + "\n",
  };
  const figures: Figure[] = [];
  for (const front of ["mcp", "acp"] as const) {
    const args = waveArgs([front, "--workspace", dir]);
    const [w, b] = await paired(
      runs,
      () => timeToFirstLine(args, env, initialize[front]),
      () => timeToFirstLine(emptyArgs),
    );
    figures.push(
      ratio(
        `wave ${front}: start → initialize answered ÷ empty Deno script`,
        w,
        b,
        1.5,
        `(median of ${runs})`,
      ),
    );
  }
  await Deno.remove(dir, { recursive: true });
  return figures;
}

/** Pipelined calls of a trivial read-only tool through the sandbox, calls/s. */
export async function throughput(calls = 5000): Promise<Figure[]> {
  const dir = await Deno.makeTempDir({ prefix: "wave-bench-" });
  const wave = new BenchWave(["--workspace", dir, "--tool-module", ECHO], {
    WAVE_HOME: `${dir}/home`,
  });
  await wave.ready();
  // Warm the worker.
  await wave.request("warm", {
    subtype: "call_tool",
    tool_name: "Echo",
    input: { text: "w" },
  });
  const answers: Promise<unknown>[] = [];
  let batch = "";
  for (let i = 0; i < calls; i++) {
    answers.push(wave.answerOf(`c${i}`));
    batch += JSON.stringify({
      type: "control_request",
      request_id: `c${i}`,
      request: {
        subtype: "call_tool",
        tool_name: "Echo",
        input: { text: `hello ${i}` },
      },
    }) + "\n";
  }
  const start = performance.now();
  await wave.write(batch);
  await Promise.all(answers);
  const seconds = (performance.now() - start) / 1000;
  await wave.close();
  await Deno.remove(dir, { recursive: true });
  const rate = calls / seconds;
  return [{
    name: "pipelined call_tool (trivial read-only tool)",
    value: rate,
    unit: "calls/s",
    target: "≥ 2000",
    ok: rate >= 2000,
    detail: `${calls} calls in ${(seconds * 1000).toFixed(0)} ms`,
  }];
}
