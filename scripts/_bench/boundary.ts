/**
 * The cost of the race-free file boundary (issue 12): the same calls on the
 * 50,000-file tree through a wave whose file-tool workers are confined by
 * Landlock and through one held by path checks alone
 * (`--file-boundary paths`, as before Landlock), alternated in one run.
 *
 * @module
 */

import { landlockAbi } from "../../tools/kernel/landlock.ts";
import { generateTree, waveTime } from "./fs_tools.ts";
import { BenchWave, type Figure, paired, ratio, time } from "./measure.ts";

/** Landlock ÷ path checks for Read, Edit, Glob, Grep, and 2,000 pipelined Reads. */
export async function boundary(runs = 15): Promise<Figure[]> {
  if (landlockAbi() === 0) {
    console.error("  skipped: this kernel has no Landlock");
    return [];
  }
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-boundary-" }),
  );
  console.error(`  generating the tree in ${root} …`);
  await generateTree(root);
  const start = (args: string[]) =>
    new BenchWave(["--workspace", root, ...args], {
      WAVE_HOME: `${root}/.wave-home-${args.length}`,
    });
  const confined = start([]);
  const paths = start(["--file-boundary", "paths"]);
  await Promise.all([confined.ready(), paths.ready()]);
  // Both sessions' idle-time warm-up (workers, warm-up calls, the first
  // command's sandbox) done first: it would run in one session while the
  // other is timed, on the same cores.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  let id = 0;
  const figures: Figure[] = [];
  // Each session edits a file of its own, flipping one word back and forth.
  const mine = new Map<BenchWave, { file: string; upper: boolean }>([
    [confined, { file: "pkg3/mod3/file4.txt", upper: false }],
    [paths, { file: "pkg4/mod4/file4.txt", upper: false }],
  ]);
  const cases: [string, (wave: BenchWave) => Record<string, unknown>][] = [
    ["Read", (wave) => ({ file_path: mine.get(wave)!.file })],
    ["Edit", (wave) => {
      const state = mine.get(wave)!;
      const [from, to] = state.upper ? ["QUICK", "quick"] : ["quick", "QUICK"];
      state.upper = !state.upper;
      return {
        file_path: state.file,
        old_string: `line 0: the ${from}`,
        new_string: `line 0: the ${to}`,
      };
    }],
    ["Glob", () => ({ pattern: "**/*.ts" })],
    ["Grep", () => ({ pattern: "needle", output_mode: "content" })],
  ];
  for (const [name, input] of cases) {
    const [a, b] = await paired(
      runs,
      () => waveTime(confined, `c${id++}`, name, input(confined)),
      () => waveTime(paths, `p${id++}`, name, input(paths)),
    );
    figures.push(ratio(`${name}, Landlock ÷ path checks only`, a, b, 1.1, ""));
  }
  const pipelined = (wave: BenchWave) =>
    time(async () => {
      const answers: Promise<unknown>[] = [];
      for (let i = 0; i < 2000; i++) {
        answers.push(wave.request(`r${id++}`, {
          subtype: "call_tool",
          tool_name: "Read",
          input: {
            file_path: `pkg${i % 25}/mod${i % 500}/file${(i * 5 + 2) % 100}.md`,
          },
        }));
      }
      await Promise.all(answers);
    });
  const [pa, pb] = await paired(
    3,
    () => pipelined(confined),
    () => pipelined(paths),
  );
  figures.push(
    ratio(
      "2,000 pipelined Reads, Landlock ÷ path checks only",
      pa,
      pb,
      1.1,
      "",
    ),
  );
  await confined.close();
  await paths.close();
  await Deno.remove(root, { recursive: true });
  return figures;
}
