/**
 * Shell figures: the overhead of a command through wave against a bare
 * `bash -c true` spawn, and wave's peak RSS while a command prints 1 GB.
 *
 * @module
 */

import { BenchWave, type Figure, median, time } from "./measure.ts";

/** The shell figures. */
export async function shell(runs = 21): Promise<Figure[]> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-shell-" }),
  );
  const wave = new BenchWave(["--workspace", dir], {
    WAVE_HOME: `${dir}/.home`,
    PATH: Deno.env.get("PATH")!,
  });
  await wave.ready();
  let id = 0;
  const call = (command: string) =>
    wave.request(`s${id++}`, {
      subtype: "call_tool",
      tool_name: "Bash",
      input: { command, timeout: 600_000 },
    });
  await call("true");
  const ours: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(await time(() => call("true")));
    bare.push(
      await time(() =>
        new Deno.Command("bash", { args: ["-c", "true"] }).output()
      ),
    );
  }
  const o = median(ours);
  const b = median(bare);

  await call(
    "yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY | head -c 1073741824",
  );
  const status = await Deno.readTextFile(`/proc/${wave.child.pid}/status`);
  const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
  await wave.close();
  await Deno.remove(dir, { recursive: true });
  return [
    {
      name: "Bash `true` through wave ÷ bare `bash -c true`",
      value: o / b,
      unit: "×",
      detail: `${o.toFixed(1)} ms vs ${b.toFixed(1)} ms (median of ${runs})`,
    },
    {
      name: "peak RSS of wave while a command prints 1 GB",
      value: peakMb,
      unit: "MB",
      target: "< 200",
      ok: peakMb < 200,
    },
  ];
}
