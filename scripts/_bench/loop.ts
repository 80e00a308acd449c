/**
 * The agent loop's own overhead: a 20-turn replayed session, each turn one
 * tool call, against the sum of the tools' own times.
 *
 * @module
 */

import { BenchWave, type Figure } from "./measure.ts";

/** The loop figure. */
export async function loop(turns = 20): Promise<Figure[]> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-loop-" }),
  );
  await Deno.writeTextFile(`${dir}/notes.txt`, "a line\n".repeat(100));
  const replies = Array.from({ length: turns }, (_, i) => ({
    content: [{
      type: "tool_use",
      name: i % 2 ? "Grep" : "Bash",
      input: i % 2
        ? { pattern: "line", path: "notes.txt" }
        : { command: "sleep 0.02; echo turn" },
    }],
  }));
  replies.push(
    {
      content: [{ type: "text", text: "done" }],
    } as unknown as typeof replies[number],
  );
  await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify({ replies }));
  const wave = new BenchWave([
    "--workspace",
    dir,
    "--model",
    `replay:${dir}/script.json`,
    "--max-turns",
    "100",
  ], {
    WAVE_HOME: `${dir}/.home`,
    PATH: Deno.env.get("PATH")!,
  });
  await wave.ready();
  let toolMs = 0;
  let finished!: (m: Record<string, unknown>) => void;
  const done = new Promise<Record<string, unknown>>((r) => finished = r);
  wave.onMessage((m) => {
    if (m.type === "user" && typeof m.duration_ms === "number") {
      toolMs += m.duration_ms;
    }
    if (m.type === "result") finished(m);
  });
  const started = performance.now();
  await wave.write(
    JSON.stringify({ type: "user", message: { role: "user", content: "go" } }) +
      "\n",
  );
  const result = await done;
  const wall = performance.now() - started;
  await wave.close();
  await Deno.remove(dir, { recursive: true });
  if (result.subtype !== "success") {
    throw new Error(`the replayed session failed: ${JSON.stringify(result)}`);
  }
  return [{
    name: `agent loop: ${turns}-turn replayed session ÷ its tool time`,
    value: wall / toolMs,
    unit: "×",
    detail: `${wall.toFixed(0)} ms wall, ${toolMs} ms in tools: ${
      ((wall - toolMs) / (turns + 1)).toFixed(1)
    } ms of loop per turn`,
  }];
}
