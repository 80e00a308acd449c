import assert from "node:assert/strict";
import { ProcessGroups, signalGroup } from "../../session/processes.ts";

async function exited(child: Deno.ChildProcess) {
  const status = await child.status;
  return status.signal;
}

Deno.test("signalGroup: a whole group, and a process that leads no group yet (or never will)", async () => {
  // A group leader with a child in its group.
  const leader = new Deno.Command("bash", {
    args: ["-c", "sleep 30 & wait"],
    detached: true,
    stdout: "null",
  }).spawn();
  await new Promise((r) => setTimeout(r, 100));
  signalGroup(leader.pid, "SIGKILL");
  assert.equal(await exited(leader), "SIGKILL");

  // A child in wave's own group (as ripgrep is, or a setsid not yet done): no group of that id.
  const plain = new Deno.Command("sleep", { args: ["30"] }).spawn();
  signalGroup(plain.pid, "SIGTERM");
  assert.equal(await exited(plain), "SIGTERM");

  // Gone already: nothing to do, no throw.
  signalGroup(plain.pid, "SIGKILL");
  // Never our own group (0) or init (1).
  signalGroup(0, "SIGKILL");
  signalGroup(1, "SIGKILL");
});

Deno.test("ProcessGroups: only the call that started a group may signal it; killAll reaches every group", async () => {
  const groups = new ProcessGroups();
  const child = new Deno.Command("sleep", { args: ["30"], detached: true })
    .spawn();
  groups.started(child.pid, "call-1", 7);
  groups.signal(child.pid, "call-2", "SIGKILL");
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(
    Deno.readTextFileSync(`/proc/${child.pid}/stat`).split(") ")[1][0] !==
      "Z",
    true,
    "another call's signal is ignored",
  );
  assert.deepEqual(groups.ofWorker(7), [child.pid]);
  groups.killAll();
  assert.equal(await exited(child), "SIGKILL");
  assert.deepEqual(groups.ofWorker(7), []);
});
