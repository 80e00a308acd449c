import assert from "node:assert/strict";
import {
  COMMAND_MARKER,
  ProcessGroups,
  signalGroup,
} from "../../../tools/kernel/processes.ts";

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

Deno.test("ProcessGroups: killing or ending a command's group also kills the children left with its marker, and only those", async () => {
  const groups = new ProcessGroups();
  const spawn = (marker?: string) =>
    new Deno.Command("sleep", {
      args: ["30"],
      env: marker ? { [COMMAND_MARKER]: marker } : {},
    }).spawn();
  // Stand-ins for processes a command detached: children of this process, untracked.
  const leftByKilled = spawn("killed-command");
  const leftByEnded = spawn("ended-command");
  const unrelated = spawn();
  const running = spawn("running-command");
  const killed = spawn();
  const ended = spawn();
  groups.started(killed.pid, "call-1", 1, "killed-command");
  groups.started(ended.pid, "call-2", 1, "ended-command");
  groups.started(running.pid, "call-3", 1, "running-command");

  groups.kill([killed.pid]);
  assert.equal(await exited(leftByKilled), "SIGKILL");
  ended.kill("SIGKILL");
  await ended.status;
  groups.ended(ended.pid);
  assert.equal(await exited(leftByEnded), "SIGKILL");
  await new Promise((r) => setTimeout(r, 300)); // the late sweep too
  for (const child of [unrelated, running]) {
    const stat = Deno.readTextFileSync(`/proc/${child.pid}/stat`);
    assert.notEqual(stat.split(") ")[1][0], "Z", "left alone");
  }
  groups.killAll();
  assert.equal(await exited(running), "SIGKILL");
  unrelated.kill("SIGKILL");
  await unrelated.status;
});
