/**
 * Shell figures: the overhead of a command through wave against a bare
 * `bash -c true` spawn, under the default sandbox (`auto`: bubblewrap where
 * it works) and unconfined (`none`), back to back and with a pause between
 * calls (time in which the next command's process is prepared), also
 * with `Read` deny rules over a workspace of {@linkcode TREE_FILES} files
 * (each command's sandbox hides what they cover, found at call time), and
 * wave's peak RSS while a command prints 1 GB.
 *
 * @module
 */

import { BenchWave, type Figure, median, time } from "./measure.ts";

/** The speed issue's target for `Bash true` ÷ `bash -c true`. */
const TRUE_TARGET = 1.5;
/** The pause between two calls, for the figures measured as a session makes them. */
const PAUSE_MS = 50;
/** The files of the workspace the deny-rule figure runs in. */
const TREE_FILES = 5_000;
/** The deny rules of that figure: a directory, and a name at any depth (a walk of the whole workspace per call). */
const DENY_RULES = ["--disallowedTools", "Read(secrets/**) Read(*.env)"];

/** The shell figures. */
export async function shell(runs = 21): Promise<Figure[]> {
  return [
    await trueRatio("auto", runs),
    await trueRatio("none", runs),
    // As in a session, where a model's turn comes between two commands:
    // the next command's process is prepared meanwhile.
    await trueRatio("auto", runs, PAUSE_MS),
    await trueRatio("none", runs, PAUSE_MS),
    await trueRatio("auto", runs, PAUSE_MS, true),
    await bigOutput(),
  ];
}

/** A wave on a new workspace (with `tree`, {@linkcode TREE_FILES} files in 50 directories, some under the deny rules), and a `Bash` call through it. */
async function benchWave(args: string[], tree = false) {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-shell-" }),
  );
  if (tree) {
    await Deno.mkdir(`${dir}/secrets`);
    await Deno.writeTextFile(`${dir}/secrets/key`, "k");
    for (let d = 0; d < 50; d++) {
      await Deno.mkdir(`${dir}/src/d${d}`, { recursive: true });
      for (let f = 0; f < TREE_FILES / 50; f++) {
        await Deno.writeTextFile(
          `${dir}/src/d${d}/f${f}${f % 100 === 0 ? ".env" : ".ts"}`,
          "x",
        );
      }
    }
    // As a workspace is between edits: no directory changed in the last second.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const d of [".", "secrets", "src"]) {
      await Deno.utime(`${dir}/${d}`, hourAgo, hourAgo);
    }
    for (let d = 0; d < 50; d++) {
      await Deno.utime(`${dir}/src/d${d}`, hourAgo, hourAgo);
    }
  }
  const wave = new BenchWave(["--workspace", dir, ...args], {
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
  const close = async () => {
    await wave.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { wave, call, close };
}

/**
 * `Bash true` through wave ÷ a bare `bash -c true` spawn, under
 * `--shell-sandbox sandbox`; back to back, or `pauseMs` after the last call.
 */
async function trueRatio(
  sandbox: string,
  runs: number,
  pauseMs = 0,
  denyRules = false,
): Promise<Figure> {
  const pause = () => new Promise((r) => setTimeout(r, pauseMs));
  const { call, close } = await benchWave(
    ["--shell-sandbox", sandbox, ...(denyRules ? DENY_RULES : [])],
    denyRules,
  );
  // deno-lint-ignore no-explicit-any
  const first = await call("true") as any;
  const confined = first.response?.structured?.sandboxed === true;
  const ours: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (pauseMs) await pause();
    ours.push(await time(() => call("true")));
    if (pauseMs) await pause();
    bare.push(
      await time(() =>
        new Deno.Command("bash", { args: ["-c", "true"] }).output()
      ),
    );
  }
  await close();
  const o = median(ours);
  const b = median(bare);
  return {
    name: `Bash \`true\` through wave ÷ bare \`bash -c true\` (${sandbox}: ${
      confined ? "bwrap" : "unconfined"
    }${pauseMs ? `, ${pauseMs} ms between calls` : ", back to back"}${
      denyRules ? `, Read deny rules over ${TREE_FILES} files` : ""
    })`,
    value: o / b,
    unit: "×",
    target: `≤ ${TRUE_TARGET}`,
    ok: o / b <= TRUE_TARGET,
    detail: `${o.toFixed(1)} ms vs ${b.toFixed(1)} ms (median of ${runs})`,
  };
}

/** wave's peak RSS while a command prints 1 GB. */
async function bigOutput(): Promise<Figure> {
  const { wave, call, close } = await benchWave([]);
  await call(
    "yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY | head -c 1073741824",
  );
  const status = await Deno.readTextFile(`/proc/${wave.child.pid}/status`);
  const peakMb = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
  await close();
  return {
    name: "peak RSS of wave while a command prints 1 GB",
    value: peakMb,
    unit: "MB",
    target: "< 200",
    ok: peakMb < 200,
  };
}
