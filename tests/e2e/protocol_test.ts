/**
 * End-to-end: the guarantees of docs/protocol.md that need no model, against the
 * real CLI.
 */

import assert from "node:assert/strict";
import { runWave, startWave, type WaveProcess } from "../_wave.ts";
import { within } from "../_waiting.ts";
import { TOOLSETS } from "../../tools/toolsets.ts";
import { tempDir } from "../_temp.ts";

const ECHO = ["echo.ts"];
/** The wave toolset's tools that ask mode binds (fs_tools_test pins the list itself). */
const ASK_TOOLS = TOOLSETS.wave.filter((t) => t.mode === "ask").map((t) =>
  t.name
);

Deno.test("init is the first line, with every field docs/protocol.md names", async () => {
  const wave = await startWave({ args: ["--session-id", "s-init"] });
  try {
    const init = JSON.parse(wave.lines[0]);
    assert.equal(init.type, "system");
    assert.equal(init.subtype, "init");
    assert.equal(init.session_id, "s-init");
    assert.equal(init.cwd, await Deno.realPath(wave.workspace));
    assert.ok(Array.isArray(init.tools));
    assert.equal(init.toolset, "wave");
    assert.equal(init.mode, "agent");
    assert.equal(init.model, null);
    assert.equal(init.wave_version, "0.1.0");
    assert.equal(init.protocol, 1);
  } finally {
    assert.equal((await wave.finish()).code, 0);
  }
});

Deno.test("every request id gets exactly one response", async () => {
  const wave = await startWave({ fixtureTools: ECHO });
  try {
    const requests = [
      { subtype: "call_tool", tool_name: "Echo", input: { text: "a" } },
      { subtype: "list_tools" },
      { subtype: "call_tool", tool_name: "Nope", input: {} },
      { subtype: "call_tool", tool_name: "Echo", input: { text: 1 } },
      { subtype: "made_up" },
      { subtype: "set_permission_mode", mode: "ask" },
      { subtype: "set_permission_mode", mode: "bogus" },
      { subtype: "interrupt" },
    ];
    for (let round = 0; round < 5; round++) {
      for (const [i, request] of requests.entries()) {
        await wave.send({
          type: "control_request",
          request_id: `r${round}-${i}`,
          request,
        });
      }
    }
    await wave.finish();
    const answers = wave.messages.filter((m) => m.type === "control_response");
    const ids = answers.map((m) => m.response.request_id).sort();
    const expected = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < requests.length; i++) expected.push(`r${round}-${i}`);
    }
    assert.deepEqual(ids, expected.sort());
  } finally {
    await wave.kill();
  }
});

Deno.test("1,000 malformed lines each get an answer and wave keeps serving", async () => {
  const wave = await startWave({ fixtureTools: ECHO });
  try {
    const bad: (string | Uint8Array)[] = [
      "not json",
      "{",
      "[1,2,3]",
      "42",
      '"a string"',
      "null",
      "true",
      '{"type":7}',
      '{"no_type":true}',
      '{"type":"mystery"}',
      '{"type":"user"}',
      '{"type":"user","message":{"role":"assistant","content":"x"}}',
      '{"type":"control_request"}',
      '{"type":"control_request","request_id":"x"}',
      '{"type":"control_response","response":{"subtype":"success"}}',
      '{"type":"control_request","request_id":"n1","request":{"subtype":"call_tool","tool_name":"Echo","input":{"text":"a","count":1e400}}}',
      '{"type":"control_request","request_id":"n2","request":{"subtype":"call_tool","tool_name":"Echo","input":{"text":"a","count":123456789012345678901234567890}}}',
      new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]),
      new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]),
      "[".repeat(5000) + "]".repeat(5000),
    ];
    const parts: Uint8Array[] = [];
    const enc = new TextEncoder();
    for (let i = 0; i < 1000; i++) {
      const item = bad[i % bad.length];
      parts.push(typeof item === "string" ? enc.encode(item) : item);
      parts.push(enc.encode("\n"));
    }
    for (const part of parts) await wave.writeRaw(part);
    const echo = await wave.callTool("Echo", { text: "still here" });
    assert.equal(echo.content, "still here");
    await wave.finish();

    const errors = wave.messages.filter((m) =>
      m.type === "system" && m.subtype === "error"
    );
    const responses = wave.messages.filter((m) =>
      m.type === "control_response" && m.response.subtype === "error"
    );
    // Lines with a request_id are answered by control_response, the rest by system/error.
    const withId = [13, 15, 16].map((k) => bad[k]);
    const perRound = withId.length;
    const rounds = 1000 / bad.length;
    assert.equal(responses.length, perRound * rounds);
    assert.equal(errors.length, 1000 - perRound * rounds);
    // Every system/error names its line, and the lines are all different.
    const lines = new Set(errors.map((e) => e.error.line));
    assert.equal(lines.size, errors.length);
    for (const e of errors) {
      assert.ok(
        ["invalid_json", "invalid_message", "unknown_type"].includes(
          e.error.code,
        ),
        e.error.code,
      );
      assert.equal(typeof e.error.message, "string");
    }
    // Spot checks of codes by kind.
    const codeOf = (n: number) =>
      errors.find((e) => e.error.line === n)?.error.code;
    assert.equal(codeOf(1), "invalid_json");
    assert.equal(codeOf(3), "invalid_message");
    assert.equal(codeOf(10), "unknown_type");
    assert.equal(codeOf(18), "invalid_json"); // not UTF-8
    const utf8 = errors.find((e) => e.error.line === 18)!;
    assert.match(utf8.error.message, /UTF-8/);
  } finally {
    await wave.kill();
  }
});

Deno.test("a line over --max-line-bytes is dropped with line_too_long", async () => {
  const wave = await startWave({
    fixtureTools: ECHO,
    args: ["--max-line-bytes", "1024"],
  });
  try {
    await wave.writeRaw(
      JSON.stringify({
        type: "control_request",
        request_id: "big",
        request: {
          subtype: "call_tool",
          tool_name: "Echo",
          input: { text: "x".repeat(5000) },
        },
      }) + "\n",
    );
    const error = await wave.waitFor((m) => m.subtype === "error");
    assert.deepEqual(error.error.code, "line_too_long");
    assert.equal(error.error.line, 1);
    const ok = await wave.callTool("Echo", { text: "x".repeat(500) });
    assert.equal(ok.content.length, 500);
    await wave.finish();
    assert.ok(!wave.messages.some((m) => m.response?.request_id === "big"));
  } finally {
    await wave.kill();
  }
});

Deno.test("a trailing \\r is tolerated on input", async () => {
  const wave = await startWave({ fixtureTools: ECHO });
  try {
    await wave.writeRaw(
      '{"type":"control_request","request_id":"cr","request":{"subtype":"list_tools"}}\r\n',
    );
    const answer = await wave.waitFor((m) => m.response?.request_id === "cr");
    assert.equal(answer.response.subtype, "success");
  } finally {
    await wave.kill();
  }
});

Deno.test("unknown tool and schema violations are answered with clear errors", async () => {
  const wave = await startWave({ fixtureTools: ECHO });
  try {
    const unknown = await wave.request({
      subtype: "call_tool",
      tool_name: "Teleport",
      input: {},
    });
    assert.equal(unknown.subtype, "error");
    assert.match(
      unknown.error,
      /^unknown tool "Teleport"; this toolset \(wave\) has: .*Echo/,
    );

    const wrongType = await wave.request({
      subtype: "call_tool",
      tool_name: "Echo",
      input: { text: 5 },
    });
    assert.equal(
      wrongType.error,
      "invalid input for Echo: text: Invalid input: expected string, received number",
    );
    const missing = await wave.request({
      subtype: "call_tool",
      tool_name: "Echo",
      input: {},
    });
    assert.match(missing.error, /^invalid input for Echo: text: /);
    const extra = await wave.request({
      subtype: "call_tool",
      tool_name: "Echo",
      input: { text: "a", color: "red" },
    });
    assert.match(extra.error, /Unrecognized key: "color"/);
    const noInput = await wave.request({
      subtype: "call_tool",
      tool_name: "Echo",
    });
    assert.match(noInput.error, /^invalid call_tool request: input: /);
    const badSubtype = await wave.request({ subtype: "teleport" });
    assert.match(
      badSubtype.error,
      /unknown control_request subtype "teleport"/,
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("list_tools gives JSON Schema generated from zod, and scopes", async () => {
  const wave = await startWave({ fixtureTools: ["echo.ts", "spawn.ts"] });
  try {
    const answer = await wave.request({ subtype: "list_tools" });
    const echo = answer.response.tools.find((t: { name: string }) =>
      t.name === "Echo"
    );
    assert.deepEqual(echo.input_schema, {
      type: "object",
      properties: {
        text: { type: "string" },
        count: { type: "integer", minimum: 1, maximum: 9007199254740991 },
      },
      required: ["text"],
      additionalProperties: false,
    });
    assert.deepEqual(echo.scopes, { read: true, write: false, run: [] });
    const spawn = answer.response.tools.find((t: { name: string }) =>
      t.name === "Spawn"
    );
    assert.deepEqual(spawn.scopes, {
      read: true,
      write: false,
      run: ["sleep"],
    });
  } finally {
    await wave.kill();
  }
});

Deno.test("modes: a tool not bound in the mode is refused, naming the mode it needs", async () => {
  const wave = await startWave({
    fixtureTools: ["echo.ts", "write_path.ts"],
    args: ["--mode", "ask"],
  });
  try {
    assert.deepEqual(wave.messages[0].tools, [...ASK_TOOLS, "Echo"]);
    const refused = await wave.request({
      subtype: "call_tool",
      tool_name: "PathWrite",
      input: { path: "a.txt", text: "x" },
    });
    assert.equal(
      refused.error,
      "PathWrite is not available in ask mode; it needs agent mode or wider (set_permission_mode)",
    );
    const listed = await wave.request({ subtype: "list_tools" });
    assert.deepEqual(
      listed.response.tools.map((t: { name: string }) => t.name),
      [...ASK_TOOLS, "Echo"],
    );
    const set = await wave.request({
      subtype: "set_permission_mode",
      mode: "agent",
    });
    assert.deepEqual(set.response, { mode: "agent" });
    const written = await wave.callTool("PathWrite", {
      path: "a.txt",
      text: "x",
    });
    assert.equal(written.is_error, false);
    assert.equal(await Deno.readTextFile(`${wave.workspace}/a.txt`), "x");
  } finally {
    await wave.kill();
  }
});

Deno.test("a user turn without a model ends in a result that says how to configure one", async () => {
  const wave = await startWave();
  try {
    await wave.send({
      type: "user",
      message: { role: "user", content: "hello" },
    });
    const result = await wave.waitFor((m) => m.type === "result");
    assert.equal(result.is_error, true);
    assert.equal(result.subtype, "error_during_execution");
    assert.match(result.result, /--model PROVIDER:NAME/);
  } finally {
    await wave.kill();
  }
});

Deno.test("interrupt cancels tools in flight", async () => {
  const wave = await startWave({ fixtureTools: ["sleep.ts"] });
  try {
    await wave.sendCall("slow", "Sleep", { ms: 30_000 });
    await wave.waitFor(
      (m) => m.subtype === "tool_progress" && m.text === "sleeping\n",
      { what: "the Sleep call's start (tool_progress 'sleeping')" },
    );
    const interrupt = await wave.request({ subtype: "interrupt" });
    assert.equal(interrupt.subtype, "success");
    const slow = await wave.waitFor(
      (m) => m.response?.request_id === "slow",
      5000,
    );
    assert.equal(slow.response.response.is_error, true);
    assert.equal(slow.response.response.content, "interrupted");
  } finally {
    await wave.kill();
  }
});

Deno.test("a tool that ignores the interrupt is stopped by terminating its worker", async () => {
  const wave = await startWave({ fixtureTools: ["sleep.ts", "echo.ts"] });
  try {
    await wave.sendCall("stubborn", "Sleep", {
      ms: 30_000,
      ignore_abort: true,
    });
    await wave.waitFor(
      (m) => m.subtype === "tool_progress" && m.text === "sleeping\n",
      { what: "the Sleep call's start (tool_progress 'sleeping')" },
    );
    await wave.request({ subtype: "interrupt" });
    const answer = await wave.waitFor(
      (m) => m.response?.request_id === "stubborn",
      5000,
    );
    assert.equal(answer.response.response.is_error, true);
    assert.match(
      answer.response.response.content,
      /did not stop after the interrupt/,
    );
    // The session keeps serving, on a fresh worker.
    const echo = await wave.callTool("Echo", { text: "after" });
    assert.equal(echo.content, "after");
  } finally {
    await wave.kill();
  }
});

Deno.test("stdin EOF: work in flight finishes, then exit 0", async () => {
  const wave = await startWave({ fixtureTools: ["sleep.ts"] });
  await wave.send({
    type: "control_request",
    request_id: "last",
    request: { subtype: "call_tool", tool_name: "Sleep", input: { ms: 500 } },
  });
  const status = await wave.finish();
  assert.equal(status.code, 0);
  const last = wave.messages.find((m) => m.response?.request_id === "last");
  assert.equal(last?.response.response.content, "slept");
});

/** Starts the Spawn fixture's long-running child; returns its pid. */
async function spawnChild(wave: WaveProcess): Promise<number> {
  await wave.sendCall("sp", "Spawn", { seconds: 1000 });
  const progress = await wave.waitFor(
    (m) => m.subtype === "tool_progress" && /pid \d+/.test(m.text),
    { what: "the Spawn call's child pid (tool_progress 'pid N')" },
  );
  return Number(/pid (\d+)/.exec(progress.text)![1]);
}

Deno.test("SIGTERM: exit, and no child process is left", async () => {
  const wave = await startWave({ fixtureTools: ["spawn.ts"] });
  try {
    const pid = await spawnChild(wave);
    assert.ok(await alive(pid), "the child should be running");
    wave.child.kill("SIGTERM");
    const status = await wave.wait();
    assert.equal(status.code, 143);
    assert.equal(await alive(pid), false, "the child must be gone");
  } finally {
    await wave.kill();
  }
});

Deno.test("SIGTERM after EOF, while a call is still finishing: exit 143 at once, no child left", async () => {
  const wave = await startWave({
    fixtureTools: ["spawn.ts"],
    args: ["--approvals", "parent"],
  });
  try {
    const pid = await spawnChild(wave);
    // A call waiting for an approval, whose denial shows that wave has seen the EOF.
    await wave.sendCall("outside", "Read", { file_path: "/etc/hostname" });
    await wave.waitFor(
      (m) =>
        m.type === "control_request" && m.request?.subtype === "can_use_tool",
      { what: "the approval request of the outside Read" },
    );
    // EOF: wave finishes what is in flight, which would take 1000 s...
    await wave.closeStdin();
    const denied = await wave.waitFor(
      (m) => m.response?.request_id === "outside",
      { what: "the outside Read, denied because stdin closed" },
    );
    assert.match(
      denied.response.response.content,
      /stdin was closed, so no approval can arrive/,
    );
    assert.ok(await alive(pid), "EOF lets the call run on");
    // ...until a signal says to stop now.
    wave.child.kill("SIGTERM");
    // A guard, not a speed check: not stopping, wave would wait the call's 1000 s.
    const status = await within(
      wave.wait(),
      15_000,
      "wave's exit on SIGTERM",
    );
    assert.equal(status.code, 143);
    assert.equal(await alive(pid), false, "the child must be gone");
  } finally {
    await wave.kill();
  }
});

Deno.test("a tool's console.log never reaches stdout", async () => {
  const wave = await startWave({ fixtureTools: ["stdout_noise.ts"] });
  try {
    const result = await wave.callTool("Noisy", {});
    assert.equal(result.content, "done");
    await wave.finish();
    assert.match(wave.stderr, /this is not a protocol line/);
    for (const line of wave.lines) JSON.parse(line);
  } finally {
    await wave.kill();
  }
});

Deno.test("CLI: bad flags, a missing workspace, an unknown toolset: one stderr line, exit 2, empty stdout", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--frobnicate"],
      /^wave: unknown flag: --frobnicate \(see wave --help\)\n$/,
    ],
    [
      ["--workspace", "/no/such/dir"],
      /^wave: workspace does not exist: \/no\/such\/dir/,
    ],
    [
      ["--toolset", "klingon"],
      /^wave: unknown toolset "klingon"; available: wave/,
    ],
    [
      ["--mode", "god"],
      /^wave: --mode must be one of ask, plan, agent, not "god"/,
    ],
    [
      ["--approvals", "maybe"],
      /^wave: --approvals must be one of parent, deny, allow/,
    ],
    [
      ["--max-line-bytes", "-5"],
      /^wave: --max-line-bytes must be a positive whole number/,
    ],
    [["--session-id", "../x"], /^wave: --session-id must be/],
    [["--workspace"], /^wave: --workspace needs a value/],
    [["stray"], /^wave: unexpected argument: stray/],
  ];
  for (const [args, pattern] of cases) {
    const out = await runWave(args, "", { WAVE_HOME: "/tmp/unused" });
    assert.equal(out.code, 2, args.join(" "));
    assert.equal(out.stdout, "", args.join(" "));
    assert.match(out.stderr, pattern);
    assert.equal(out.stderr.trimEnd().split("\n").length, 1, args.join(" "));
  }
});

Deno.test("CLI: --version and --help", async () => {
  const version = await runWave(["--version"]);
  assert.equal(version.code, 0);
  assert.equal(version.stdout, "wave 0.1.0\n");
  const help = await runWave(["--help"]);
  assert.equal(help.code, 0);
  for (
    const flag of [
      "--workspace",
      "--toolset",
      "--mode",
      "--approvals",
      "--max-line-bytes",
      "--session-id",
      "--version",
      "--help",
      "WAVE_HOME",
    ]
  ) assert.ok(help.stdout.includes(flag), flag);
});

Deno.test("the workspace defaults to the current directory", async () => {
  const dir = await Deno.realPath(await tempDir());
  const child = new Deno.Command(Deno.execPath(), {
    args: (await import("../_wave.ts")).waveCommand([]),
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { WAVE_HOME: `${dir}/.wave-home` },
  });
  const out = await child.output();
  assert.equal(out.code, 0);
  const init = JSON.parse(new TextDecoder().decode(out.stdout).split("\n")[0]);
  assert.equal(init.cwd, dir);
});

async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // A zombie (state Z) has exited and is only waiting to be reaped.
    return stat.split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}
