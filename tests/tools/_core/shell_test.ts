/** The shell runner, in-process (spec 001 命令; docs/design.md layer 3). */
import assert from "node:assert/strict";
import { MAX_VIEW_CHARS } from "../../../tools/_core/capture.ts";
import {
  describeShellResult,
  discardPrepared,
  prepareShell,
  runShell,
} from "../../../tools/_core/shell.ts";
import { TestSession } from "../../_context.ts";
import { processesLeft, processesStarted } from "../../_processes.ts";
import { INTERRUPT_WITHIN_MS, waitUntil, within } from "../../_waiting.ts";
import { tempDir } from "../../_temp.ts";

const run = (
  s: TestSession,
  script: string,
  timeoutMs = 20_000,
  program: "bash" | "powershell" = "bash",
) => runShell(s.context(), { program, script, cwd: s.workspace, timeoutMs });

const unique = () =>
  `${3000 + Math.floor(Math.random() * 1000)}.${
    Math.floor(Math.random() * 1000)
  }`;

Deno.test("001 shell: bash runs in the workspace; stdout and stderr kept apart; exit code", async () => {
  const s = await TestSession.create();
  const r = await run(s, "pwd; echo out; echo err >&2; exit 4");
  assert.equal(r.exitCode, 4);
  assert.equal(r.stdout, `${s.workspace}\nout\n`);
  assert.equal(r.stderr, "err\n");
  assert.equal(r.output.includes("out") && r.output.includes("err"), true);
  assert.equal(r.timedOut, false);
  assert.equal(r.cancelled, false);
  assert.equal(
    describeShellResult(r, 1000),
    `${s.workspace}\nout\nerr\nExit code 4`,
  );
  assert.deepEqual(s.groups, new Set(), "the group was reported ended");
});

Deno.test("001 shell: stdin is /dev/null; the environment is only what the session allows", async () => {
  const s = await TestSession.create();
  s.env = { PATH: "/usr/bin:/bin", HOME: "/nowhere" };
  const r = await run(s, "cat; env | sort");
  assert.equal(
    r.stdout.split("\n").filter((l) =>
      /^[A-Z_]+=/.test(l) && !l.startsWith("PWD=") && !l.startsWith("SHLVL=") &&
      !l.startsWith("_=")
    ).join("\n").replace(/(WAVE_COMMAND=)\d+-test-[0-9a-f-]{36}/, "$1<marker>"),
    // The marker that finds what a command detaches (tools/kernel/processes.ts).
    "HOME=/nowhere\nPATH=/usr/bin:/bin\nWAVE_COMMAND=<marker>",
  );
});

Deno.test("001 shell: timeout kills the whole group (SIGTERM, then SIGKILL)", async () => {
  const s = await TestSession.create();
  const t = unique();
  const r = await run(
    s,
    `trap '' TERM; sleep ${t} & sleep ${t}; echo never`,
    500,
  );
  assert.equal(r.timedOut, true);
  assert.equal(r.output.includes("never"), false);
  assert.match(
    describeShellResult(r, 500),
    /Timed out after 1 s; the command and its children were killed\./,
  );
  assert.deepEqual(await processesLeft(`sleep ${t}`), []);
});

Deno.test("001 shell: the command leads a session and process group of its own, through setsid or without it", async () => {
  const s = await TestSession.create();
  assert.ok(s.programs.setsid, "util-linux setsid is installed here");
  for (const setsid of [s.programs.setsid, undefined]) {
    s.programs = { ...s.programs, setsid: setsid! };
    if (!setsid) delete s.programs.setsid;
    const started: number[] = [];
    const context = s.context();
    const r = await runShell(
      {
        ...context,
        processes: {
          ...context.processes,
          started: (pgid) => started.push(pgid),
        },
      },
      {
        program: "bash",
        // pid, then the process group and session from /proc (fields 5 and 6).
        script: "echo $$; cut -d' ' -f5,6 /proc/$$/stat",
        cwd: s.workspace,
        timeoutMs: 20_000,
      },
    );
    const [pid, ids] = r.stdout.trim().split("\n");
    assert.equal(ids, `${pid} ${pid}`, `setsid ${setsid ?? "absent"}`);
    assert.deepEqual(started, [Number(pid)]);
  }
});

for (const mode of ["setsid", "detached"] as const) {
  Deno.test(`001 shell: interrupt cancels the command and its background children (${mode})`, async () => {
    const s = await TestSession.create();
    if (mode === "detached") delete s.programs.setsid;
    const t = unique();
    const pending = run(s, `sleep ${t} & sleep ${t} & echo started; wait`);
    await s.waitForProgress(/started/);
    assert.equal((await processesStarted(`sleep ${t}`, 2)).length, 2);
    const started = performance.now();
    s.controller.abort();
    const r = await within(pending, 30_000, "the interrupted command");
    const took = performance.now() - started;
    // README: an interrupt ends a turn, and so the command, within a second.
    assert.ok(took < INTERRUPT_WITHIN_MS, `the interrupt took ${took} ms`);
    assert.equal(r.cancelled, true);
    assert.deepEqual(await processesLeft(`sleep ${t}`), []);
  });
}

Deno.test("001 shell: a grandchild holding the pipes does not hang the call, and is killed", async () => {
  const s = await TestSession.create();
  const t = unique();
  // Not a speed check: without the pipe grace the call would last the hour the grandchild sleeps.
  const r = await within(
    run(s, `echo start; sleep ${t} & echo done`),
    30_000,
    "a call whose grandchild holds its pipes",
  );
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, "start\ndone\n");
  assert.deepEqual(await processesLeft(`sleep ${t}`), []);
});

Deno.test("001 shell: long output: the model sees head and tail, the spill file has every byte", async () => {
  const s = await TestSession.create();
  const r = await run(s, "seq 1 100000; echo tail-marker >&2");
  assert.equal(r.truncated, true);
  assert.ok(
    r.output.length <= MAX_VIEW_CHARS + 200,
    `view is ${r.output.length} characters`,
  );
  assert.ok(r.output.startsWith("1\n2\n3\n"));
  assert.match(
    r.output,
    /\[… \d+ bytes of output left out; the full output is in .* …\]/,
  );
  // stdout and stderr are two pipes: their relative order is not fixed, their own order is.
  // Cut, stderr keeps a section of its own, so it is never cut away.
  assert.ok(
    r.output.endsWith("100000\n[stderr]\ntail-marker\n"),
    r.output.slice(-100),
  );

  assert.ok(r.stdout.endsWith("99999\n100000\n"));
  assert.equal(r.stderr, "tail-marker\n");

  assert.ok(r.fullPath!.startsWith(`${s.waveHome}/spill/test/`));
  const expected = await new Deno.Command("bash", {
    args: ["-c", "seq 1 100000"],
  }).output();
  // The spill keeps arrival order: every stdout byte in order, with stderr's chunk where it came.
  const spilled = new TextDecoder().decode(await Deno.readFile(r.fullPath!));
  assert.equal(spilled.length, expected.stdout.length + "tail-marker\n".length);
  const at = spilled.indexOf("tail-marker\n");
  assert.equal(
    spilled.slice(0, at) + spilled.slice(at + "tail-marker\n".length),
    new TextDecoder().decode(expected.stdout),
  );

  assert.match(
    describeShellResult(r, 1000),
    /Output was \d+ bytes; only its start and end are shown\. The full output is in /,
  );
  // Output streamed to the parent as progress, in bounded events.
  assert.ok(s.progress.length > 0);
  assert.ok(s.progress.every((p) => p.text.length <= 64 * 1024));
});

Deno.test("001 shell: short output spills nothing", async () => {
  const s = await TestSession.create();
  const r = await run(s, "echo small");
  assert.equal(r.truncated, false);
  assert.equal(r.fullPath, null);
  await assert.rejects(Deno.stat(`${s.waveHome}/spill`));
});

Deno.test("001 shell: powershell where pwsh is missing is a clear error", async () => {
  const s = await TestSession.create();
  delete s.programs.pwsh;
  await assert.rejects(
    run(s, "Write-Output hi", 1000, "powershell"),
    /^ToolError: powershell is not available: pwsh is not installed on this machine\. Use bash instead\./,
  );
});

// Deno.Command throws at once (not in the promise) for a program that is not installed.
const hasBwrap = (await Promise.resolve().then(() =>
  new Deno.Command("bwrap", {
    args: [
      "--ro-bind",
      "/",
      "/",
      "--unshare-net",
      "--unshare-pid",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "true",
    ],
    stdout: "null",
    stderr: "null",
  }).output()
).catch(() => ({ success: false }))).success;

Deno.test({
  name:
    "001 shell: under bubblewrap a write outside the workspace fails, inside it works, and there is no network",
  ignore: !hasBwrap,
  fn: async () => {
    const s = await TestSession.create();
    s.shellSandbox = {
      kind: "bwrap",
      hideDirs: [],
      hideFiles: [],
      showReadOnly: [],
      network: false,
    };
    const outside = await tempDir({ dir: "/var/tmp" });
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    try {
      const r = await run(
        s,
        `echo in > inside.txt; echo out > ${outside}/escape.txt; echo "exit=$?"; ` +
          `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo no-network`,
      );
      assert.equal(r.sandboxed, true);
      assert.match(r.stderr, /Read-only file system/);
      assert.match(r.stdout, /exit=1/);
      assert.match(r.stdout, /no-network/);
      assert.equal(
        await Deno.readTextFile(`${s.workspace}/inside.txt`),
        "in\n",
      );
      await assert.rejects(Deno.stat(`${outside}/escape.txt`));
    } finally {
      listener.close();
    }
  },
});

Deno.test("001 shell: output a child still writes after the shell exits is kept while it keeps coming (nothing read is dropped)", async () => {
  const s = await TestSession.create();
  // The child outlives the shell by ~3 s, never quiet for the 2 s grace.
  const r = await run(
    s,
    "(for i in $(seq 1 30); do echo line-$i; sleep 0.1; done) & echo started",
  );
  assert.equal(r.exitCode, 0);
  const lines = r.stdout.trim().split("\n");
  assert.equal(lines[0], "started");
  assert.deepEqual(
    lines.slice(1),
    Array.from({ length: 30 }, (_, i) => `line-${i + 1}`),
  );
});

Deno.test({
  name:
    "001 shell: sessions that share a thread each keep the processes made ahead for them: a command runs in its session's, another session's are left alone, a fourth session's push out those of the one that ran a command least recently, and a session's end kills its own",
  // The processes made ahead outlive each command by design; the test
  // kills them at its end.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sessions = await Promise.all(
      [0, 1, 2, 3].map(() => TestSession.create()),
    );
    const [a, b, c, d] = sessions;
    const spillOf = (s: TestSession) => s.context().spillDir;
    try {
      for (const s of sessions) {
        s.shellSandbox = { kind: "none", prepare: true };
      }
      // In a process made ahead, bash runs the script itself: $$ is its pid.
      const pidOf = async (s: TestSession) =>
        Number((await run(s, "echo $$")).stdout.trim());
      const prepared = async (s: TestSession, what: string) => {
        await waitUntil(() => s.groups.size === 2, `${what}: two made ahead`);
        return new Set(s.groups);
      };
      prepareShell(a.context(), "bash", a.workspace);
      const aAhead = await prepared(a, "a");
      assert.ok(aAhead.has(await pidOf(a)), "a's command ran in one of a's");
      const aNow = await prepared(a, "a after its command");

      prepareShell(b.context(), "bash", b.workspace);
      const bAhead = await prepared(b, "b");
      assert.ok(bAhead.has(await pidOf(b)), "b's command ran in one of b's");
      await prepared(b, "b after its command");
      // b's command left a's alone: a's next runs in one of them.
      assert.deepEqual(a.groups, aNow);
      assert.ok(aNow.has(await pidOf(a)));
      const aLast = await prepared(a, "a after its second command");

      prepareShell(c.context(), "bash", c.workspace);
      await prepared(c, "c");
      assert.deepEqual(a.groups, aLast, "three sessions' are kept");
      // A fourth: b ran a command least recently (a's second came after
      // it), so b's go, and b's records say they ended.
      prepareShell(d.context(), "bash", d.workspace);
      await prepared(d, "d");
      assert.deepEqual(b.groups, new Set());
      assert.deepEqual(a.groups, aLast);
      assert.equal(c.groups.size, 2);

      // A session that ends: its own are killed, no one else's.
      const cAhead = [...c.groups];
      discardPrepared(spillOf(c));
      assert.deepEqual(c.groups, new Set());
      assert.deepEqual(a.groups, aLast);
      for (const pid of cAhead) {
        await waitUntil(() => {
          try {
            return Deno.readTextFileSync(`/proc/${pid}/stat`).includes(") Z ");
          } catch {
            return true; // reaped
          }
        }, `c's process ${pid} killed`);
      }
    } finally {
      for (const s of sessions) discardPrepared(spillOf(s));
    }
  },
});

Deno.test({
  name:
    "001 shell: nothing is made ahead for a session that has ended: not when it ends before the prepare, nor the second one after the first was made",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const s = await TestSession.create();
    s.shellSandbox = { kind: "none", prepare: true };
    const spill = s.context().spillDir;
    try {
      // Ended before: nothing at all.
      s.controller.abort();
      prepareShell(s.context(), "bash", s.workspace);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(s.groups, new Set());
      // Ended right after the first was made: the second never is.
      s.controller = new AbortController();
      prepareShell(s.context(), "bash", s.workspace);
      assert.equal(s.groups.size, 1);
      s.controller.abort();
      discardPrepared(spill);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(s.groups, new Set());
    } finally {
      discardPrepared(spill);
    }
  },
});

Deno.test({
  name:
    "001 shell: sessions that ask at once each get their first command's processes, one start after another",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const sessions = await Promise.all(
      [0, 1, 2].map(() => TestSession.create()),
    );
    try {
      for (const s of sessions) {
        s.shellSandbox = { kind: "none", prepare: true };
      }
      // The second and third ask while the first's are being started; the
      // second of them has ended by its turn, and the third still gets its.
      prepareShell(sessions[0].context(), "bash", sessions[0].workspace);
      prepareShell(sessions[1].context(), "bash", sessions[1].workspace);
      prepareShell(sessions[2].context(), "bash", sessions[2].workspace);
      sessions[1].controller.abort();
      for (const s of [sessions[0], sessions[2]]) {
        await waitUntil(() => s.groups.size === 2, "two made ahead");
      }
      assert.deepEqual(sessions[1].groups, new Set());
    } finally {
      for (const s of sessions) discardPrepared(s.context().spillDir);
    }
  },
});
