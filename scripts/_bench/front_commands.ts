/**
 * A front's first command (issue 18's first calls, for `wave mcp`): a
 * client connects over stdio, waits as a person would, then runs Bash
 * `true` once, then again. The session's commands run in a sandbox of its
 * own (its spill directory), so the process made ahead for the first one
 * must be the session's.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client"
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { waveArgs } from "../flags.ts";
import { type Figure, median, time } from "./measure.ts";

/** How long the client waits after `initialize` before its first call. */
const PAUSE_MS = 1500;

/** How many warm calls are timed after the first. */
const WARM_CALLS = 6;

/** `wave mcp` (stdio): the first Bash `true` ÷ a warm one, over `sessions` sessions. */
export async function frontFirstCommand(sessions = 5): Promise<Figure[]> {
  const firsts: number[] = [];
  const warms: number[] = [];
  for (let s = 0; s < sessions; s++) {
    const dir = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "wave-bench-front-" }),
    );
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: waveArgs(["mcp", "--workspace", dir]),
        env: { WAVE_HOME: `${dir}/.home`, PATH: Deno.env.get("PATH")! },
        stderr: "ignore",
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    const call = () =>
      time(async () => {
        const result = await client.callTool({
          name: "Bash",
          arguments: { command: "true" },
        });
        if (result.isError) {
          throw new Error(`Bash failed: ${JSON.stringify(result)}`);
        }
      });
    firsts.push(await call());
    const warm: number[] = [];
    for (let i = 0; i < WARM_CALLS; i++) warm.push(await call());
    warms.push(median(warm));
    await client.close();
    await Deno.remove(dir, { recursive: true });
  }
  const first = median(firsts);
  const warm = median(warms);
  return [{
    name: `wave mcp: first Bash ÷ a warm one (${PAUSE_MS} ms after initialize)`,
    value: first / warm,
    unit: "×",
    target: "≤ 2",
    ok: first / warm <= 2,
    detail: `${first.toFixed(1)} ms vs ${
      warm.toFixed(1)
    } ms (median of ${sessions})`,
  }];
}
