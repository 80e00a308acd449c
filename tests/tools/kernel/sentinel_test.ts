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

/** This test's session: another session of the same process has another prefix. */
const PREFIX = `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(") ") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

Deno.test("sentinel: its stdin ended, it kills the groups it was told of and every process with a marker of its session, not a group that ended nor another session's", async () => {
  const grouped = sleeper();
  // In a group the sentinel was not told of: found by its session's marker.
  const marked = sleeper({
    WAVE_COMMAND: `${PREFIX}-${crypto.randomUUID()}`,
  });
  const otherSession = sleeper({
    WAVE_COMMAND: `${Deno.pid}-other-${crypto.randomUUID()}`,
  });
  const ended = sleeper();
  const sentinel = new Sentinel("WAVE_COMMAND", PREFIX, () => ({
    sh: findOnPath("sh"),
    setsid: findOnPath("setsid"),
  }));
  try {
    sentinel.watchGroup(grouped.pid);
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
    assert.ok(
      alive(otherSession.pid),
      "another session's process is left alone",
    );
  } finally {
    for (const child of [grouped, marked, otherSession, ended]) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
    }
  }
});

Deno.test("sentinel: with no sh it is never started, and every call is harmless", async () => {
  const sentinel = new Sentinel("WAVE_COMMAND", PREFIX, () => ({}));
  sentinel.watchGroup(2);
  sentinel.watchCgroups("/nonexistent");
  sentinel.forgetGroup(1);
  assert.equal(sentinel.pid, undefined);
  await sentinel.close();
});

Deno.test("sentinel: it is never told a group id that kill would read as every process (0, 1, not an integer)", async () => {
  // With nothing to tell, it is not even started.
  let asked = false;
  const probe = new Sentinel("WAVE_COMMAND", PREFIX, () => {
    asked = true;
    return {};
  });
  for (const pgid of [0, 1, -5, 1.5, Number.NaN]) probe.watchGroup(pgid);
  probe.watchCgroups("/a\nb");
  assert.equal(asked, false);
  await probe.close();
});
