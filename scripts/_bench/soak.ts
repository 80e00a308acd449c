/**
 * The soak (issue 13): 20,000 small pipelined calls of mixed kinds through
 * the real CLI, with wave's RSS and thread count sampled from
 * `/proc/<pid>/status` as the calls go and after an idle period (longer
 * than the executor's idle retirement). Resources must level off: after
 * 20,000 calls at most 1.2× the figure after 1,000.
 *
 * @module
 */

import { BenchWave, type Figure, median } from "./measure.ts";

/** When to sample: after this many calls have been answered. */
const CHECKPOINTS = [1_000, 5_000, 10_000, 20_000];
/** How many calls are in flight at once. */
const WINDOW = 64;
/** How often RSS and threads are sampled under load. */
const SAMPLE_MS = 200;

/** RSS (MB) and threads of a process, from /proc, and what the RSS is made of. */
export async function sample(
  pid: number,
): Promise<{ rssMb: number; threads: number; anonMb: number; fileMb: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const mb = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
  return {
    rssMb: mb("VmRSS"),
    threads: Number(/Threads:\s+(\d+)/.exec(status)![1]),
    // Pages of its own (V8's heaps, malloc) and pages of files (the
    // deno binary's code above all, shared with every deno process).
    anonMb: mb("RssAnon"),
    fileMb: mb("RssFile"),
  };
}

/** wave's threads by name, for the log: where a growth in threads is. */
async function threadNames(pid: number): Promise<string> {
  const counts = new Map<string, number>();
  for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
    const name = (await Deno.readTextFile(`/proc/${pid}/task/${task.name}/comm`)
      .catch(() => "?")).trim();
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${name}×${n}`).join(" ");
}

/** The i-th call of the mix: Read, Glob, Grep, Bash `true`, and a Read outside the workspace (a one-off worker). */
function callOf(i: number, outside: string): Record<string, unknown> {
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
      return { tool_name: "Read", input: { file_path: `f${i % 20}.txt` } };
    case 3:
    case 4:
      return { tool_name: "Glob", input: { pattern: "**/*.txt" } };
    case 5:
    case 6:
      return {
        tool_name: "Grep",
        input: { pattern: "line 1", output_mode: "count" },
      };
    case 7:
    case 8:
      return { tool_name: "Bash", input: { command: "true" } };
    default:
      return { tool_name: "Read", input: { file_path: outside } };
  }
}

/**
 * The soak figures. `calls` and `idleMs` may be given as `SOAK_CALLS` and
 * `SOAK_IDLE_MS` in the environment (a shorter run while working on it).
 */
export async function soak(
  calls = Number(Deno.env.get("SOAK_CALLS") ?? 20_000),
  idleMs = Number(Deno.env.get("SOAK_IDLE_MS") ?? 45_000),
): Promise<Figure[]> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-soak-" }),
  );
  const workspace = `${dir}/ws`;
  await Deno.mkdir(`${workspace}/sub`, { recursive: true });
  const lines = (f: number) =>
    Array.from({ length: 40 }, (_, i) => `line ${i} of file ${f}\n`).join("");
  for (let f = 0; f < 20; f++) {
    await Deno.writeTextFile(`${workspace}/f${f}.txt`, lines(f));
    await Deno.writeTextFile(`${workspace}/sub/g${f}.txt`, lines(f));
  }
  const outside = `${dir}/outside.txt`;
  await Deno.writeTextFile(outside, "outside the workspace\n");

  const wave = new BenchWave(
    ["--workspace", workspace, "--approvals", "allow"],
    { WAVE_HOME: `${dir}/home`, PATH: Deno.env.get("PATH")! },
  );
  await wave.ready();
  const pid = wave.child.pid;
  const start = await sample(pid);
  const samples: { after: string; rssMb: number; threads: number }[] = [];
  const checkpoints = CHECKPOINTS.filter((c) => c <= calls);
  if (!checkpoints.includes(calls)) checkpoints.push(calls);

  let sent = 0;
  let answered = 0;
  let errors = 0;
  let firstError = "";
  const began = performance.now();
  const send = (): Promise<void> => {
    const i = sent++;
    const id = `k${i}`;
    const answer = wave.answerOf(id);
    wave.write(
      JSON.stringify({
        type: "control_request",
        request_id: id,
        request: { subtype: "call_tool", ...callOf(i, outside) },
      }) + "\n",
    );
    return answer.then((response) => {
      answered++;
      const body = response.response as { is_error?: boolean } | undefined;
      if (response.subtype !== "success" || body?.is_error) {
        errors++;
        firstError ||= JSON.stringify(response).slice(0, 300);
      }
    });
  };
  // Sample every SAMPLE_MS under steady load; a checkpoint's figure is the
  // median of the samples in its last fifth (RSS swings with each
  // isolate's garbage collection: one sample is noise).
  const trace: { answered: number; rssMb: number; threads: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    let logged = 0;
    while (sampling) {
      trace.push({ answered, ...await sample(pid) });
      const crossed = checkpoints.find((c) => c > logged && answered >= c);
      if (crossed) {
        logged = crossed;
        console.error(
          `  ${JSON.stringify(trace.at(-1))} ${await threadNames(pid)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
  })();
  const lanes: Promise<void>[] = [];
  for (let lane = 0; lane < WINDOW; lane++) {
    lanes.push((async () => {
      while (sent < calls) await send();
    })());
  }
  await Promise.all(lanes);
  sampling = false;
  await sampler;
  for (const checkpoint of checkpoints) {
    const window = trace.filter((t) =>
      t.answered > checkpoint * 0.8 && t.answered <= checkpoint
    );
    const chosen = window.length ? window : [trace.at(-1)!];
    samples.push({
      after: `${checkpoint} calls`,
      rssMb: median(chosen.map((t) => t.rssMb)),
      threads: median(chosen.map((t) => t.threads)),
    });
  }
  const busyMs = performance.now() - began;
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  samples.push({
    after: `${idleMs / 1000} s idle`,
    ...await sample(pid),
  });
  console.error(
    `  ${JSON.stringify(samples.at(-1))} ${await threadNames(pid)}`,
  );
  await wave.close();
  await Deno.remove(dir, { recursive: true });
  if (errors) console.error(`  ${errors} error results, first: ${firstError}`);

  const first = samples[0];
  const last = samples[checkpoints.length - 1];
  const idle = samples.at(-1)!;
  const trail = samples.map((s) =>
    `${s.after}: ${s.rssMb.toFixed(0)} MB, ${s.threads} threads`
  ).join("; ");
  return [
    {
      name: `soak: RSS after ${last.after} ÷ after ${first.after}`,
      value: last.rssMb / first.rssMb,
      unit: "×",
      target: "≤ 1.2",
      ok: last.rssMb / first.rssMb <= 1.2,
      detail: `start ${start.rssMb.toFixed(0)} MB; ${trail}`,
    },
    {
      name: `soak: threads after ${last.after} ÷ after ${first.after}`,
      value: last.threads / first.threads,
      unit: "×",
      target: "≤ 1.2",
      ok: last.threads / first.threads <= 1.2,
      detail: `start ${start.threads}`,
    },
    {
      name: `soak: RSS after ${idle.after} ÷ after ${first.after}`,
      value: idle.rssMb / first.rssMb,
      unit: "×",
      target: "≤ 1.2",
      ok: idle.rssMb / first.rssMb <= 1.2,
    },
    {
      name: `soak: threads after ${idle.after} ÷ after ${first.after}`,
      value: idle.threads / first.threads,
      unit: "×",
      detail:
        `idle workers retired: ${idle.threads} threads vs ${start.threads} at start`,
    },
    {
      name: "soak: calls/s",
      value: calls / (busyMs / 1000),
      unit: "calls/s",
      detail: `${calls} calls (${errors} error results) in ${
        (busyMs / 1000).toFixed(1)
      } s, ${WINDOW} in flight`,
    },
  ];
}
