/**
 * Start to the first model request (issue 18): wave started with an
 * Anthropic (then an OpenAI) model whose base URL is a mock server on 127.0.0.1, driven as
 * real parents drive it (the user line goes out as soon as `system/init`
 * arrives), timed until the mock server receives the request; against an
 * empty Deno script's start to its first line, same flags, interleaved.
 *
 * @module
 */

import { waveArgs } from "../flags.ts";
import { MockModel } from "../../tests/_mock_model.ts";
import {
  emptyScriptArgs,
  type Figure,
  paired,
  ratio,
  timeToFirstLine,
} from "./measure.ts";

/** Milliseconds from spawning wave to the mock server's first request. */
async function toFirstRequest(
  mock: MockModel,
  dir: string,
  provider: "anthropic" | "openai",
): Promise<number> {
  mock.script({ reply: [{ type: "text", text: "hi" }] });
  const seen = mock.requests.length;
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: waveArgs([
      "--workspace",
      dir,
      "--model",
      `${provider}:claude-bench`,
      "--base-url",
      provider === "openai" ? `${mock.url}/v1` : mock.url,
    ]),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: {
      WAVE_HOME: `${dir}/home`,
      ANTHROPIC_API_KEY: "sk-bench",
      OPENAI_API_KEY: "sk-bench",
    },
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done || value.includes(10)) break;
  }
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      type: "user",
      message: { role: "user", content: "hi" },
    }) + "\n",
  ));
  while (mock.requests.length === seen) {
    await new Promise((resolve) => setTimeout(resolve, 0.2));
  }
  const elapsed = performance.now() - start;
  await writer.close().catch(() => {});
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  await child.status;
  return elapsed;
}

/** Start → first model request ÷ an empty Deno script's start. */
export async function firstRequest(runs = 15): Promise<Figure[]> {
  const dir = await Deno.makeTempDir({ prefix: "wave-bench-first-" });
  const emptyArgs = await emptyScriptArgs(dir);
  const mock = new MockModel();
  const figures: Figure[] = [];
  for (const provider of ["anthropic", "openai"] as const) {
    const [w, b] = await paired(
      runs,
      () => toFirstRequest(mock, dir, provider),
      () => timeToFirstLine(emptyArgs),
    );
    figures.push(ratio(
      `start → first model request (${provider}) ÷ empty Deno script`,
      w,
      b,
      2.5,
      `(median of ${runs})`,
    ));
  }
  await mock.close();
  await Deno.remove(dir, { recursive: true });
  return figures;
}
