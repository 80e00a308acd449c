/**
 * End-to-end: trying to break out. Every escape of docs/design.md's layer 1 is
 * denied under `--approvals deny` and raises `can_use_tool` under `parent`;
 * layer 2 (Deno permissions) refuses what a tool does behind the resolver.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import {
  DENO_DIR,
  type Message,
  startWave,
  waveCommand,
  type WaveProcess,
} from "../_wave.ts";
import { tempDir } from "../_temp.ts";
import { landlockAbi } from "../../tools/kernel/landlock.ts";

interface Layout {
  base: string;
  ws: string;
  outside: string;
}

/** A workspace and, beside it, a directory with a secret; plus every kind of escape route. */
async function layout(): Promise<Layout> {
  const base = await Deno.realPath(
    await tempDir({ prefix: "wave-esc-" }),
  );
  const ws = `${base}/ws`;
  const outside = `${base}/outside`;
  await Deno.mkdir(`${ws}/sub`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/secret.txt`, "TOP SECRET");
  await Deno.writeTextFile(`${ws}/inside.txt`, "fine");
  await Deno.symlink("../outside/secret.txt", `${ws}/link_rel.txt`);
  await Deno.symlink(`${outside}/secret.txt`, `${ws}/link_abs.txt`);
  await Deno.symlink(outside, `${ws}/dirlink`);
  await Deno.symlink("chain_b", `${ws}/chain_a`);
  await Deno.symlink(`${outside}/secret.txt`, `${ws}/chain_b`);
  await Deno.symlink(`${outside}/not_yet.txt`, `${ws}/dangling`);
  await Deno.symlink("inside.txt", `${ws}/link_inside.txt`);
  return { base, ws, outside };
}

const ESCAPES = (l: Layout): [string, string][] => [
  ["dot-dot", "../outside/secret.txt"],
  ["nested dot-dot", "sub/../../outside/secret.txt"],
  ["absolute path outside", `${l.outside}/secret.txt`],
  ["symlinked file (relative target)", "link_rel.txt"],
  ["symlinked file (absolute target)", "link_abs.txt"],
  ["symlinked directory", "dirlink/secret.txt"],
  ["symlink chain", "chain_a"],
  ["dangling symlink pointing outside", "dangling"],
];

for (const [name] of ESCAPES({ base: "", ws: "", outside: "/X" })) {
  Deno.test(`escape denied under --approvals deny: ${name}`, async () => {
    const l = await layout();
    const p = ESCAPES(l).find(([n]) => n === name)![1];
    const wave = await startWave({
      workspace: l.ws,
      fixtureTools: ["read_path.ts", "write_path.ts"],
    });
    try {
      const read = await wave.callTool("PathRead", { path: p });
      assert.equal(read.is_error, true);
      assert.match(
        read.content,
        /^PathRead was denied: path outside the workspace: /,
      );
      assert.match(read.content, /--approvals deny/);
      assert.ok(!read.content.includes("TOP SECRET"));
      assert.equal(read.structured.type, "permission_denied");
      const write = await wave.callTool("PathWrite", {
        path: p,
        text: "pwned",
      });
      assert.equal(write.is_error, true);
      assert.equal(
        await Deno.readTextFile(`${l.outside}/secret.txt`),
        "TOP SECRET",
      );
      await assert.rejects(Deno.stat(`${l.outside}/not_yet.txt`));
      // Nothing asked the parent.
      assert.ok(!wave.messages.some((m) => m.type === "control_request"));
    } finally {
      await wave.kill();
    }
  });

  Deno.test(`escape raises can_use_tool under --approvals parent: ${name}`, async () => {
    const l = await layout();
    const p = ESCAPES(l).find(([n]) => n === name)![1];
    const wave = await startWave({
      workspace: l.ws,
      fixtureTools: ["read_path.ts"],
      args: ["--approvals", "parent"],
    });
    try {
      const pending = wave.callTool("PathRead", { path: p });
      const ask = await wave.waitFor((m) => m.type === "control_request");
      assert.equal(ask.request.subtype, "can_use_tool");
      assert.equal(ask.request.tool_name, "PathRead");
      assert.deepEqual(ask.request.input, { path: p });
      assert.match(ask.request.reason, /^path outside the workspace: \//);
      assert.equal(typeof ask.request.tool_use_id, "string");
      await answer(wave, ask, { behavior: "deny", message: "not there" });
      const result = await pending;
      assert.equal(result.is_error, true);
      assert.equal(
        result.content,
        "PathRead was denied by the user: not there",
      );
    } finally {
      await wave.kill();
    }
  });
}

function answer(wave: WaveProcess, ask: Message, response: unknown) {
  return wave.send({
    type: "control_response",
    response: { subtype: "success", request_id: ask.request_id, response },
  });
}

Deno.test("an approved outside read runs, granted to that one call only", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts", "read_outside.ts"],
    args: ["--approvals", "parent"],
  });
  try {
    const pending = wave.callTool("PathRead", { path: "link_rel.txt" });
    const ask = await wave.waitFor((m) => m.type === "control_request");
    assert.equal(
      ask.request.reason,
      `path outside the workspace: ${l.outside}/secret.txt`,
    );
    await answer(wave, ask, { behavior: "allow" });
    const result = await pending;
    assert.equal(result.is_error, false);
    assert.equal(result.content, "TOP SECRET");
    // The grant does not outlive the call: the warm worker still cannot read it.
    const raw = await wave.callTool("RawRead", {
      file: `${l.outside}/secret.txt`,
    });
    assert.equal(raw.is_error, true);
    assert.match(raw.content, /^The sandbox refused: Requires read access to /);
  } finally {
    await wave.kill();
  }
});

Deno.test("inside paths and inside symlinks need no approval", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
    args: ["--approvals", "parent"],
  });
  try {
    for (
      const p of [
        "inside.txt",
        `${l.ws}/inside.txt`,
        "sub/../inside.txt",
        "link_inside.txt",
      ]
    ) {
      const r = await wave.callTool("PathRead", { path: p });
      assert.equal(r.is_error, false, p);
      assert.equal(r.content, "fine");
    }
    assert.ok(!wave.messages.some((m) => m.type === "control_request"));
  } finally {
    await wave.kill();
  }
});

const SENSITIVE: [string, string][] = [
  [".env", "API_KEY=1"],
  [".env.local", "API_KEY=1"],
  ["config/server.pem", "-----BEGIN"],
  ["tls.key", "k"],
  ["id_rsa", "k"],
  ["id_ed25519.pub", "k"],
  [".ssh/config", "Host x"],
  [".aws/credentials", "[default]"],
  [".npmrc", "//registry.npmjs.org/:_authToken=abc123"],
];

Deno.test("sensitive files inside the workspace need approval (deny and parent)", async () => {
  const l = await layout();
  for (const [path, text] of SENSITIVE) {
    await Deno.mkdir(dirname(`${l.ws}/${path}`), { recursive: true });
    await Deno.writeTextFile(`${l.ws}/${path}`, text);
  }
  await Deno.symlink(".env", `${l.ws}/innocent.txt`);
  await Deno.mkdir(`${l.ws}/plain`);
  await Deno.writeTextFile(
    `${l.ws}/plain/.npmrc`,
    "registry=https://example.org/",
  );

  const denied = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
  });
  try {
    for (const [path] of [...SENSITIVE, ["innocent.txt", ""]]) {
      const r = await denied.callTool("PathRead", { path });
      assert.equal(r.is_error, true, path);
      assert.match(r.content, /^PathRead was denied: sensitive file/, path);
    }
    const plain = await denied.callTool("PathRead", { path: "plain/.npmrc" });
    assert.equal(
      plain.is_error,
      false,
      ".npmrc without a token is not sensitive",
    );
  } finally {
    await denied.kill();
  }

  const asked = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
    args: ["--approvals", "parent"],
  });
  try {
    const pending = asked.callTool("PathRead", { path: ".env" });
    const ask = await asked.waitFor((m) => m.type === "control_request");
    assert.equal(ask.request.reason, `sensitive file (.env): ${l.ws}/.env`);
    await answer(asked, ask, { behavior: "allow" });
    assert.equal((await pending).content, "API_KEY=1");
  } finally {
    await asked.kill();
  }
});

Deno.test("approvals: --approvals allow runs without asking", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
    args: ["--approvals", "allow"],
  });
  try {
    const r = await wave.callTool("PathRead", {
      path: "../outside/secret.txt",
    });
    assert.equal(r.content, "TOP SECRET");
    assert.ok(!wave.messages.some((m) => m.type === "control_request"));
  } finally {
    await wave.kill();
  }
});

Deno.test("approvals: no answer within --approval-timeout is a denial", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
    args: ["--approvals", "parent", "--approval-timeout", "300ms"],
  });
  try {
    const r = await wave.callTool("PathRead", {
      path: "../outside/secret.txt",
    });
    assert.equal(r.is_error, true);
    assert.match(r.content, /did not answer the approval request within/);
  } finally {
    await wave.kill();
  }
});

Deno.test("approvals: an interrupt while waiting is a denial", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
    args: ["--approvals", "parent"],
  });
  try {
    const pending = wave.callTool("PathRead", {
      path: "../outside/secret.txt",
    });
    await wave.waitFor((m) => m.type === "control_request");
    await wave.request({ subtype: "interrupt" });
    const r = await pending;
    assert.equal(r.is_error, true);
    assert.match(r.content, /interrupted while waiting for approval/);
  } finally {
    await wave.kill();
  }
});

Deno.test("approvals: stdin EOF while waiting is a denial, then exit 0", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_path.ts"],
    args: ["--approvals", "parent"],
  });
  await wave.sendCall("eof", "PathRead", { path: "../outside/secret.txt" });
  await wave.waitFor((m) => m.type === "control_request");
  const status = await wave.finish();
  assert.equal(status.code, 0);
  const r = wave.messages.find((m) => m.response?.request_id === "eof")!;
  assert.equal(r.response.response.is_error, true);
  assert.match(r.response.response.content, /stdin was closed/);
});

Deno.test("a control_response for an unknown request id is reported, not fatal", async () => {
  const wave = await startWave({ fixtureTools: ["echo.ts"] });
  try {
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: "ghost",
        response: { behavior: "allow" },
      },
    });
    const error = await wave.waitFor((m) => m.subtype === "error");
    assert.equal(error.error.code, "invalid_message");
    assert.match(error.error.message, /unknown request_id "ghost"/);
    assert.equal((await wave.callTool("Echo", { text: "ok" })).content, "ok");
  } finally {
    await wave.kill();
  }
});

Deno.test("layer 2: a read-scoped tool that writes gets a tool error, and nothing is written", async () => {
  const wave = await startWave({ fixtureTools: ["write_attempt.ts"] });
  try {
    const target = `${wave.workspace}/should_not_exist.txt`;
    const r = await wave.callTool("WriteAttempt", { file: target });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      `The sandbox refused: Requires write access to "${target}"`,
    );
    await assert.rejects(Deno.stat(target));
  } finally {
    await wave.kill();
  }
});

Deno.test("layer 2: a tool that reads outside behind the resolver's back gets a tool error", async () => {
  const l = await layout();
  const wave = await startWave({
    workspace: l.ws,
    fixtureTools: ["read_outside.ts"],
  });
  try {
    for (const file of [`${l.outside}/secret.txt`, "/etc/hostname"]) {
      const r = await wave.callTool("RawRead", { file });
      assert.equal(r.is_error, true);
      assert.equal(
        r.content,
        `The sandbox refused: Requires read access to "${file}"`,
      );
    }
  } finally {
    await wave.kill();
  }
});

Deno.test("layer 2: workers never get env, net, sys or unscoped run", async () => {
  const wave = await startWave({ fixtureTools: ["probe.ts"] });
  try {
    const r = await wave.callTool("Probe", {});
    assert.deepEqual(r.structured, {
      env: "NotCapable",
      net: "NotCapable",
      run: "NotCapable",
      sys: "NotCapable",
    });
  } finally {
    await wave.kill();
  }
});

Deno.test({
  name:
    "layer 2 (Landlock): with a cold transpile cache Deno may not write, an extra tool's asynchronous reads and writes through a link out of the workspace are refused from the first call",
  ignore: landlockAbi() <= 0,
  async fn() {
    // Deno transpiles a worker's TypeScript as it loads, on its runtime's
    // blocking pool: a worker that did so before it confined itself kept
    // threads Landlock did not hold, and the asynchronous file ops ran on
    // them (every one of these calls escaped before the worker's entry
    // confined it first).
    const denoDir = await tempDir({ prefix: "wave-deno-dir-" });
    Deno.symlinkSync(`${DENO_DIR}/npm`, `${denoDir}/npm`);
    Deno.writeTextFileSync(`${denoDir}/gen`, "not a directory\n");
    const outside = await tempDir({ prefix: "wave-outside-" });
    Deno.writeTextFileSync(`${outside}/secret.txt`, "TOP SECRET");
    Deno.writeTextFileSync(`${outside}/target.txt`, "untouched");
    const wave = await startWave({
      fixtureTools: ["read_outside.ts", "write_raw.ts"],
      env: { DENO_DIR: denoDir },
    });
    try {
      Deno.symlinkSync(`${outside}/secret.txt`, `${wave.workspace}/a`);
      Deno.symlinkSync(`${outside}/target.txt`, `${wave.workspace}/b`);
      for (let i = 0; i < 5; i++) {
        const read = await wave.callTool("RawRead", {
          file: `${wave.workspace}/a`,
        });
        assert.equal(read.is_error, true, String(read.content));
        assert.match(String(read.content), /Permission denied \(os error 13\)/);
        const write = await wave.callTool("RawWrite", {
          file: `${wave.workspace}/b`,
          text: "pwned",
        });
        assert.equal(write.is_error, true, String(write.content));
        assert.match(
          String(write.content),
          /Permission denied \(os error 13\)/,
        );
      }
      assert.equal(
        Deno.readTextFileSync(`${outside}/target.txt`),
        "untouched",
      );
      // The tools do work where they are allowed to.
      const inside = await wave.callTool("RawWrite", {
        file: `${wave.workspace}/c`,
        text: "fine",
      });
      assert.equal(inside.is_error, false, String(inside.content));
      assert.equal(Deno.readTextFileSync(`${wave.workspace}/c`), "fine");
    } finally {
      await wave.kill();
    }
  },
});

Deno.test("a tool that reports another process group as its own cannot have wave signal or kill it", async () => {
  // A group of wave's user that wave did not start: its leader's parent,
  // a shell, has exited.
  const out = await new Deno.Command("sh", {
    args: ["-c", "setsid sleep 60 >/dev/null 2>&1 & echo $!"],
  }).output();
  const pid = Number(new TextDecoder().decode(out.stdout).trim());
  const wave = await startWave({ fixtureTools: ["claim_group.ts"] });
  try {
    const r = await wave.callTool("ClaimGroup", { pgid: pid });
    assert.equal(r.content, "claimed");
    // The call has ended: a group it had started would be dead by now.
    const again = await wave.callTool("ClaimGroup", { pgid: pid });
    assert.equal(again.content, "claimed");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    assert.match(stat, /^\d+ \(sleep\) [RSD] /, "the foreign group was killed");
  } finally {
    await wave.kill();
    Deno.kill(pid, "SIGKILL");
  }
});

Deno.test("the file tools work when wave's environment has no HOME (the workers are granted the Deno cache Deno really uses)", async () => {
  const ws = await tempDir({ prefix: "wave-nohome-" });
  Deno.writeTextFileSync(`${ws}/a.txt`, "fine\n");
  const child = new Deno.Command(Deno.execPath(), {
    args: waveCommand(["--workspace", ws]),
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      WAVE_HOME: await tempDir({ prefix: "wave-nohome-home-" }),
      NO_COLOR: "1",
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: DENO_DIR } : {}),
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(
    JSON.stringify({
      type: "control_request",
      request_id: "r1",
      request: {
        subtype: "call_tool",
        tool_name: "Read",
        input: { file_path: "a.txt" },
      },
    }) + "\n",
  ));
  await writer.close();
  const out = new TextDecoder().decode((await child.output()).stdout);
  const answer = out.split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .find((m) => m.type === "control_response");
  assert.equal(answer?.response?.response?.content, "     1\tfine");
  assert.equal(answer?.response?.response?.is_error, false);
});

Deno.test("a crashed worker becomes an error result and a fresh worker", async () => {
  const wave = await startWave({ fixtureTools: ["crash.ts", "echo.ts"] });
  try {
    const crashed = await wave.callTool("Crash", {});
    assert.equal(crashed.is_error, true);
    assert.match(crashed.content, /^the tool's sandbox worker crashed: .*boom/);
    assert.equal(
      (await wave.callTool("Echo", { text: "alive" })).content,
      "alive",
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("write queue: writing calls run one at a time in arrival order; read-only calls overlap", async () => {
  const wave = await startWave({ fixtureTools: ["write_path.ts", "sleep.ts"] });
  try {
    const writes = await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        wave.callTool("PathWrite", {
          path: `q/${i}.txt`,
          text: String(i),
          delay_ms: 100,
        })
      ),
    );
    for (let i = 1; i < writes.length; i++) {
      const prev = writes[i - 1].structured;
      const cur = writes[i].structured;
      assert.ok(
        cur.started >= prev.ended,
        `write ${i} started before write ${i - 1} ended`,
      );
    }
    // Three long sleeps all start before any ends: one at a time, the
    // second would start only after the first's 30 s.
    const sleeps = Promise.all(
      [0, 1, 2].map(() => wave.callTool("Sleep", { ms: 30_000 })),
    );
    const starts = new Set<string>();
    await wave.waitFor(
      (m) =>
        m.subtype === "tool_progress" && m.text === "sleeping\n" &&
        starts.add(m.tool_use_id).size === 3,
      { what: "3 read-only Sleep calls running at once" },
    );
    await wave.request({ subtype: "interrupt" });
    assert.deepEqual(
      (await sleeps).map((s) => s.content),
      ["interrupted", "interrupted", "interrupted"],
    );
  } finally {
    await wave.kill();
  }
});

Deno.test({
  name:
    "layer 2 (Landlock): a file tool's worker may read where its code comes from (wave's tree, npm packages), not the rest of Deno's cache (what other programs left there), even through a link the resolver never saw",
  ignore: landlockAbi() <= 0,
  async fn() {
    const wave = await startWave({ fixtureTools: ["read_outside.ts"] });
    try {
      const info = await new Deno.Command(Deno.execPath(), {
        args: ["info", "--json"],
      }).output();
      const { denoDir, npmCache } = JSON.parse(
        new TextDecoder().decode(info.stdout),
      );
      // A file of Deno's own cache besides the code: there after any run.
      const elsewhere = [...Deno.readDirSync(denoDir)].find((e) =>
        e.isFile && e.name.startsWith("dep_analysis_cache")
      );
      assert.ok(elsewhere, `a dep_analysis_cache file in ${denoDir}`);
      const zod = `${npmCache}/registry.npmjs.org/zod`;
      const version = [...Deno.readDirSync(zod)][0].name;
      // Links the resolver never sees (the fixture reads the raw path):
      // what a race that swaps them in would reach.
      Deno.symlinkSync(`${denoDir}/${elsewhere.name}`, `${wave.workspace}/a`);
      Deno.symlinkSync(`${zod}/${version}/package.json`, `${wave.workspace}/b`);
      const refused = await wave.callTool("RawRead", {
        file: `${wave.workspace}/a`,
      });
      assert.equal(refused.is_error, true);
      assert.match(
        String(refused.content),
        /Permission denied \(os error 13\)/,
      );
      const code = await wave.callTool("RawRead", {
        file: `${wave.workspace}/b`,
      });
      assert.equal(code.is_error, false, String(code.content));
      assert.match(String(code.content), /"name": "zod"/);
    } finally {
      await wave.kill();
    }
  },
});
