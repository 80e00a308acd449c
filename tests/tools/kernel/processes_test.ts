import assert from "node:assert/strict";
import {
  COMMAND_MARKER,
  ProcessGroups,
  signalGroup,
} from "../../../tools/kernel/processes.ts";
import { commandCgroupParent } from "../../../session/command_sandbox.ts";

/** Whether a pid is a live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1][0] !==
      "Z";
  } catch {
    return false;
  }
}

async function exited(child: Deno.ChildProcess) {
  const status = await child.status;
  return status.signal;
}

/**
 * Whether a stand-in for a process a command left (here Deno's own child)
 * was killed by a sweep: Deno saw its SIGKILL, or the sweep reaped it
 * first (a sweep reaps what it killed once it has died, and only that),
 * and Deno found no child to wait for.
 */
async function sweptAway(child: Deno.ChildProcess): Promise<boolean> {
  try {
    return (await child.status).signal === "SIGKILL";
  } catch (error) {
    return error instanceof Error && /No child processes/.test(error.message);
  }
}

Deno.test("signalGroup: a whole group, and a process that leads no group yet (or never will)", async () => {
  // A group leader with a child in its group.
  // It prints its child's pid once the child is running in its group.
  const leader = new Deno.Command("bash", {
    args: ["-c", "sleep 30 & echo $!; wait"],
    detached: true,
    stdout: "piped",
  }).spawn();
  const reader = leader.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const member = Number((await reader.read()).value);
  signalGroup(leader.pid, "SIGKILL");
  assert.equal(await exited(leader), "SIGKILL");
  await reader.cancel();
  // The member dies too (it is not our child, so its end is seen in /proc).
  for (let i = 0; i < 200 && alive(member); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(alive(member), false, "the group's other member was killed");

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
  // Had another call's SIGKILL gone out, it would end the process before
  // the SIGTERM below: a queued SIGKILL always wins.
  groups.signal(child.pid, "call-2", "SIGKILL");
  groups.signal(child.pid, "call-1", "SIGTERM");
  assert.equal(
    await exited(child),
    "SIGTERM",
    "another call's signal is ignored",
  );

  const second = new Deno.Command("sleep", { args: ["30"], detached: true })
    .spawn();
  groups.started(second.pid, "call-3", 7);
  assert.deepEqual(groups.ofWorker(7).includes(second.pid), true);
  groups.killAll();
  assert.equal(await exited(second), "SIGKILL");
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
  assert.ok(await sweptAway(leftByKilled));
  ended.kill("SIGKILL");
  await ended.status;
  groups.ended(ended.pid, 1);
  assert.ok(await sweptAway(leftByEnded));
  // The late sweep, run now: it too leaves the others alone. A SIGKILL it
  // had sent would win over the SIGTERM sent after it.
  groups.sweep();
  for (const child of [unrelated, running]) {
    child.kill("SIGTERM");
    assert.equal(await exited(child), "SIGTERM", "left alone by the sweeps");
  }
  // killAll reaches what a still-running command detached.
  const stillRunning = spawn("running-command");
  groups.killAll();
  assert.ok(await sweptAway(stillRunning));
});

Deno.test("ProcessGroups: killAll leaves alone a marked process another session's groups started (several sessions in one process, as in a test run)", async () => {
  const mine = new ProcessGroups();
  const theirs = new ProcessGroups();
  const spawn = (marker: string) =>
    new Deno.Command("sleep", {
      args: ["30"],
      env: { [COMMAND_MARKER]: marker },
    }).spawn();
  const leader = spawn("mine");
  const foreign = spawn("theirs");
  mine.started(leader.pid, "call-1", 1, "mine");
  theirs.started(foreign.pid, "call-2", 2, "theirs");
  mine.killAll();
  assert.equal(await exited(leader), "SIGKILL");
  // A SIGKILL from mine.killAll would win over this SIGTERM.
  foreign.kill("SIGTERM");
  assert.equal(await exited(foreign), "SIGTERM", "another session's process");
  theirs.killAll();
});

Deno.test("ProcessGroups: a group adopted by another call of its worker is that call's to signal", async () => {
  const groups = new ProcessGroups();
  const child = new Deno.Command("sleep", { args: ["30"], detached: true })
    .spawn();
  groups.started(child.pid, "call-1", 7, undefined, undefined, true);
  // Another worker's call cannot take it.
  groups.adopt(child.pid, "call-9", 8);
  groups.signal(child.pid, "call-9", "SIGKILL");
  groups.adopt(child.pid, "call-2", 7);
  groups.signal(child.pid, "call-1", "SIGKILL");
  groups.signal(child.pid, "call-2", "SIGTERM");
  assert.equal(await exited(child), "SIGTERM");
  groups.ended(child.pid, 7);
});

/** Where this process may make cgroups, as wave looks for it. */
const cgroupParent = commandCgroupParent();

Deno.test("ProcessGroups: a command's cgroup is emptied when its group ends, reused once its call releases it, and removed by killAll", async () => {
  if (!cgroupParent) {
    console.error("skipped (this user cannot make cgroup v2 cgroups here)");
    return;
  }
  const groups = new ProcessGroups();
  const dir = groups.makeCgroup(cgroupParent);
  const spare = groups.makeCgroup(cgroupParent);
  assert.notEqual(dir, spare);
  // A leader and an escapee (a new session, a cleared environment), both in the cgroup.
  const child = new Deno.Command("sh", {
    args: [
      "-c",
      'echo $$ > "$0"; env -i setsid sleep 31 & echo $!; exec sleep 30',
      `${dir}/cgroup.procs`,
    ],
    detached: true,
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const escapee = Number((await reader.read()).value);
  await reader.cancel();
  groups.started(child.pid, "call-1", 7, "marker", dir);
  // The call's end releases what its command did not join: reused at once.
  groups.releaseCgroups([dir, spare]);
  assert.equal(groups.makeCgroup(cgroupParent), spare);
  // The group's end kills everything in its cgroup.
  groups.kill([child.pid]);
  assert.equal(await exited(child), "SIGKILL");
  for (let i = 0; i < 200 && alive(escapee); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(alive(escapee), false, "what left the group died with it");
  assert.match(
    Deno.readTextFileSync(`${dir}/cgroup.events`),
    /^populated 0$/m,
  );
  // Not reused before its call releases it.
  const other = groups.makeCgroup(cgroupParent);
  assert.notEqual(other, dir);
  groups.releaseCgroups([dir]);
  // Held by a worker for a process it is starting ahead: not the call's to
  // release; ended (and so reusable) when that worker ends.
  groups.hold(other, 7);
  groups.releaseCgroups([other]);
  const third = groups.makeCgroup(cgroupParent);
  assert.ok(third !== other, "a held cgroup is not reused");
  groups.releaseHeld(7);
  assert.equal(groups.makeCgroup(cgroupParent), other);
  groups.killAll();
  for (const made of [dir, spare, other, third]) {
    for (let i = 0; i < 200; i++) {
      try {
        Deno.statSync(made);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.throws(() => Deno.statSync(made), Deno.errors.NotFound);
  }
});

Deno.test("ProcessGroups: the sweep after a command ends runs off the call's path (offPath), once for every end that came while it waited", async () => {
  const groups = new ProcessGroups();
  const offPath: (() => void)[] = [];
  groups.offPath = (task) => offPath.push(task);
  const spawn = (marker?: string) =>
    new Deno.Command("sleep", {
      args: ["30"],
      env: marker ? { [COMMAND_MARKER]: marker } : {},
    }).spawn();
  const leftByFirst = spawn("first-command");
  const leftBySecond = spawn("second-command");
  const first = spawn();
  const second = spawn();
  groups.started(first.pid, "call-1", 1, "first-command");
  groups.started(second.pid, "call-2", 1, "second-command");
  // Each marked child has its marker by now (read from /proc, as the sweep reads it).
  for (const child of [leftByFirst, leftBySecond]) {
    while (
      !Deno.readTextFileSync(`/proc/${child.pid}/environ`).includes(
        COMMAND_MARKER,
      )
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  for (const ended of [first, second]) {
    ended.kill("SIGKILL");
    await ended.status;
  }
  groups.ended(first.pid, 1);
  groups.ended(second.pid, 1);
  // Nothing swept yet: the sweep waits for the call's answer.
  assert.equal(offPath.length, 1);
  assert.ok(alive(leftByFirst.pid) && alive(leftBySecond.pid));
  offPath.shift()!();
  assert.equal(await exited(leftByFirst), "SIGKILL");
  assert.equal(await exited(leftBySecond), "SIGKILL");
  groups.killAll();
});

/**
 * A process leading a group of its own that is not this process's child:
 * a shell's, which waits for it (so it is not reparented to this process,
 * a subreaper once another test has made it one). Killing the process
 * ends the shell.
 */
async function foreignGroup(): Promise<
  { pid: number; shell: Deno.ChildProcess }
> {
  const shell = new Deno.Command("sh", {
    args: ["-c", "setsid sleep 30 >/dev/null 2>&1 & echo $!; wait"],
    stdout: "piped",
  }).spawn();
  const reader = shell.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    text += new TextDecoder().decode((await reader.read()).value);
  }
  reader.releaseLock();
  return { pid: Number(text.trim()), shell };
}

Deno.test("ProcessGroups: a group this process did not start is not taken on a worker's word, so it is never signalled or killed", async () => {
  const groups = new ProcessGroups();
  const { pid, shell } = await foreignGroup();
  try {
    assert.equal(groups.started(pid, "call-1", 7), false);
    groups.signal(pid, "call-1", "SIGKILL");
    assert.equal(groups.adopt(pid, "call-1", 7), false);
    groups.kill(groups.ofWorker(7));
    groups.killAll();
    // A process group's number no process could lead, and pid 1's.
    assert.equal(groups.started(1, "call-1", 7), false);
    assert.equal(groups.started(-5, "call-1", 7), false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(alive(pid), "the foreign group was killed");
  } finally {
    Deno.kill(pid, "SIGKILL");
    await shell.stdout.cancel();
    await shell.status;
  }
});

Deno.test("ProcessGroups: a group one worker started cannot be taken, ended or adopted by another", async () => {
  const groups = new ProcessGroups();
  const child = new Deno.Command("sleep", { args: ["30"], detached: true })
    .spawn();
  assert.equal(groups.started(child.pid, "call-1", 7), true);
  assert.equal(groups.started(child.pid, "call-9", 8), false);
  assert.equal(groups.adopt(child.pid, "call-9", 8), false);
  groups.ended(child.pid, 8);
  assert.deepEqual(groups.ofWorker(7), [child.pid]);
  assert.deepEqual(groups.ofWorker(8), []);
  groups.kill(groups.ofWorker(7));
  assert.equal(await exited(child), "SIGKILL");
});
