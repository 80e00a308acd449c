/**
 * First calls (issue 18): the first call of each tool in a session against
 * a warm call of it. A parent drives wave the way real ones do: it waits
 * a moment after `system/init` (a person types, a CI step prepares), then
 * calls each tool once, then again.
 *
 * Beside them, the floor: the same parent code driving a bare Deno
 * process that answers each request at once with a Read's text, after the
 * same pause. A process that sat idle pays for it on its next round trip
 * (its code and data fell out of the CPU's caches, more so the longer it
 * sat and the busier the machine is), wave or not: the first Read, whose
 * own work is the smallest, is the call that shows it. So the first Read
 * is also set against a warm Read made after the same pause: what is left
 * is what being first costs (a worker to start, code to load and compile),
 * the pause's own cost on both sides.
 *
 * @module
 */

import {
  BenchWave,
  echoScriptArgs,
  type Figure,
  median,
  time,
} from "./measure.ts";

/**
 * How long the parent waits after `system/init` before its first call: a
 * parent that calls at once, and one whose first call comes after a model
 * round trip.
 */
const PAUSES_MS = [300, 1500];

/** How many warm calls of each tool are timed after its first. */
const WARM_CALLS = 6;

/**
 * Each tool's input for its i-th call. Read reads another copy of the
 * same file each time: a second Read of an unchanged file only says so,
 * less work than the first did. Edit flips a line back and forth.
 */
const CALLS: [string, (i: number) => Record<string, unknown>][] = [
  ["Read", (i) => ({ file_path: `copy${i}.txt` })],
  ["Glob", () => ({ pattern: "**/*.txt" })],
  ["Grep", () => ({ pattern: "line", path: "notes.txt" })],
  ["Edit", (i) => ({
    file_path: "notes.txt",
    old_string: i % 2 ? "LINE 1\n" : "line 1\n",
    new_string: i % 2 ? "line 1\n" : "LINE 1\n",
  })],
  ["Bash", () => ({ command: "true" })],
];

/** First ÷ warm, per tool (median over fresh sessions). */
export async function firstCalls(sessions = 5): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const pause of PAUSES_MS) {
    figures.push(...await firstCallsAfter(pause, sessions));
  }
  return figures;
}

async function firstCallsAfter(
  pauseMs: number,
  sessions: number,
): Promise<Figure[]> {
  const firsts = new Map<string, number[]>();
  const warms = new Map<string, number[]>();
  const echoFirsts: number[] = [];
  const echoWarms: number[] = [];
  const readsAfterPause: number[] = [];
  for (let s = 0; s < sessions; s++) {
    const dir = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "wave-bench-first-calls-" }),
    );
    const notes = Array.from({ length: 200 }, (_, i) => `line ${i}\n`)
      .join("");
    const [first, warm] = await echoRoundTrips(dir, notes, pauseMs);
    echoFirsts.push(first);
    echoWarms.push(warm);
    await Deno.writeTextFile(`${dir}/notes.txt`, notes);
    for (let i = 0; i <= WARM_CALLS + 1; i++) {
      await Deno.writeTextFile(`${dir}/copy${i}.txt`, notes);
    }
    const wave = new BenchWave(["--workspace", dir], {
      WAVE_HOME: `${dir}/.home`,
      PATH: Deno.env.get("PATH")!,
    });
    await wave.ready();
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    let id = 0;
    const call = (tool: string, input: Record<string, unknown>) =>
      time(async () => {
        const answer = await wave.request(`c${id++}`, {
          subtype: "call_tool",
          tool_name: tool,
          input,
        });
        const response = answer.response as { is_error?: boolean } | undefined;
        if (response?.is_error) {
          throw new Error(`${tool} failed: ${JSON.stringify(answer)}`);
        }
      });
    for (const [tool, input] of CALLS) {
      // Edit needs the file read in this session (untimed, as earlier calls).
      if (tool === "Edit") await call("Read", { file_path: "notes.txt" });
      const first = await call(tool, input(0));
      const warm: number[] = [];
      for (let i = 1; i <= WARM_CALLS; i++) {
        warm.push(await call(tool, input(i)));
      }
      (firsts.get(tool) ?? firsts.set(tool, []).get(tool)!).push(first);
      (warms.get(tool) ?? warms.set(tool, []).get(tool)!).push(median(warm));
    }
    // A warm Read after the same pause the first one came after.
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    readsAfterPause.push(
      await call("Read", { file_path: `copy${WARM_CALLS + 1}.txt` }),
    );
    await wave.close();
    await Deno.remove(dir, { recursive: true });
  }
  const echoFirst = median(echoFirsts);
  const echoWarm = median(echoWarms);
  const firstRead = median(firsts.get("Read")!);
  const readAfterPause = median(readsAfterPause);
  return [
    {
      name: `a bare Deno process's first answer ÷ a warm one (${pauseMs} ms)`,
      value: echoFirst / echoWarm,
      unit: "×",
      detail: `${echoFirst.toFixed(1)} ms vs ${echoWarm.toFixed(1)} ms`,
    },
    ...CALLS.map(([tool]) => {
      const first = median(firsts.get(tool)!);
      const warm = median(warms.get(tool)!);
      return {
        name: `first ${tool} ÷ a warm one (${pauseMs} ms after init)`,
        value: first / warm,
        unit: "×",
        target: "≤ 2",
        ok: first / warm <= 2,
        detail: `${first.toFixed(1)} ms vs ${warm.toFixed(1)} ms`,
      };
    }),
    {
      name:
        `first Read ÷ a warm Read after the same pause (${pauseMs} ms after init)`,
      value: firstRead / readAfterPause,
      unit: "×",
      target: "≤ 2",
      ok: firstRead / readAfterPause <= 2,
      detail: `${firstRead.toFixed(1)} ms vs ${readAfterPause.toFixed(1)} ms`,
    },
  ];
}

/**
 * The first and the median warm round trip of a bare Deno process that
 * answers at once with a Read's text of `notes` (see `echoScriptArgs`),
 * driven as wave is, its first request `pauseMs` after its init line.
 */
async function echoRoundTrips(
  dir: string,
  notes: string,
  pauseMs: number,
): Promise<[number, number]> {
  const text = notes.split("\n").slice(0, -1)
    .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join("\n");
  const echo = new BenchWave([], {}, await echoScriptArgs(dir, text));
  await echo.ready();
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
  const trip = (i: number) =>
    time(() =>
      echo.request(`e${i}`, {
        subtype: "call_tool",
        tool_name: "Read",
        input: { file_path: `copy${i}.txt` },
      })
    );
  const first = await trip(0);
  const warm: number[] = [];
  for (let i = 1; i <= WARM_CALLS; i++) warm.push(await trip(i));
  await echo.close();
  return [first, median(warm)];
}
