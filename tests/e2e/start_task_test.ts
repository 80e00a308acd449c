/**
 * `deno task start` runs in the folder of deno.json, but `--workspace` and
 * its default mean the directory the user ran it from: `INIT_CWD`, which
 * `deno task` sets to that directory unless it is already set (npm's
 * convention; `npx` sets it to its own directory).
 *
 * @module
 */

import assert from "node:assert/strict";
import { ROOT } from "../_wave.ts";
import { tempDir } from "../_temp.ts";

/** The environment of a shell with no `INIT_CWD` (this test may run under npx, which sets one). */
function shellEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { ...extra };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function initFromTask(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", `${ROOT}deno.json`, "start", ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: shellEnv({ WAVE_HOME: `${cwd}/.wave-home`, ...env }),
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout).split("\n")[0]);
}

Deno.test("deno task start: a relative --workspace resolves against the directory the task was run from", async () => {
  const dir = await Deno.realPath(await tempDir());
  await Deno.mkdir(`${dir}/sub`);
  const init = await initFromTask(dir, ["--workspace", "sub"]);
  assert.equal(init.cwd, `${dir}/sub`);
});

Deno.test("deno task start: the workspace defaults to the directory the task was run from", async () => {
  const dir = await Deno.realPath(await tempDir({ prefix: "a b " }));
  const init = await initFromTask(dir, []);
  assert.equal(init.cwd, dir);
});

Deno.test("deno task start: an INIT_CWD already set (as npx sets it) is the directory run from", async () => {
  const dir = await Deno.realPath(await tempDir());
  const elsewhere = await Deno.realPath(await tempDir());
  const init = await initFromTask(elsewhere, [], { INIT_CWD: dir });
  assert.equal(init.cwd, dir);
});
