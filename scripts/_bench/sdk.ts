/**
 * Issue 16: a scripted session of 40 tool calls driven through the real
 * Claude Agent SDK (`query()` starting wave's launcher), against the mock
 * Anthropic server. wave's wall time, from `query()` to its `result`, is
 * set against the session's floor: the same model exchanges made by a bare
 * client plus the same tool calls through `call_tool` (session.ts's).
 *
 * @module
 */

import { query } from "@anthropic-ai/claude-agent-sdk";
import { MockModel } from "../../tests/_mock_model.ts";
import { LAUNCHER } from "../../tests/_claude_sdk.ts";
import { DENO_DIR } from "../../tests/_wave.ts";
import { type Figure, time } from "./measure.ts";
import { callsOf, floor, script, workspace } from "./session.ts";

const CALLS = 40;

/** The turns whose calls add up to {@linkcode CALLS}. */
function turnsFor(calls: number): number {
  let total = 0;
  for (let turns = 0;; turns++) {
    if (total >= calls) return turns;
    total += callsOf(turns).length;
  }
}

async function sdkSession(mock: MockModel, turns: number): Promise<number> {
  const dir = await workspace();
  script(mock, turns);
  const ms = await time(async () => {
    for await (
      const message of query({
        prompt: "go",
        options: {
          pathToClaudeCodeExecutable: LAUNCHER,
          cwd: dir,
          model: "claude-sonnet-5-5",
          permissionMode: "bypassPermissions",
          allowDangerouslySkipPermissions: true,
          maxTurns: turns + 5,
          mcpServersDelivery: "argv",
          env: {
            PATH: Deno.env.get("PATH")!,
            HOME: Deno.env.get("HOME") ?? "/root",
            DENO_DIR,
            WAVE_DENO: Deno.execPath(),
            WAVE_HOME: `${dir}/.home`,
            ANTHROPIC_BASE_URL: mock.url,
            ANTHROPIC_API_KEY: "sk-bench",
          },
        },
      })
    ) {
      if (message.type === "result" && message.is_error) {
        throw new Error(JSON.stringify(message));
      }
    }
  });
  await Deno.remove(dir, { recursive: true });
  return ms;
}

/** The SDK session ÷ its floor. */
export async function sdk(): Promise<Figure[]> {
  const turns = turnsFor(CALLS);
  const mock = new MockModel();
  await sdkSession(mock, turns); // warm-up: caches, page cache
  mock.requests.length = 0;
  const wall = await sdkSession(mock, turns);
  const requests = [...mock.requests];
  const base = await floor(mock, requests, turns);
  await mock.close();
  return [{
    name:
      `${CALLS}-call session through the Claude Agent SDK ÷ its HTTP + tool floor`,
    value: wall / base,
    unit: "×",
    ok: true,
    detail: `${wall.toFixed(0)} ms vs ${
      base.toFixed(0)
    } ms (${requests.length} requests, wave's start included)`,
  }];
}
