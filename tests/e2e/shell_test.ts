/**
 * End-to-end: the shell runner through Bash and shell (spec 001 命令;
 * issue "Must show"), against the real CLI.
 */

import assert from "node:assert/strict";
import { ALLOWED_ENV } from "../../session/environment.ts";
import { processesLeft, processesStarted } from "../_processes.ts";
import { INTERRUPT_WITHIN_MS, waitUntil } from "../_waiting.ts";
import { startWave, type WaveProcess } from "../_wave.ts";
import { tempDir } from "../_temp.ts";

/**
 * The tests of process groups and of the marker run commands unconfined:
 * that is what they test (the default confines commands in a pid
 * namespace, whose `$$` means nothing outside; tests/e2e/containment_test.ts).
 */
const UNCONFINED = ["--shell-sandbox", "none"];

/** Live (non-zombie) processes in process group `pgid`. */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const fields = Deno.readTextFileSync(`/proc/${entry.name}/stat`).split(
        ") ",
      )[1].split(" ");
      // fields: state ppid pgrp …
      if (Number(fields[2]) === pgid && fields[0] !== "Z") {
        pids.push(Number(entry.name));
      }
    } catch { /* gone */ }
  }
  return pids;
}

/**
 * The members of group `pgid` still there after at most `withinMs`: a
 * SIGKILL is delivered at once, but a process takes a moment to die.
 */
async function groupLeft(pgid: number, withinMs = 2000): Promise<number[]> {
  return await waitUntil(
    () => groupMembers(pgid).length === 0 && [],
    `process group ${pgid} to be empty`,
    { timeoutMs: withinMs },
  ).catch(() => groupMembers(pgid));
}

/** Starts a Bash call that backgrounds a sleep and sleeps; returns its process group. */
async function startSleeper(
  wave: WaveProcess,
  requestId: string,
): Promise<number> {
  await wave.send({
    type: "control_request",
    request_id: requestId,
    request: {
      subtype: "call_tool",
      tool_name: "Bash",
      // The background sleep is forked before the echo, so it is in the group once the pgid shows.
      input: { command: "sleep 100 & echo pgid $$; sleep 100" },
    },
  });
  const progress = await wave.waitFor(
    (m) => m.subtype === "tool_progress" && /pgid \d+/.test(m.text),
    { what: "the command's process group (tool_progress 'pgid N')" },
  );
  return Number(/pgid (\d+)/.exec(progress.text)![1]);
}

Deno.test("e2e 001: a command with a background child, interrupted: no process of its group is left", async () => {
  const wave = await startWave({ args: UNCONFINED });
  try {
    const pgid = await startSleeper(wave, "bg");
    assert.ok(
      groupMembers(pgid).length >= 2,
      "bash and its sleeps run in their own group",
    );
    const started = performance.now();
    await wave.request({ subtype: "interrupt" });
    const answer = await wave.waitFor((m) => m.response?.request_id === "bg");
    const took = performance.now() - started;
    // README: an interrupt ends a turn, and so the command, within a second.
    assert.ok(took < INTERRUPT_WITHIN_MS, `the interrupt took ${took} ms`);
    const result = answer.response.response;
    assert.equal(result.is_error, true);
    assert.equal(result.structured.cancelled, true);
    assert.match(
      result.content,
      /Interrupted; the command and its children were killed\./,
    );
    assert.deepEqual(await groupLeft(pgid), []);
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e 001: env inside a command shows nothing outside the allow-list; --env-allow adds a name", async () => {
  const wave = await startWave({
    env: {
      ANTHROPIC_API_KEY: "sk-ant-secret",
      OPENAI_API_KEY: "sk-openai-secret",
      GITHUB_TOKEN: "ghp_secret",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
      WAVE_PROJECT_FLAG: "visible",
      PATH: Deno.env.get("PATH")!,
    },
    args: ["--env-allow", "WAVE_PROJECT_FLAG", "--env-allow", "OPENAI_API_KEY"],
  });
  try {
    const r = await wave.callTool("Bash", { command: "env" });
    const names = r.structured.stdout.trim().split("\n").map((l: string) =>
      l.split("=")[0]
    ).sort();
    const allowed = new Set([
      ...ALLOWED_ENV,
      "WAVE_PROJECT_FLAG",
      "WAVE_COMMAND", // the marker that finds what a command detaches
      "PWD",
      "SHLVL",
      "_",
    ]);
    for (const name of names) {
      assert.ok(allowed.has(name), `${name} leaked into the command`);
    }
    assert.ok(names.includes("WAVE_PROJECT_FLAG"));
    for (
      const secret of [
        "sk-ant-secret",
        "sk-openai-secret",
        "ghp_secret",
        "aws-secret",
      ]
    ) {
      assert.ok(!r.content.includes(secret), `${secret} leaked`);
    }
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e 001: timeout kills the command's whole group", async () => {
  const wave = await startWave({ args: UNCONFINED });
  try {
    const r = await wave.callTool("Bash", {
      command: "echo pgid $$; sleep 50 & sleep 50",
      timeout: 800,
    });
    const pgid = Number(/pgid (\d+)/.exec(r.content)![1]);
    assert.equal(r.is_error, true);
    assert.equal(r.structured.timedOut, true);
    assert.match(r.content, /Timed out after 1 s/);
    assert.deepEqual(await groupLeft(pgid), []);
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e 001: a command that prints 1 GB: wave's RSS stays under 200 MB and the spill file has every byte", async () => {
  const wave = await startWave();
  try {
    const command =
      "yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY | head -c 1073741824";
    // 1 GB through wave takes ~10 s alone, over a minute on a loaded machine.
    const r = await wave.callTool(
      "Bash",
      { command, timeout: 600_000 },
      600_000,
    );
    assert.equal(r.is_error, false, r.content.slice(-500));
    assert.equal(r.structured.stdoutBytes, 1024 ** 3);
    assert.equal(r.structured.truncated, true);
    const status = await Deno.readTextFile(`/proc/${wave.child.pid}/status`);
    const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]);
    assert.ok(peakKb < 200 * 1024, `peak RSS ${Math.round(peakKb / 1024)} MB`);
    const spill = r.structured.fullPath as string;
    assert.ok(
      spill.startsWith(`${await Deno.realPath(wave.waveHome)}/spill/`),
      spill,
    );
    assert.equal((await Deno.stat(spill)).size, 1024 ** 3);
    // Every byte: the same digest as the command's own output.
    const [ours, theirs] = await Promise.all([
      new Deno.Command("sha256sum", { args: [spill] }).output(),
      new Deno.Command("bash", { args: ["-c", `${command} | sha256sum`] })
        .output(),
    ]);
    const digest = (out: Deno.CommandOutput) =>
      new TextDecoder().decode(out.stdout).split(" ")[0];
    assert.equal(digest(ours), digest(theirs));
    assert.ok(r.content.length < 31_000);
    await Deno.remove(spill);
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e 001: the model can read its spill file without an approval", async () => {
  const wave = await startWave({ args: ["--approvals", "deny"] });
  try {
    const r = await wave.callTool("Bash", { command: "seq 1 50000" });
    const read = await wave.callTool("Read", {
      file_path: r.structured.fullPath,
      offset: 49_999,
      limit: 2,
    });
    assert.equal(read.is_error, false, read.content);
    assert.equal(read.content, " 49999\t49999\n 50000\t50000");
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e 001: powershell missing is a clear error", async () => {
  const hasPwsh =
    (await new Deno.Command("bash", { args: ["-c", "command -v pwsh"] })
      .output()).success;
  if (hasPwsh) {
    return console.error(
      "pwsh is installed here; the missing case is covered in-process",
    );
  }
  const wave = await startWave({ args: ["--toolset", "sata"] });
  try {
    const r = await wave.callTool("shell", {
      Program: "powershell",
      Script: "Write-Output hi",
    });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      "powershell is not available: pwsh is not installed on this machine. Use bash instead.",
    );
  } finally {
    await wave.kill();
  }
});

const hasBwrap = (await new Deno.Command("bash", {
  args: [
    "-c",
    "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid true",
  ],
  stdout: "null",
  stderr: "null",
}).output()).success;

Deno.test({
  name: "e2e 001: --shell-sandbox bwrap blocks a write outside the workspace",
  ignore: !hasBwrap,
  fn: async () => {
    const outside = await tempDir({ dir: "/var/tmp" });
    const wave = await startWave({ args: ["--shell-sandbox", "bwrap"] });
    try {
      const r = await wave.callTool("Bash", {
        command: `touch ${outside}/pwned; s=$?; touch inside-ok; exit $s`,
      });

      assert.equal(r.structured.sandboxed, true);
      assert.equal(r.is_error, true);
      assert.match(r.content, /Read-only file system/);
      await assert.rejects(Deno.stat(`${outside}/pwned`));
      await Deno.stat(`${wave.workspace}/inside-ok`);
    } finally {
      await wave.kill();
    }
  },
});

Deno.test({
  name: "e2e 001: --shell-sandbox auto uses bubblewrap where it works",
  ignore: !hasBwrap,
  fn: async () => {
    const wave = await startWave({ args: ["--shell-sandbox", "auto"] });
    try {
      const r = await wave.callTool("Bash", { command: "echo ok" });
      assert.equal(r.structured.sandboxed, true);
    } finally {
      await wave.kill();
    }
  },
});

Deno.test("e2e 001: SIGTERM during a command kills its group and exits", async () => {
  const wave = await startWave({ args: UNCONFINED });
  const pgid = await startSleeper(wave, "long");
  wave.child.kill("SIGTERM");
  const status = await wave.wait();
  assert.equal(status.code, 143);
  assert.deepEqual(await groupLeft(pgid), []);
});

Deno.test("e2e 001: what a command detaches from its group (setsid, a double fork) does not outlive it", async () => {
  const wave = await startWave({ args: UNCONFINED });
  try {
    const n = 5000 + Math.floor(Math.random() * 1000);
    const detached = [
      // Its own session, started by the shell itself.
      `setsid sleep ${n}.1 > /dev/null 2>&1 < /dev/null &`,
      // A double fork: the subshell exits at once, the sleeper is orphaned.
      `(setsid sleep ${n}.2 > /dev/null 2>&1 < /dev/null &)`,
      // nohup in a subshell: same group, killed with it.
      `(nohup sleep ${n}.3 > /dev/null 2>&1 &)`,
    ];
    const r = await wave.callTool("Bash", {
      command: `${detached.join("\n")}\necho started`,
    });
    assert.equal(r.content, "started");
    for (const k of [1, 2, 3]) {
      assert.deepEqual(
        await processesLeft(`sleep ${n}.${k}`),
        [],
        `sleep ${n}.${k} outlived its command`,
      );
    }
    // The session goes on.
    assert.equal(
      (await wave.callTool("Bash", { command: "echo ok" })).content,
      "ok",
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("e2e 001: a detached process lives as long as its command; shutdown takes the rest", async () => {
  const wave = await startWave({ args: UNCONFINED });
  try {
    const n = 6000 + Math.floor(Math.random() * 1000);
    // A command that detaches a sleeper and keeps running until the test lets it end.
    await wave.sendCall("long", "Bash", {
      command: `setsid sleep ${n}.1 >/dev/null 2>&1 </dev/null & ` +
        "echo started; while [ ! -e go ]; do sleep 0.02; done; echo done",
    });
    await wave.waitFor(
      (m) => m.subtype === "tool_progress" && m.text.includes("started"),
      { what: "the detaching command's start (tool_progress 'started')" },
    );
    assert.equal(
      (await processesStarted(`sleep ${n}.1`)).length,
      1,
      "still running with its command",
    );
    wave.put("go", "");
    await wave.waitFor((m) => m.response?.request_id === "long", {
      what: "the detaching command's end, once told to go",
    });
    assert.deepEqual(
      await processesLeft(`sleep ${n}.1`),
      [],
      "gone once its command ended",
    );

    // Shutdown: a command still running when wave stops, and what it detached.
    await wave.sendCall("last", "Bash", {
      command: `setsid sleep ${n}.2 >/dev/null 2>&1 </dev/null & sleep 100`,
    });
    await processesStarted(`sleep ${n}.2`);
    wave.child.kill("SIGTERM");
    assert.equal((await wave.wait()).code, 143);
    assert.deepEqual(
      await processesLeft(`sleep ${n}.2`),
      [],
      "shutdown left a detached process",
    );
  } finally {
    await wave.kill();
  }
});
