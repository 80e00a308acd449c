/**
 * Starting the real CLI as an unprivileged user (`nobody`), for the tests
 * that try to break out as one. Needs root (to drop to `nobody` with
 * `setpriv`); the Deno binary and its npm cache usually sit under /root,
 * where `nobody` cannot go, so both are linked (not copied) into a temp
 * directory it can read, beside a copy of wave's source.
 *
 * @module
 */

import { dirname } from "node:path";
import { ROOT, WaveProcess } from "../_wave.ts";
import { waveArgs } from "../../scripts/flags.ts";
import { tempDir } from "../_temp.ts";

/** uid and gid of `nobody`. */
export const NOBODY = 65534;

/** What an unprivileged wave runs from. */
export interface NobodyRuntime {
  /** The Deno binary, readable and executable by nobody. */
  deno: string;
  /** A DENO_DIR with wave's npm packages, writable by nobody. */
  denoDir: string;
  /** A copy of wave's source. */
  root: string;
  /** A directory owned by nobody, for workspaces and WAVE_HOMEs. */
  home: string;
}

async function run(cmd: string, args: string[]): Promise<boolean> {
  const out = await new Deno.Command(cmd, {
    args,
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }));
  return out.success;
}

let prepared: Promise<NobodyRuntime | string> | undefined;

/** The runtime (made once per test process), or why it cannot be made here. */
export function nobodyRuntime(): Promise<NobodyRuntime | string> {
  return prepared ??= prepare();
}

async function prepare(): Promise<NobodyRuntime | string> {
  if (Deno.uid() !== 0) return "the tests do not run as root";
  if (!await run("setpriv", ["--version"])) return "setpriv is not installed";
  const base = await tempDir({ prefix: "wave-nobody-", keep: "file" });
  await Deno.chmod(base, 0o755);
  const deno = `${base}/deno`;
  try {
    await Deno.link(Deno.execPath(), deno);
  } catch {
    await Deno.copyFile(Deno.execPath(), deno);
  }
  // The npm cache: hard links, in directories nobody may write (Deno adds files).
  const info = new TextDecoder().decode(
    (await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdout: "piped",
      stderr: "null",
    }).output()).stdout,
  );
  const npmCache = JSON.parse(info).npmCache as string;
  const denoDir = `${base}/deno_dir`;
  await Deno.mkdir(denoDir);
  if (!await run("cp", ["-al", npmCache, `${denoDir}/npm`])) {
    return `could not link Deno's npm cache (${npmCache})`;
  }
  // wave's source, without .git.
  const root = `${base}/wave`;
  if (
    !await run("bash", [
      "-c",
      `mkdir -p "$2" && cd "$1" && tar --exclude=.git -cf - . | tar -xf - -C "$2"`,
      "copy",
      ROOT,
      root,
    ])
  ) return "could not copy wave's source";
  const home = `${base}/nobody`;
  await Deno.mkdir(home);
  await run("chown", ["-R", `${NOBODY}:${NOBODY}`, home, root]);
  if (
    !await run("find", [
      denoDir,
      "-type",
      "d",
      "-exec",
      "chmod",
      "777",
      "{}",
      "+",
    ])
  ) return "could not open the npm cache to nobody";
  return { deno, denoDir, root, home };
}

/** A new directory owned by nobody. */
export async function nobodyDir(rt: NobodyRuntime, prefix: string) {
  const dir = await tempDir({ dir: rt.home, prefix });
  await Deno.chown(dir, NOBODY, NOBODY);
  return dir;
}

/** Starts wave as nobody and waits for `system/init`. */
export async function startWaveAsNobody(
  rt: NobodyRuntime,
  args: string[] = [],
  env: Record<string, string> = {},
  place: { workspace?: string; waveHome?: string } = {},
): Promise<WaveProcess> {
  const workspace = place.workspace ?? await nobodyDir(rt, "ws-");
  const waveHome = place.waveHome ?? await nobodyDir(rt, "wave-home-");
  const cli = waveArgs(["--workspace", workspace, ...args]).map((a) =>
    a.startsWith(ROOT) ? `${rt.root}/${a.slice(ROOT.length)}` : a
  );
  const child = new Deno.Command("setpriv", {
    args: [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      "--clear-groups",
      "--",
      rt.deno,
      ...cli,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: {
      PATH: `${dirname(rt.deno)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: rt.home,
      DENO_DIR: rt.denoDir,
      WAVE_HOME: waveHome,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      ...env,
    },
  }).spawn();
  const wave = new WaveProcess(child, workspace, waveHome);
  await wave.waitFor((m) => m.type === "system" && m.subtype === "init", {
    what: "system/init of a wave run as nobody",
    timeoutMs: 60_000,
  });
  return wave;
}
