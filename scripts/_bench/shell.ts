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
import { CommandSandbox } from "../../session/command_sandbox.ts";
import { bwrapArgs } from "../../tools/kernel/bwrap.ts";
import { findOnPath } from "../../tools/kernel/programs.ts";

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
    ...await trueRatio("auto", runs),
    ...await trueRatio("none", runs),
    // As in a session, where a model's turn comes between two commands:
    // the next command's process is prepared meanwhile.
    ...await trueRatio("auto", runs, PAUSE_MS),
    ...await trueRatio("none", runs, PAUSE_MS),
    ...await trueRatio("auto", runs, PAUSE_MS, true),
    await bigOutput(),
  ];
}

/**
 * bubblewrap run directly with the arguments wave gives a command in
 * `dir` (the same sandbox: namespaces, mounts, hidden paths), around
 * `bash -c true`: the floor of a confined command started at once, which
 * wave's prepared sandboxes take off a command's path. Undefined where
 * bubblewrap cannot make it.
 */
async function bareBwrap(dir: string): Promise<string[] | undefined> {
  const bwrap = findOnPath("bwrap");
  const bash = findOnPath("bash");
  if (!bwrap || !bash) return undefined;
  const sandbox = CommandSandbox.for({
    shellSandbox: "bwrap",
    allowNet: false,
    workspace: dir,
  });
  const confinement = await sandbox.confinement({
    workspace: dir,
    waveHome: `${dir}/.home`,
    spillDir: `${dir}/.home/spill`,
    home: Deno.env.get("HOME"),
    programs: { bash, bwrap },
  });
  if (confinement.kind !== "bwrap") {
    const { warning } = await sandbox.decided();
    console.error(
      `bare bwrap not made, no floor figure: ${warning ?? "no bubblewrap"}`,
    );
    return undefined;
  }
  const args = [
    bwrap,
    ...bwrapArgs(confinement, dir, dir),
    bash,
    "--noprofile",
    "--norc",
    "-c",
    "true",
  ];
  const tried = await new Deno.Command(args[0], {
    args: args.slice(1),
    stdout: "null",
    stderr: "piped",
  }).output();
  if (tried.success) return args;
  // Said, so that the figure's absence is not a mystery.
  console.error(
    `bare bwrap failed, no floor figure: ${
      new TextDecoder().decode(tried.stderr).trim()
    }`,
  );
  return undefined;
}

/** A wave on a new workspace (with `tree`, {@linkcode TREE_FILES} files in 50 directories, some under the deny rules), and a `Bash` call through it. */
async function benchWave(args: string[], tree = false) {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-shell-" }),
  );
  await Deno.mkdir(`${dir}/.home`);
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
  return { wave, call, close, dir };
}

/**
 * `Bash true` through wave ÷ a bare `bash -c true` spawn, under
 * `--shell-sandbox sandbox`; back to back, or `pauseMs` after the last
 * call. Confined, also wave ÷ bubblewrap run directly around `bash -c
 * true` with the same sandbox, timed after wave's calls.
 */
async function trueRatio(
  sandbox: string,
  runs: number,
  pauseMs = 0,
  denyRules = false,
): Promise<Figure[]> {
  const pause = () => new Promise((r) => setTimeout(r, pauseMs));
  const { call, close, dir } = await benchWave(
    ["--shell-sandbox", sandbox, ...(denyRules ? DENY_RULES : [])],
    denyRules,
  );
  // deno-lint-ignore no-explicit-any
  const first = await call("true") as any;
  const confined = first.response?.structured?.sandboxed === true;
  // (Without the deny rules: bareBwrap knows nothing of what they hide.)
  const bwrap = confined && !denyRules ? await bareBwrap(dir) : undefined;
  const ours: number[] = [];
  const bare: number[] = [];
  const floor: number[] = [];
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
  // Apart: between two calls, it would give wave's next sandbox time to
  // be made. Before the workspace goes: the sandbox's directory.
  for (let i = 0; bwrap && i < runs; i++) {
    if (pauseMs) await pause();
    const run = async () => {
      const out = await new Deno.Command(bwrap[0], { args: bwrap.slice(1) })
        .output();
      if (!out.success) throw new Error("bare bwrap failed");
    };
    floor.push(await time(run));
  }
  await close();
  const o = median(ours);
  const b = median(bare);
  const how = `${sandbox}: ${confined ? "bwrap" : "unconfined"}${
    pauseMs ? `, ${pauseMs} ms between calls` : ", back to back"
  }${denyRules ? `, Read deny rules over ${TREE_FILES} files` : ""}`;
  const figures: Figure[] = [{
    name: `Bash \`true\` through wave ÷ bare \`bash -c true\` (${how})`,
    value: o / b,
    unit: "×",
    target: `≤ ${TRUE_TARGET}`,
    ok: o / b <= TRUE_TARGET,
    detail: `${o.toFixed(1)} ms vs ${b.toFixed(1)} ms (median of ${runs})`,
  }];
  if (bwrap) {
    const f = median(floor);
    figures.push({
      name:
        `Bash \`true\` through wave ÷ bare \`bwrap … bash -c true\`, the same sandbox started at once (${how})`,
      value: o / f,
      unit: "×",
      detail: `${o.toFixed(1)} ms vs ${
        f.toFixed(1)
      } ms; bare bwrap ÷ bare bash ${(f / b).toFixed(2)}×`,
    });
  }
  return figures;
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
