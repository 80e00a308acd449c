/**
 * The sentinel: once its stdin ends (wave gone), it kills the process
 * groups and the marked processes it was told of, and nothing it was told
 * had ended.
 */

import assert from "node:assert/strict";
import { Sentinel } from "../../../tools/kernel/sentinel.ts";
import { findOnPath } from "../../../tools/kernel/programs.ts";
import { waitUntil } from "../../_waiting.ts";

/** Starts `sleep` in a process group of its own (setsid), with `env`; its pid (= its group). */
function sleeper(env: Record<string, string> = {}): Deno.ChildProcess {
  return new Deno.Command("setsid", {
    args: ["sleep", "300"],
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(") ") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

Deno.test("sentinel: its stdin ended, it kills the groups and marked processes it was told of, not a group that ended", async () => {
  const grouped = sleeper();
  const marker = crypto.randomUUID();
  // In a group the sentinel was not told of: found by its marker.
  const marked = sleeper({ WAVE_COMMAND: marker });
  const ended = sleeper();
  const sentinel = new Sentinel("WAVE_COMMAND", () => ({
    sh: findOnPath("sh"),
    setsid: findOnPath("setsid"),
  }));
  try {
    sentinel.watchGroup(grouped.pid);
    sentinel.watchGroup(999_999_999, marker);
    sentinel.watchGroup(ended.pid);
    sentinel.forgetGroup(ended.pid);
    assert.ok(sentinel.pid !== undefined);
    await sentinel.close();
    await waitUntil(
      () => !alive(grouped.pid) && !alive(marked.pid),
      "the watched group and the marked process killed",
    );
    assert.equal((await grouped.status).signal, "SIGKILL");
    assert.equal((await marked.status).signal, "SIGKILL");
    assert.ok(alive(ended.pid), "a group it was told had ended is left alone");
  } finally {
    for (const child of [grouped, marked, ended]) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
    }
  }
});

Deno.test("sentinel: with no sh it is never started, and every call is harmless", async () => {
  const sentinel = new Sentinel("WAVE_COMMAND", () => ({}));
  sentinel.watchGroup(1, "m");
  sentinel.watchCgroups("/nonexistent");
  sentinel.forgetGroup(1);
  assert.equal(sentinel.pid, undefined);
  await sentinel.close();
});

Deno.test("sentinel: it is never told a group id that kill would read as every process (0, 1, not an integer)", async () => {
  // With nothing to tell, it is not even started.
  let asked = false;
  const probe = new Sentinel("WAVE_COMMAND", () => {
    asked = true;
    return {};
  });
  for (const pgid of [0, 1, -5, 1.5, Number.NaN]) probe.watchGroup(pgid);
  probe.watchCgroups("/a\nb");
  assert.equal(asked, false);
  await probe.close();
});

Deno.test("sentinel: a process carrying a marker of this wave (its pid first) dies with it, told or not", async () => {
  const untold = sleeper({
    WAVE_COMMAND: `${Deno.pid}-${crypto.randomUUID()}`,
  });
  // Another wave's marker: not this one's to kill.
  const other = sleeper({ WAVE_COMMAND: `1-${crypto.randomUUID()}` });
  const sentinel = new Sentinel("WAVE_COMMAND", () => ({
    sh: findOnPath("sh"),
    setsid: findOnPath("setsid"),
  }));
  try {
    sentinel.watchCgroups("/nonexistent"); // something to tell: it starts
    await sentinel.close();
    await waitUntil(() => !alive(untold.pid), "the untold marked process");
    assert.equal((await untold.status).signal, "SIGKILL");
    assert.ok(alive(other.pid), "another wave's process is left alone");
  } finally {
    for (const child of [untold, other]) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
    }
  }
});
