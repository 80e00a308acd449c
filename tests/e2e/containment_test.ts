/**
 * End-to-end: a command tries to break out, under the default
 * configuration (`--shell-sandbox auto`), as an attacker would (issue 13):
 * wave's environment, memory and stdin, writes outside the workspace, the
 * network, mounts and namespaces as root, the home directory; and every
 * kind of process that tries to outlive its command, at every way a call
 * can end. Run as root, and again as `nobody` where the tests run as root.
 */

import assert from "node:assert/strict";
import { processesLeft, processesStarted } from "../_processes.ts";
import {
  type Message,
  type StartOptions,
  startWave,
  waveCommand,
  WaveProcess,
} from "../_wave.ts";
import { nobodyRuntime, startWaveAsNobody } from "./_unprivileged.ts";
import { landlockAbi } from "../../tools/kernel/landlock.ts";
import { waitUntil } from "../_waiting.ts";
import { commandCgroupParent } from "../../session/command_sandbox.ts";
import {
  capabilityBound,
  unconfinedRootWarning,
} from "../../session/environment.ts";
import { tempDir } from "../_temp.ts";

const SECRET = `sk-ant-contain-${crypto.randomUUID()}`;
/** How the file tools are held here (system/init's `sandbox.files`). */
const FILES = landlockAbi() > 0 ? "landlock" : "paths";

/** bubblewrap makes its sandbox here (as this user); else the tests say why they cannot run. */
const bwrapWorks = (await new Deno.Command("bash", {
  args: ["-c", "bwrap --ro-bind / / --unshare-all --cap-drop ALL true"],
  stdout: "null",
  stderr: "null",
}).output().catch(() => ({ success: false }))).success;
const noBwrap = bwrapWorks
  ? false
  : "bubblewrap is missing or cannot make namespaces here";

/** Who wave runs as in a test: root (this process), or nobody. */
interface Runner {
  name: string;
  /** Why it cannot run here, if it cannot. */
  skip(): Promise<string | false>;
  start(options?: StartOptions): Promise<WaveProcess>;
}

const asThisUser: Runner = {
  name: Deno.uid() === 0 ? "root" : "this user",
  skip: () => Promise.resolve(noBwrap),
  start: (options = {}) =>
    startWave({
      ...options,
      env: { ANTHROPIC_API_KEY: SECRET, ...options.env },
    }),
};

const asNobody: Runner = {
  name: "nobody",
  skip: async () => {
    const rt = await nobodyRuntime();
    if (typeof rt === "string") return rt;
    const ok = (await new Deno.Command("setpriv", {
      args: [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "bwrap",
        "--ro-bind",
        "/",
        "/",
        "--unshare-all",
        "true",
      ],
      stdout: "null",
      stderr: "null",
    }).output()).success;
    return ok ? false : "nobody cannot make user namespaces here";
  },
  start: async (options = {}) => {
    const rt = await nobodyRuntime();
    if (typeof rt === "string") throw new Error(rt);
    const env = { ANTHROPIC_API_KEY: SECRET, ...options.env };
    return await startWaveAsNobody(rt, options.args ?? [], env, options);
  },
};

/** The directory Deno's cache is under now, for a wave given another HOME. */
function denoCacheHome(): string {
  return Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`;
}

/** A test under each runner; skipped with a message where it cannot run. */
function attack(
  name: string,
  fn: (runner: Runner) => Promise<void>,
): void {
  for (const runner of [asThisUser, asNobody]) {
    Deno.test(`containment as ${runner.name}: ${name}`, async () => {
      const why = await runner.skip();
      if (why) {
        console.error(`skipped (${why})`);
        return;
      }
      await fn(runner);
    });
  }
}

/** A Bash call's answer, and its stdout and stderr together as `all`. */
async function bash(wave: WaveProcess, command: string): Promise<Message> {
  const r = await wave.callTool("Bash", { command });
  return { ...r, all: `${r.structured?.stdout}${r.structured?.stderr}` };
}

attack("system/init says how commands are confined", async (runner) => {
  const wave = await runner.start();
  try {
    const init = wave.messages[0];
    assert.deepEqual(init.sandbox, {
      commands: "bwrap",
      orphans: "pid_namespace",
      network: false,
      files: FILES,
    });
    assert.ok(
      !wave.messages.some((m) => m.subtype === "warning"),
      "no warning where commands are confined",
    );
  } finally {
    await wave.kill();
  }
});

attack(
  "wave's environment, memory and descriptors are out of reach",
  async (runner) => {
    const wave = await runner.start();
    try {
      const pid = wave.child.pid;
      const r = await bash(
        wave,
        [
          `cat /proc/${pid}/environ /proc/$PPID/environ`,
          `cat /proc/[0-9]*/environ`,
          `head -c 4096 /proc/${pid}/mem`,
          `ls -l /proc/${pid}/fd/`,
          `ls /proc/${pid} >/dev/null && echo WAVE-VISIBLE`,
          `grep -c . /proc/${pid}/maps && echo WAVE-MAPS`,
          `kill -9 ${pid} && echo KILLED`,
          "true",
        ].join("; "),
      );
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes(SECRET), "the API key leaked");
      assert.ok(!r.all.includes("WAVE-VISIBLE"), r.all);
      assert.ok(!r.all.includes("WAVE-MAPS"), r.all);
      assert.ok(!r.all.includes("KILLED"), r.all);
      // wave is alive and serving.
      assert.equal((await bash(wave, "echo alive")).content, "alive");
    } finally {
      await wave.kill();
    }
  },
);

attack("a command cannot inject lines into wave's stdin", async (runner) => {
  const wave = await runner.start();
  try {
    const pid = wave.child.pid;
    const line = JSON.stringify({
      type: "control_request",
      request_id: "injected",
      request: { subtype: "list_tools" },
    });
    const r = await bash(
      wave,
      `for fd in /proc/${pid}/fd/0 /proc/$PPID/fd/0 /proc/1/fd/0 /dev/tty; do ` +
        `printf '%s\\n' '${line}' > $fd && echo "wrote $fd"; done; true`,
    );
    assert.equal(r.structured.sandboxed, true);
    assert.doesNotMatch(r.all, new RegExp(`wrote /proc/${pid}/`));
    // A request sent after the command: anything injected would be read before it.
    await wave.request({ subtype: "list_tools" }, "after");
    assert.deepEqual(
      wave.messages.filter((m) => m.response?.request_id === "injected"),
      [],
    );
  } finally {
    await wave.kill();
  }
});

attack(
  "a command cannot write outside the workspace; inside it can",
  async (runner) => {
    const wave = await runner.start();
    const marker = `pwned-${crypto.randomUUID()}`;
    try {
      const targets = ["/tmp", "/var/tmp", "/", wave.waveHome];
      const r = await bash(
        wave,
        `${targets.map((t) => `echo x > ${t}/${marker}`).join("; ")}; ` +
          "echo ok > inside.txt",
      );
      assert.equal(r.is_error, false, r.all);
      for (const target of targets) {
        await assert.rejects(
          Deno.stat(`${target}/${marker}`),
          `${target}/${marker} was written`,
        );
      }
      assert.equal(
        await Deno.readTextFile(`${wave.workspace}/inside.txt`),
        "ok\n",
      );
    } finally {
      await wave.kill();
    }
  },
);

attack(
  "a command cannot reach a 127.0.0.1 listener; with --allow-net it can",
  async (runner) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    let accepted = 0;
    const accepting = (async () => {
      for await (const conn of listener) {
        accepted++;
        conn.close();
      }
    })();
    const probe =
      `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo no-network`;
    try {
      const wave = await runner.start();
      try {
        assert.equal((await bash(wave, probe)).content, "no-network");
        assert.equal(accepted, 0);
      } finally {
        await wave.kill();
      }
      const open = await runner.start({ args: ["--allow-net"] });
      try {
        assert.equal(open.messages[0].sandbox.network, true);
        assert.equal((await bash(open, probe)).content, "connected");
      } finally {
        await open.kill();
      }
    } finally {
      listener.close();
      await accepting.catch(() => {});
    }
  },
);

attack(
  "mounts and namespaces: no capabilities, no remount, no way into wave's namespaces",
  async (runner) => {
    const wave = await runner.start();
    const marker = `/pwned-${crypto.randomUUID()}`;
    try {
      const pid = wave.child.pid;
      const r = await bash(
        wave,
        [
          "grep CapEff /proc/self/status",
          "umount /tmp && echo UMOUNTED-TMP",
          `mount -o remount,bind,rw / && touch ${marker} && echo REMOUNTED`,
          "umount /proc && echo UMOUNTED-PROC",
          `cat /proc/[0-9]*/environ`,
          `nsenter --net=/proc/${pid}/ns/net true && echo NSENTER`,
          `nsenter -t 1 -a true && echo NSENTER-INIT`,
          "unshare -r true && echo UNSHARED",
          "true",
        ].join("; "),
      );
      assert.match(r.all, /CapEff:\s+0000000000000000/);
      for (const escape of ["UMOUNTED", "REMOUNTED", "NSENTER", "UNSHARED"]) {
        assert.ok(!r.all.includes(escape), `${escape}:\n${r.all}`);
      }
      assert.ok(!r.all.includes(SECRET), "the API key leaked");
      await assert.rejects(Deno.stat(marker), `${marker} was written`);
    } finally {
      await wave.kill();
    }
  },
);

attack(
  "the home directory, WAVE_HOME and password hashes are absent; a workspace under HOME is not",
  async (runner) => {
    // A home with credentials, and a workspace inside it (as nobody, its own).
    const fake = runner === asNobody ? undefined : await fakeHome();
    const wave = await runner.start(
      // Deno's cache where it is, not under the new HOME (a cold cache
      // downloads every package of deno.lock before the first call).
      fake
        ? {
          env: { HOME: fake, XDG_CACHE_HOME: denoCacheHome() },
          workspace: `${fake}/proj`,
        }
        : {},
    );
    try {
      const home = (await bash(wave, "echo $HOME")).content;
      await Deno.mkdir(`${home}/.ssh`, { recursive: true });
      await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, "PRIVATE KEY");
      await wave.callTool("Write", { file_path: "x", content: "x" });
      await Deno.mkdir(`${wave.waveHome}/sessions`, { recursive: true });
      await Deno.writeTextFile(
        `${wave.waveHome}/sessions/other.jsonl`,
        "OTHER SESSION",
      );
      const r = await bash(
        wave,
        `ls -a $HOME/.ssh; cat $HOME/.ssh/id_ed25519; ls -a $HOME; ` +
          `cat ${wave.waveHome}/sessions/*; ls -a /root; cat /root/.bashrc; ` +
          "cat /etc/shadow; cat /etc/passwd | head -1; true",
      );
      assert.equal(r.structured.sandboxed, true);
      for (
        const secret of ["PRIVATE KEY", "OTHER SESSION", "root:$", "root:*"]
      ) {
        assert.ok(!r.all.includes(secret), `${secret} is visible:\n${r.all}`);
      }
      assert.match(r.all, /^root:x:0:0:/m, "/etc/passwd is readable");
      assert.match(r.all, /\.ssh': No such file or directory/);
      const mine = await bash(wave, "echo made > made.txt; cat x; ls");
      assert.equal(mine.content, "xmade.txt\nx");
    } finally {
      await wave.kill();
    }
  },
);

/** A directory nobody can read too (the tests' temp directories are 700). */
async function openDir(prefix: string, dir?: string): Promise<string> {
  const path = await Deno.realPath(await tempDir({ prefix, dir }));
  await Deno.chmod(path, 0o755);
  return path;
}

/** A directory for `runner`'s wave to write: nobody's, or a temp one. */
/**
 * Removes a workspace once nothing of a killed wave works in it any more:
 * a sandbox it was making when it died finishes (bubblewrap makes the
 * mount points of sealed paths) and exits, which takes a moment.
 */
async function removeWorkspace(ws: string): Promise<void> {
  await leftAfter(() => processesOf(ws));
  await Deno.remove(ws, { recursive: true });
}

async function ownDir(runner: Runner, prefix: string): Promise<string> {
  const dir = await openDir(prefix);
  if (runner === asNobody) await Deno.chown(dir, 65534, 65534);
  return dir;
}

attack(
  "a shell installed under a hidden home shows alone: the home stays hidden",
  async (runner) => {
    // A home (hidden as HOME) with a secret, and bash and a pwsh in its bin.
    const home = await openDir("wave-shellhome-");
    await Deno.mkdir(`${home}/bin`);
    await Deno.copyFile(
      new TextDecoder().decode(
        (await new Deno.Command("bash", {
          args: ["-c", "command -v bash"],
          stdout: "piped",
        }).output()).stdout,
      ).trim(),
      `${home}/bin/bash`,
    );
    await Deno.writeTextFile(`${home}/bin/pwsh`, "#!/bin/sh\nexit 0\n");
    await Deno.chmod(`${home}/bin/bash`, 0o755);
    await Deno.chmod(`${home}/bin/pwsh`, 0o755);
    await Deno.writeTextFile(`${home}/secret.txt`, "HOME SECRET");
    const wave = await runner.start({
      env: {
        HOME: home,
        PATH: `${home}/bin:/usr/local/bin:/usr/bin:/bin`,
        XDG_CACHE_HOME: denoCacheHome(),
      },
    });
    try {
      const r = await bash(
        wave,
        `cat ${home}/secret.txt; ls -a ${home} | grep -x secret.txt && echo LISTED; ` +
          `echo "shell: $BASH"; true`,
      );
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes("HOME SECRET"), r.all);
      assert.ok(!r.all.includes("LISTED"), r.all);
      // The shell ran from the home, shown again alone and read-only.
      assert.match(r.all, new RegExp(`shell: ${home}/bin/bash`));
      const w = await bash(wave, `echo x > ${home}/bin/bash || echo RO`);
      assert.match(w.all, /RO/);
    } finally {
      await wave.kill();
      await Deno.remove(home, { recursive: true });
    }
  },
);

attack(
  "a WAVE_HOME at the top level of the file system is hidden; system directories are not",
  async (runner) => {
    const waveHome = `/wave-top-${crypto.randomUUID()}`;
    await Deno.mkdir(`${waveHome}/sessions`, { recursive: true });
    await Deno.writeTextFile(
      `${waveHome}/sessions/other.jsonl`,
      "OTHER SESSION",
    );
    if (runner === asNobody) {
      await new Deno.Command("chown", {
        args: ["-R", "65534:65534", waveHome],
      }).output();
    }
    const wave = await runner.start({
      waveHome,
      env: { WAVE_HOME: waveHome },
    });
    try {
      const r = await bash(
        wave,
        `cat ${waveHome}/sessions/other.jsonl; ls ${waveHome}; ls /usr/bin/env /etc/passwd; true`,
      );
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes("OTHER SESSION"), r.all);
      assert.match(r.all, /\/usr\/bin\/env/);
      assert.match(r.all, /\/etc\/passwd/);
    } finally {
      await wave.kill();
      await Deno.remove(waveHome, { recursive: true });
    }
  },
);

attack(
  "a WAVE_HOME not made yet cannot be planted: wave makes it (700) before the first command",
  async (runner) => {
    const ws = await ownDir(runner, "wave-plant-");
    const waveHome = `${ws}/.wavehome`;
    const wave = await runner.start({
      workspace: ws,
      waveHome,
      env: { WAVE_HOME: waveHome },
    });
    try {
      const r = await bash(
        wave,
        `mkdir -p ${ws}/leak ${waveHome} && ln -s ${ws}/leak ${waveHome}/sessions; ` +
          `mkdir -p ${waveHome}/bin && echo x > ${waveHome}/bin/rg-planted; true`,
      );
      assert.equal(r.structured.sandboxed, true);
      const info = await Deno.lstat(waveHome);
      assert.ok(info.isDirectory);
      assert.equal((info.mode ?? 0) & 0o777, 0o700);
      await assert.rejects(Deno.lstat(`${waveHome}/sessions`));
      await assert.rejects(Deno.lstat(`${waveHome}/bin`));
    } finally {
      await wave.kill();
      await removeWorkspace(ws);
    }
  },
);

attack(
  "a home that does not exist yet in the workspace is sealed: a command cannot make it",
  async (runner) => {
    const ws = await ownDir(runner, "wave-unborn-");
    const home = `${ws}/home/me`;
    // Deno's cache where it is, not under the new HOME (which would make it).
    const wave = await runner.start({
      workspace: ws,
      env: { HOME: home, XDG_CACHE_HOME: denoCacheHome() },
    });
    try {
      const r = await bash(
        wave,
        `mkdir -p ${home}/.ssh && echo MADE; ln -s /etc ${home}/link && echo LINKED; true`,
      );
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes("MADE"), r.all);
      assert.ok(!r.all.includes("LINKED"), r.all);
      await assert.rejects(Deno.lstat(`${home}/.ssh`));
      await assert.rejects(Deno.lstat(`${home}/link`));
    } finally {
      await wave.kill();
      await removeWorkspace(ws);
    }
  },
);

attack(
  "a workspace / gets a fresh /proc, /dev and /tmp",
  async (runner) => {
    const marker = `/tmp/wave-hosttmp-${crypto.randomUUID()}`;
    await Deno.writeTextFile(marker, "HOST TMP");
    const wave = await runner.start({ workspace: "/" });
    try {
      const pid = wave.child.pid;
      const r = await bash(
        wave,
        `cat ${marker}; test -e /proc/${pid} && echo HOST-PROC; ` +
          `ls /proc | grep -c '^[0-9]'; ls /dev | wc -l; true`,
      );
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes("HOST TMP"), r.all);
      assert.ok(!r.all.includes("HOST-PROC"), r.all);
      const [procs, devs] = r.structured.stdout.trim().split("\n").map(Number);
      assert.ok(procs < 10, `${procs} processes in /proc`);
      assert.ok(devs < 30, `${devs} entries in /dev`);
    } finally {
      await wave.kill();
      await Deno.remove(marker);
    }
  },
);

attack(
  "the API key file is hidden from commands; one inside the workspace is warned of",
  async (runner) => {
    const dir = await openDir("wave-key-", "/var/tmp");
    const file = `${dir}/key`;
    await Deno.writeTextFile(file, `${SECRET}\n`);
    await Deno.chmod(file, 0o644);
    const wave = await runner.start({
      args: ["--model", "anthropic:claude-test", "--api-key-file", file],
    });
    try {
      const r = await bash(wave, `cat ${file}; ls -l ${file}; true`);
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes(SECRET), r.all);
      assert.ok(
        !wave.messages.some((m) => m.subtype === "warning"),
        "no warning for a key outside the workspace",
      );
    } finally {
      await wave.kill();
    }
    // Inside the workspace: left visible (it is the workspace), and said.
    const ws = await ownDir(runner, "wave-keyws-");
    await Deno.copyFile(file, `${ws}/key`);
    await Deno.chmod(`${ws}/key`, 0o644);
    const inside = await runner.start({
      workspace: ws,
      args: ["--model", "anthropic:claude-test", "--api-key-file", `${ws}/key`],
    });
    try {
      const warning = await inside.waitFor((m) => m.subtype === "warning");
      assert.match(
        warning.message,
        new RegExp(`API key file ${ws}/key is inside the workspace`),
      );
    } finally {
      await inside.kill();
      await Deno.remove(dir, { recursive: true });
      await removeWorkspace(ws);
    }
  },
);

async function fakeHome(): Promise<string> {
  const home = await Deno.realPath(
    await tempDir({ prefix: "wave-fakehome-" }),
  );
  await Deno.mkdir(`${home}/proj`);
  return home;
}

// Orphans: every kind of process that tries to outlive its command.

/** Each kind, as a line of bash that starts `sleep <n>.<k>` and returns at once. */
const KINDS: [string, (n: number) => string][] = [
  ["plain &", (n) => `sleep ${n}.1 &`],
  ["setsid", (n) => `setsid sleep ${n}.2 >/dev/null 2>&1 </dev/null &`],
  ["nohup", (n) => `nohup sleep ${n}.3 >/dev/null 2>&1 </dev/null &`],
  ["double fork", (n) => `(sleep ${n}.4 >/dev/null 2>&1 </dev/null &)`],
  [
    "env -i + setsid",
    (n) => `env -i setsid sleep ${n}.5 >/dev/null 2>&1 </dev/null &`,
  ],
  [
    "env -i + setsid, double fork",
    (n) => `(env -i setsid sleep ${n}.6 >/dev/null 2>&1 </dev/null &)`,
  ],
];

/** Starts a command (with `input`'s other fields) that leaves every kind behind, then runs `rest`; resolves once all are running. */
async function leaveOrphans(
  wave: WaveProcess,
  n: number,
  rest: string,
  requestId: string,
  input: Record<string, unknown> = {},
): Promise<void> {
  await wave.sendCall(requestId, "Bash", {
    ...input,
    command: `${KINDS.map(([, line]) => line(n)).join("\n")}\n${rest}`,
  });
  for (let k = 1; k <= KINDS.length; k++) {
    await processesStarted(`sleep ${n}.${k}`);
  }
}

async function assertNoneLeft(n: number, ending: string): Promise<void> {
  const left: string[] = [];
  for (const [k, [kind]] of KINDS.entries()) {
    const pids = await processesLeft(`sleep ${n}.${k + 1}`);
    if (pids.length) left.push(`${kind} (${pids.join(", ")})`);
  }
  assert.deepEqual(left, [], `outlived ${ending}`);
}

const ENDINGS: [string, (wave: WaveProcess, n: number) => Promise<void>][] = [
  ["the call's end", async (wave, n) => {
    // A request id of its own: this ending runs twice in one wave.
    await leaveOrphans(
      wave,
      n,
      "while [ ! -e go ]; do sleep 0.02; done; echo done",
      `end-${n}`,
    );
    wave.put("go", "");
    const answer = await wave.waitFor((m) =>
      m.response?.request_id === `end-${n}`
    );
    assert.equal(answer.response.response.content, "done");
  }],
  ["a timeout", async (wave, n) => {
    await leaveOrphans(wave, n, "sleep 300", "timeout", { timeout: 2000 });
    const answer = await wave.waitFor((m) =>
      m.response?.request_id === "timeout"
    );
    assert.equal(answer.response.response.structured.timedOut, true);
  }],
  ["an interrupt", async (wave, n) => {
    await leaveOrphans(wave, n, "sleep 300", "int");
    await wave.request({ subtype: "interrupt" });
    const answer = await wave.waitFor((m) => m.response?.request_id === "int");
    assert.equal(answer.response.response.structured.cancelled, true);
  }],
  ["SIGTERM to wave", async (wave, n) => {
    await leaveOrphans(wave, n, "sleep 300", "term");
    wave.child.kill("SIGTERM");
    assert.equal((await wave.wait()).code, 143);
  }],
  ["SIGKILL to wave", async (wave, n) => {
    // Nothing of wave runs after this: what ends its commands must be
    // what it set up before (bubblewrap's death with it; the sentinel).
    await leaveOrphans(wave, n, "sleep 300", "kill");
    wave.child.kill("SIGKILL");
    assert.equal((await wave.wait()).signal, "SIGKILL");
  }],
  ["EOF on wave's stdin", async (wave, n) => {
    await leaveOrphans(
      wave,
      n,
      "while [ ! -e go ]; do sleep 0.02; done; echo done",
      "eof",
    );
    await wave.closeStdin();
    wave.put("go", "");
    assert.equal((await wave.wait()).code, 0);
  }],
];

/** Where wave, run as this user, makes its unconfined commands' cgroups (found as wave finds it); else why the tests cannot run. */
const cgroupParent = commandCgroupParent();
const noCgroups = cgroupParent
  ? false
  : "this user cannot make cgroup v2 cgroups here (no unified hierarchy mounted, or its own cgroup is not writable or not delegated)";

/** The command cgroups a wave has made and not yet removed. */
function cgroupsOf(wave: WaveProcess): string[] {
  return [...Deno.readDirSync(cgroupParent!)]
    .map((e) => e.name)
    .filter((name) => name.startsWith(`wave-command-${wave.child.pid}-`));
}

/** Seconds since boot, as /proc/uptime says. */
function uptime(): number {
  return Number(Deno.readTextFileSync("/proc/uptime").split(" ")[0]);
}

/**
 * Runs the same script as a session's first command (its process started
 * at once) and as its second (run in a process prepared while the session
 * waited, which started before the call was sent), and checks both see
 * the same: environment but the marker, directory, arguments, stdin, pid
 * layout, exit code.
 */
async function preparedLikeFresh(wave: WaveProcess): Promise<void> {
  const script = [
    // bash -c's $_ (its program), and its script where bash -c keeps it.
    'echo "[$_]"',
    `case $BASH_EXECUTION_STRING in 'echo "[$_]"'*) echo script-kept;; esac`,
    "env | grep -v ^WAVE_COMMAND= | sort",
    'pwd; echo "$0 $# $-"',
    "cat; echo stdin-closed",
    "ticks=$(getconf CLK_TCK); read -r -a stat < /proc/$$/stat",
    // The pid differs; whether the shell leads its group and session does not.
    '[ "${stat[4]}" = $$ ] && echo leads-group',
    '[ "${stat[5]}" = $$ ] && echo leads-session',
    'echo "started ${stat[21]} $ticks"',
    "exit 5",
  ].join("\n");
  const run = async (command: string) => {
    const sent = uptime();
    const r = await wave.callTool("Bash", { command });
    const [, ticks, hz] = /started (\d+) (\d+)\n$/.exec(
      r.structured.stdout,
    )!;
    return {
      out: r.structured.stdout.replace(/started .*\n$/, ""),
      code: r.structured.exitCode,
      stderr: r.structured.stderr,
      startedBeforeCall: Number(ticks) / Number(hz) < sent - 0.05,
    };
  };
  // Over 16 KiB, a script starts a process of its own (one may have been
  // prepared at idle time already).
  const fresh = await run(`${script}\n# ${"x".repeat(17_000)}`);
  // Time for the next command's process to be prepared.
  await new Promise((r) => setTimeout(r, 300));
  const prepared = await run(script);
  assert.equal(fresh.startedBeforeCall, false, "the first starts at once");
  assert.equal(prepared.startedBeforeCall, true, "the second was prepared");
  assert.equal(prepared.out, fresh.out);
  assert.equal(prepared.code, 5);
  assert.equal(fresh.code, 5);
  assert.equal(prepared.stderr, fresh.stderr);
  assert.match(fresh.out, /stdin-closed\n/);
  assert.match(fresh.out, /^\[\/[^\]\n]*bash\]\nscript-kept\n/);
}

attack(
  "a command in a process prepared ahead sees what one started at once sees",
  async (runner) => {
    const wave = await runner.start();
    try {
      await preparedLikeFresh(wave);
    } finally {
      await wave.kill();
    }
  },
);

/** wave's children waiting, prepared, for their command's script. */
function preparedOf(wave: WaveProcess): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const status = Deno.readTextFileSync(`/proc/${entry.name}/status`);
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`);
      if (
        new RegExp(`^PPid:\\s+${wave.child.pid}$`, "m").test(status) &&
        // bash waiting for its script (sh, for another shell).
        /read -r -d "" BASH_EXECUTION_STRING|read -r l/.test(cmdline)
      ) pids.push(Number(entry.name));
    } catch { /* gone */ }
  }
  return pids;
}

for (const sandbox of ["auto", "none"]) {
  Deno.test(`--shell-sandbox ${sandbox}: a prepared process that died is replaced, and a long script starts its own`, async () => {
    if (sandbox === "auto" && noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    const wave = await startWave({ args: ["--shell-sandbox", sandbox] });
    try {
      await wave.callTool("Bash", { command: "true" });
      await waitUntil(
        () => preparedOf(wave).length > 0,
        "the next command's process prepared",
      );
      // Time for every spare to be made (a sandbox keeps two).
      await new Promise((r) => setTimeout(r, 300));
      const prepared = preparedOf(wave);
      for (const pid of prepared) Deno.kill(pid, "SIGKILL");
      await waitUntil(() => preparedOf(wave).length === 0, "they are gone");
      const r = await wave.callTool("Bash", { command: "echo alive" });
      assert.equal(r.structured.stdout, "alive\n");
      assert.equal(r.structured.exitCode, 0);
      // And the next command's is prepared again.
      await waitUntil(
        () => preparedOf(wave).some((pid) => !prepared.includes(pid)),
        "a new process prepared",
      );
      // Longer than a prepared shell is sent (16 KiB): run all the same.
      const long = `: ${"x".repeat(20_000)}\necho long`;
      const l = await wave.callTool("Bash", { command: long });
      assert.equal(l.structured.stdout, "long\n");
      assert.equal(l.structured.exitCode, 0);
    } finally {
      await wave.closeStdin();
      await wave.wait();
    }
    assert.deepEqual(preparedOf(wave), [], "none left once wave has ended");
  });
}

/** wave's children that have exited and wait to be reaped (zombies), by pid and name. */
function zombiesOf(wave: WaveProcess): string[] {
  const zombies: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const status = Deno.readTextFileSync(`/proc/${entry.name}/status`);
      if (
        new RegExp(`^PPid:\\s+${wave.child.pid}$`, "m").test(status) &&
        /^State:\s+Z/m.test(status)
      ) {
        zombies.push(`${entry.name} ${/^Name:\s+(.*)$/m.exec(status)?.[1]}`);
      }
    } catch { /* gone */ }
  }
  return zombies;
}

for (const sandbox of ["auto", "none"]) {
  Deno.test(`--shell-sandbox ${sandbox}: what wave inherits from commands (bubblewrap's pid 1, killed orphans) is reaped, not left a zombie`, async () => {
    if (sandbox === "auto" && noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    const wave = await startWave({ args: ["--shell-sandbox", sandbox] });
    try {
      for (let i = 0; i < 5; i++) {
        const n = 8000 + Math.floor(Math.random() * 1000);
        const r = await wave.callTool("Bash", {
          // Orphans wave kills after the command (under none, they become
          // its children); under bubblewrap, its pid 1 does.
          command: `${KINDS.slice(1).map(([, line]) => line(n)).join("\n")}
echo ran`,
        });
        assert.equal(r.structured.stdout, "ran\n");
        assert.deepEqual(await processesLeft(`sleep ${n}.2`), []);
      }
      // The late sweep (250 ms after a command) reaps what was dying at the first.
      await waitUntil(
        () => zombiesOf(wave).length === 0,
        "no zombie child of wave",
        { detail: () => zombiesOf(wave).join(", ") },
      );
    } finally {
      await wave.closeStdin();
      await wave.wait();
    }
  });
}

Deno.test("under --shell-sandbox none, a command in a shell prepared ahead sees what one started at once sees", async () => {
  const wave = await startWave({ args: ["--shell-sandbox", "none"] });
  try {
    await preparedLikeFresh(wave);
  } finally {
    await wave.closeStdin();
    await wave.wait();
  }
});

/**
 * Ends a wave's call in the way `ending` says, and checks nothing it
 * started is left. The first command of a session starts its process at
 * once; later ones run in one prepared while the session waited: the
 * call's end is tried with both, the other endings (each can happen once)
 * with a prepared one.
 */
async function endAndCheck(
  wave: WaveProcess,
  ending: string,
  end: (wave: WaveProcess, n: number) => Promise<void>,
): Promise<void> {
  const n = 7000 + Math.floor(Math.random() * 2000);
  if (ending === "the call's end") {
    await end(wave, n);
    await assertNoneLeft(n, `${ending} (a command started at once)`);
    await Deno.remove(`${wave.workspace}/go`);
  } else {
    await wave.callTool("Bash", { command: "true" });
  }
  // Time for the next command's process to be prepared.
  await new Promise((r) => setTimeout(r, 200));
  await end(wave, n + 1);
  await assertNoneLeft(n + 1, `${ending} (a command in a prepared process)`);
}

for (const [ending, end] of ENDINGS) {
  // Under none, with no pid namespace, the cgroup each command runs in.
  Deno.test(`orphans under --shell-sandbox none: nothing a command starts outlives ${ending} (${KINDS.length} kinds, a cgroup per command)`, async () => {
    if (noCgroups) {
      console.error(`skipped (${noCgroups})`);
      return;
    }
    const wave = await startWave({ args: ["--shell-sandbox", "none"] });
    try {
      const { commands, orphans, network } = wave.messages[0].sandbox;
      assert.deepEqual({ commands, orphans, network }, {
        commands: "none",
        orphans: "cgroup",
        network: true,
      });
      await endAndCheck(wave, ending, end);
      if (ending === "SIGKILL to wave") {
        // The sentinel removes them, once it has emptied them.
        await waitUntil(
          () => cgroupsOf(wave).length === 0,
          "the killed wave's cgroups removed",
        );
        return;
      }
      // Its cgroups are empty (kept for the next commands) but the one
      // the next command's shell waits in, and removed when wave ends.
      const populated = cgroupsOf(wave).map((name) =>
        Deno.readTextFileSync(`${cgroupParent}/${name}/cgroup.procs`).trim()
      ).filter((procs) => procs !== "");
      assert.ok(populated.length <= 1, `populated: ${populated.join("; ")}`);
      // The shell, or (caught in the moment between joining the cgroup
      // and becoming that shell) the sh that starts it.
      for (const pid of populated) {
        const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
        assert.match(
          cmdline,
          /^(\/[^\0]*sh\0-c\0echo \$\$ [^\0]*\0[^\0]*\/cgroup\.procs\0)?\/[^\0]*sh\0--noprofile\0--norc\0-c\0IFS= read -r -d "" BASH_EXECUTION_STRING/,
          `only a shell waiting for the next command: ${
            cmdline.replaceAll("\0", " ")
          }`,
        );
      }
      await wave.closeStdin();
      await wave.wait();
      assert.deepEqual(cgroupsOf(wave), [], "no cgroup left behind");
    } finally {
      await wave.kill();
    }
  });

  attack(
    `nothing a command starts outlives ${ending} (${KINDS.length} kinds)`,
    async (runner) => {
      const wave = await runner.start();
      try {
        await endAndCheck(wave, ending, end);
      } finally {
        await wave.kill();
      }
    },
  );
}

for (const [ending, end] of ENDINGS) {
  // Under none, where wave can make no cgroup (nobody here): the marker.
  // What clears its environment escapes it, as the README says.
  Deno.test(`orphans as nobody under --shell-sandbox none, with no cgroup (the marker): nothing a command starts outlives ${ending}, but what also clears its environment`, async () => {
    const rt = await nobodyRuntime();
    if (typeof rt === "string") {
      console.error(`skipped (${rt})`);
      return;
    }
    const wave = await startWaveAsNobody(rt, ["--shell-sandbox", "none"]);
    const n = 7000 + Math.floor(Math.random() * 2000);
    try {
      const { commands, orphans } = wave.messages[0].sandbox;
      if (orphans === "cgroup") {
        console.error("skipped (nobody can make cgroups here)");
        return;
      }
      assert.deepEqual({ commands, orphans }, {
        commands: "none",
        orphans: "marker",
      });
      await wave.callTool("Bash", { command: "true" });
      // Time for the next command's process to be prepared.
      await new Promise((r) => setTimeout(r, 200));
      await end(wave, n);
      const left: string[] = [];
      const escaped: string[] = [];
      for (const [k, [kind]] of KINDS.entries()) {
        const pids = await processesLeft(`sleep ${n}.${k + 1}`);
        if (kind.startsWith("env -i")) {
          if (pids.length) escaped.push(kind);
        } else if (pids.length) left.push(`${kind} (${pids.join(", ")})`);
      }
      assert.deepEqual(left, [], `outlived ${ending}`);
      assert.deepEqual(escaped, [
        "env -i + setsid",
        "env -i + setsid, double fork",
      ]);
    } finally {
      await wave.kill();
      // What escaped, as expected, is killed here.
      for (let k = 1; k <= KINDS.length; k++) {
        for (const pid of await processesLeft(`sleep ${n}.${k}`, 0)) {
          try {
            Deno.kill(pid, "SIGKILL");
          } catch { /* gone */ }
        }
      }
    }
  });
}

attack(
  "other people's homes, /run and the host's private TLS keys are absent",
  async (runner) => {
    // Planted on the host as root, readable by all: only the sandbox hides them.
    const tag = crypto.randomUUID();
    const secret = crypto.randomUUID();
    const person = `/home/wave-test-${tag}`;
    const run = `/run/wave-test-${tag}`;
    await Deno.mkdir(`${person}/.aws`, { recursive: true });
    await Deno.writeTextFile(`${person}/.aws/credentials`, `AWS ${secret}`);
    await Deno.writeTextFile(run, `RUN ${secret}`);
    await Deno.chmod(person, 0o755);
    await Deno.chmod(`${person}/.aws`, 0o755);
    await Deno.chmod(`${person}/.aws/credentials`, 0o644);
    await Deno.chmod(run, 0o644);
    const wave = await runner.start();
    try {
      const r = await bash(
        wave,
        `ls -a /home; cat ${person}/.aws/credentials; ls /run; cat ${run}; ` +
          "ls -a /etc/ssl/private; true",
      );
      assert.equal(r.structured.sandboxed, true);
      assert.ok(!r.all.includes(secret), `visible:\n${r.all}`);
      // Not even their names.
      assert.ok(!r.all.includes(`wave-test-${tag}\n`), `listed:\n${r.all}`);
      assert.match(r.all, /credentials: No such file or directory/);
    } finally {
      await wave.kill();
      await Deno.remove(person, { recursive: true });
      await Deno.remove(run);
    }
  },
);

for (const sandbox of ["auto", "none"]) {
  Deno.test(`--shell-sandbox ${sandbox}: with wave on a terminal, a command has none (no /dev/tty, so nothing to inject keystrokes into)${sandbox === "auto" ? ", and cannot reach wave's" : ""}`, async () => {
    if (sandbox === "auto" && noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    const workspace = await Deno.realPath(await tempDir());
    const waveHome = await tempDir();
    const command = [
      Deno.execPath(),
      ...waveCommand(["--workspace", workspace, "--shell-sandbox", sandbox]),
    ].map((arg) => `'${arg}'`).join(" ");
    // script(1) gives wave a terminal of its own as its controlling one
    // (raw: the lines pass as they are; stderr kept off it).
    const child = new Deno.Command("script", {
      args: [
        "-q",
        "-e",
        "-c",
        `stty raw -echo; exec ${command} 2>/dev/null`,
        "/dev/null",
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { WAVE_HOME: waveHome, PATH: Deno.env.get("PATH")! },
    }).spawn();
    const wave = new WaveProcess(child, workspace, waveHome);
    try {
      await wave.waitFor((m) => m.subtype === "init");
      const wavePid = Number(
        Deno.readTextFileSync(`/proc/${child.pid}/task/${child.pid}/children`)
          .trim(),
      );
      const waveTty = Number(
        Deno.readTextFileSync(`/proc/${wavePid}/stat`).split(") ")[1]
          .split(" ")[4],
      );
      assert.notEqual(waveTty, 0, "wave has a controlling terminal");
      const r = await bash(
        wave,
        'read -r _ _ _ _ _ _ tty _ < /proc/self/stat; echo "tty_nr=$tty"; ' +
          "(exec 3</dev/tty) 2>&1 || echo no-tty; ls /dev/pts",
      );
      assert.match(
        r.all,
        /^tty_nr=0\n.*\/dev\/tty: No such device or address\nno-tty\n/,
      );
      // Confined, its /dev/pts is a new one: wave's terminal is not in it.
      if (sandbox === "auto") assert.match(r.all, /\nptmx\n$/);
    } finally {
      await wave.kill();
    }
  });
}

Deno.test("under --shell-sandbox none, a command in its cgroup keeps the session's environment, a group of its own, and its exit status; a killed wave's cgroups are removed by the next", async () => {
  if (noCgroups) {
    console.error(`skipped (${noCgroups})`);
    return;
  }
  const none = await startWave({ args: ["--shell-sandbox", "none"] });
  const confined = bwrapWorks ? await startWave() : undefined;
  try {
    const script = "env | cut -d= -f1 | sort | tr '\\n' ' '";
    const names = async (wave: WaveProcess) =>
      (await wave.callTool("Bash", { command: script })).structured.stdout;
    const unconfined = await names(none);
    assert.match(unconfined, / WAVE_COMMAND /);
    assert.doesNotMatch(unconfined, /TMPDIR/);
    if (confined) {
      // The same names as a confined command's, but the private /tmp.
      assert.equal(
        unconfined,
        (await names(confined)).replace("TMPDIR ", ""),
      );
    }
    const ids = await none.callTool("Bash", {
      command:
        "read -r _ _ _ _ pgid sid _ < /proc/$$/stat; echo $$ $pgid $sid; grep '^0::' /proc/$$/cgroup",
    });
    const [pid, pgid, sid] = ids.structured.stdout.split("\n")[0].split(" ");
    assert.equal(pgid, pid, "the command leads its process group");
    assert.equal(sid, pid, "and its session");
    assert.match(
      ids.structured.stdout,
      new RegExp(`^0::.*/wave-command-${none.child.pid}-\\d+$`, "m"),
    );
    assert.equal(
      (await none.callTool("Bash", { command: "exit 7" })).structured.exitCode,
      7,
    );
    const killed = await none.callTool("Bash", { command: "kill -TERM $$" });
    assert.equal(killed.structured.signal, "SIGTERM");
    assert.equal(killed.structured.exitCode, null);
  } finally {
    // Its sentinel killed first (as by a parent that kills every process
    // of wave's user), which would otherwise remove them at wave's death.
    for (const [pid] of descendantsOf(none.child.pid)) {
      try {
        if (
          Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes(
            "\0wave-sentinel\0",
          )
        ) Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    await none.kill();
    await confined?.kill();
  }
  // A wave killed outright with its sentinel leaves its cgroups; the next
  // one removes them, and kills what is in them.
  const left = cgroupsOf(none);
  assert.notDeepEqual(left, []);
  const next = await startWave({ args: ["--shell-sandbox", "none"] });
  try {
    await next.callTool("Bash", { command: "true" });
    assert.deepEqual(cgroupsOf(none), []);
  } finally {
    await next.closeStdin();
    await next.wait();
  }
});

Deno.test("where commands cannot be confined, system/init says so and a system/warning says what they can reach", async () => {
  // A PATH with bash and without bubblewrap.
  const bin = await tempDir({ prefix: "wave-nobwrap-" });
  for (const program of ["bash", "setsid", "sh", "env", "sleep"]) {
    const path = (await new Deno.Command("bash", {
      args: ["-c", `command -v ${program}`],
      stdout: "piped",
    }).output()).stdout;
    await Deno.symlink(
      new TextDecoder().decode(path).trim(),
      `${bin}/${program}`,
    );
  }
  const wave = await startWave({ env: { PATH: bin } });
  try {
    assert.deepEqual(wave.messages[0].sandbox, {
      commands: "none",
      orphans: cgroupParent ? "cgroup" : "marker",
      network: true,
      files: FILES,
    });
    const warning = await wave.waitFor((m) => m.subtype === "warning");
    assert.equal(
      warning.message,
      `No confinement for commands: bubblewrap (bwrap) is not installed, so commands run unconfined, as wave's user: they can read and write every file that user can (its home directory, WAVE_HOME with other sessions' transcripts), reach the network, and reach wave's own process (its environment, model API keys included, and its stdin); ${
        cgroupParent
          ? "everything a command starts is killed when the command ends (each command runs in a cgroup of its own)"
          : "a process a command starts is killed when the command ends only while it keeps the WAVE_COMMAND marker in its environment"
      }. Install bubblewrap where user namespaces are allowed (or run wave as root) to confine them; --shell-sandbox none says this is intended.`,
    );
    // The warning comes right after system/init.
    assert.equal(wave.messages[1], warning);
    assert.equal(
      (await wave.callTool("Bash", { command: "echo unconfined" })).structured
        .sandboxed,
      false,
    );
  } finally {
    await wave.kill();
  }
  // Chosen explicitly, none is not warned about (as root with
  // CAP_SYS_PTRACE, only that commands can read wave itself).
  const chosen = await startWave({ args: ["--shell-sandbox", "none"] });
  try {
    await chosen.callTool("Bash", { command: "true" });
    const root = unconfinedRootWarning("none", Deno.uid(), capabilityBound());
    assert.deepEqual(
      chosen.messages.filter((m) => m.subtype === "warning").map((m) =>
        m.message
      ),
      root ? [root] : [],
    );
  } finally {
    await chosen.kill();
  }
});

/**
 * The processes under `root` (its children, theirs, and so on), each with
 * its start time: a pid the kernel hands out again later is not one of them.
 */
function descendantsOf(root: number): Map<number, string> {
  const parents = new Map<number, { ppid: number; start: string }>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      // After "pid (comm) ": state, ppid, … starttime (the 20th).
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      parents.set(Number(entry.name), {
        ppid: Number(fields[1]),
        start: fields[19],
      });
    } catch { /* gone */ }
  }
  const found = new Map<number, string>();
  let frontier = [root];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [pid, { ppid, start }] of parents) {
      if (frontier.includes(ppid) && !found.has(pid)) {
        found.set(pid, start);
        next.push(pid);
      }
    }
    frontier = next;
  }
  return found;
}

/** Those of `processes` still alive (not zombies), by their command lines. */
function stillAlive(processes: Map<number, string>): string[] {
  const alive: string[] = [];
  for (const [pid, start] of processes) {
    try {
      const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      if (fields[19] !== start || fields[0] === "Z") continue;
      const cmdline = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
      alive.push(`${pid}: ${cmdline.replaceAll("\0", " ").slice(0, 120)}`);
    } catch { /* gone */ }
  }
  return alive;
}

/**
 * Live processes that belong to `workspace`: a sandbox names it in its
 * arguments, a shell runs in it.
 */
function processesOf(workspace: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      if (stat.slice(stat.lastIndexOf(") ") + 2)[0] === "Z") continue;
      const cmdline = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`)
        .replaceAll("\0", " ");
      let cwd = "";
      try {
        cwd = Deno.readLinkSync(`/proc/${entry.name}/cwd`);
      } catch { /* another user's */ }
      if (cmdline.includes(workspace) || cwd === workspace) {
        found.push(`${entry.name}: ${cmdline}`);
      }
    } catch { /* gone */ }
  }
  return found;
}

/** Waits up to 3 s for `left` to find nothing; what it found last. */
async function leftAfter(left: () => string[]): Promise<string[]> {
  const end = Date.now() + 3000;
  let found = left();
  while (found.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    found = left();
  }
  return found;
}

for (const held of ["its probe", "a command's"]) {
  Deno.test(`--shell-sandbox bwrap: wave killed with SIGKILL before bubblewrap has bound itself to wave (${held}: its --die-with-parent comes after its setup) leaves nothing`, async () => {
    if (noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    // A bubblewrap that, once told to, stops at its start until released:
    // what bubblewrap does before its own parent-death signal (parsing,
    // opening, cloning) made as long as the test needs. Killed there, wave
    // used to leave it running with nobody to end it.
    const dir = await tempDir({ prefix: "wave-slow-bwrap-" });
    const hold = `${dir}/hold`;
    const fake = `${dir}/bin/bwrap`;
    await new Deno.Command("mkfifo", { args: [`${dir}/release`] }).output();
    const bwrap = new TextDecoder().decode(
      (await new Deno.Command("sh", { args: ["-c", "command -v bwrap"] })
        .output()).stdout,
    ).trim();
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(
      fake,
      `#!/bin/sh\n[ -e ${hold} ] && read _ < ${dir}/release\nexec ${bwrap} "$@"\n`,
      { mode: 0o755 },
    );
    // The probe runs as the session starts; a command's bubblewrap, once
    // a first command has answered (the probe is done).
    if (held === "its probe") await Deno.writeTextFile(hold, "");
    const wave = await startWave({
      args: ["--shell-sandbox", "bwrap"],
      env: { PATH: `${dir}/bin:${Deno.env.get("PATH")}` },
    });
    let started = new Map<number, string>();
    try {
      if (held !== "its probe") {
        await wave.callTool("Bash", { command: "true" });
        await Deno.writeTextFile(hold, "");
      }
      // Over 16 KiB: a sandbox of its own, not one made ahead.
      await wave.sendCall("held", "Bash", {
        command: `true\n# ${"x".repeat(17_000)}`,
      });
      await waitUntil(
        () =>
          [...descendantsOf(wave.child.pid).keys()].some((pid) => {
            try {
              return Deno.readTextFileSync(`/proc/${pid}/cmdline`)
                .includes(fake);
            } catch {
              return false;
            }
          }),
        "a held bubblewrap",
      );
      started = descendantsOf(wave.child.pid);
      wave.child.kill("SIGKILL");
      assert.equal((await wave.wait()).signal, "SIGKILL");
      assert.deepEqual(await leftAfter(() => stillAlive(started)), []);
      assert.deepEqual(await leftAfter(() => processesOf(wave.workspace)), []);
    } finally {
      await wave.kill();
      for (const pid of started.keys()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
    }
  });
}

for (const sandbox of ["bwrap", "none"]) {
  Deno.test(`--shell-sandbox ${sandbox}: wave killed with SIGKILL leaves no process it started, the processes prepared for the next commands included`, async () => {
    if (sandbox !== "none" && noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    const wave = await startWave({ args: ["--shell-sandbox", sandbox] });
    let exited = false;
    try {
      const first = await wave.callTool("Bash", { command: "true" });
      assert.equal(first.structured.sandboxed, sandbox !== "none");
      // The next commands' processes, made once the call has answered.
      await waitUntil(
        () =>
          [...descendantsOf(wave.child.pid).keys()].some((pid) => {
            try {
              return Deno.readTextFileSync(`/proc/${pid}/cmdline`)
                .includes("BASH_EXECUTION_STRING");
            } catch {
              return false;
            }
          }),
        "a process prepared for the next command",
      );
      await new Promise((r) => setTimeout(r, 300));
      const started = descendantsOf(wave.child.pid);
      assert.ok(started.size > 0);
      wave.child.kill("SIGKILL");
      const status = await wave.wait();
      exited = true;
      assert.equal(status.signal, "SIGKILL");
      assert.deepEqual(await leftAfter(() => stillAlive(started)), []);
      assert.deepEqual(await leftAfter(() => processesOf(wave.workspace)), []);
    } finally {
      if (!exited) await wave.kill();
    }
  });

  Deno.test(`--shell-sandbox ${sandbox}: a command interrupted as its sandbox is being made leaves nothing`, async () => {
    if (sandbox !== "none" && noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    const wave = await startWave({ args: ["--shell-sandbox", sandbox] });
    try {
      for (let round = 0; round < 4; round++) {
        // Over 16 KiB: it starts a sandbox of its own, which the
        // interrupt that follows at once finds being made.
        await wave.sendCall(`cut-${round}`, "Bash", {
          command: `sleep 300\n# ${"x".repeat(17_000)}`,
        });
        await new Promise((r) => setTimeout(r, round));
        await wave.request({ subtype: "interrupt" });
        await wave.waitFor((m) => m.response?.request_id === `cut-${round}`);
      }
      const idle = () =>
        processesOf(wave.workspace).filter((p) =>
          // wave itself, and the processes prepared for the next commands, stay.
          !p.startsWith(`${wave.child.pid}: `) &&
          !p.includes("BASH_EXECUTION_STRING")
        );
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(await leftAfter(idle), []);
    } finally {
      await wave.finish();
    }
    assert.deepEqual(await leftAfter(() => processesOf(wave.workspace)), []);
  });

  Deno.test(`--shell-sandbox ${sandbox}: wave ended (EOF, SIGKILL) as the next commands' processes are being made leaves none of them`, async () => {
    if (sandbox !== "none" && noBwrap) {
      console.error(`skipped (${noBwrap})`);
      return;
    }
    // Ended at once after a call: its process for the next command, and
    // the one made at idle time, are still being made (a sandbox killed
    // then would wait for its parent forever).
    for (let round = 0; round < 6; round++) {
      const wave = await startWave({ args: ["--shell-sandbox", sandbox] });
      try {
        await wave.callTool("Bash", { command: "true" });
      } finally {
        if (round % 2) {
          wave.child.kill("SIGKILL");
          await wave.wait();
        } else await wave.finish();
      }
      assert.deepEqual(
        await leftAfter(() => processesOf(wave.workspace)),
        [],
        round % 2 ? "after SIGKILL" : "after EOF",
      );
    }
  });
}
