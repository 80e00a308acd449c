/**
 * Attacks on what the Claude Code drop-in added besides its rules: the
 * debug file, the other roots (`--add-dir`), and malformed control bodies.
 */

import assert from "node:assert/strict";
import { type Message, startWave, type WaveProcess } from "../_wave.ts";
import { MockModel } from "../_mock_model.ts";
import { tempDir, tempFile } from "../_temp.ts";

/** Sends `call_tool`, approves its `can_use_tool` (with `updatedPermissions`), and returns the call's answer. */
async function approved(
  wave: WaveProcess,
  id: string,
  command: string,
  updatedPermissions?: unknown[],
): Promise<Message> {
  await wave.sendCall(id, "Bash", { command });
  const ask = await wave.waitFor((m) =>
    m.type === "control_request" && m.request.subtype === "can_use_tool" &&
    m.request.input.command === command
  );
  await wave.send({
    type: "control_response",
    response: {
      subtype: "success",
      request_id: ask.request_id,
      response: {
        behavior: "allow",
        ...(updatedPermissions ? { updatedPermissions } : {}),
      },
    },
  });
  const answer = await wave.waitFor((m) =>
    m.type === "control_response" && m.response.request_id === id
  );
  return answer.response.response;
}

Deno.test("claude attacks: a command that puts a link where the debug file was does not send wave's log into the file it names; the log holds no model key", async () => {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-ws-" }),
  );
  const outside = await tempFile({ prefix: "wave-outside-" });
  await Deno.writeTextFile(outside, "precious\n");
  const key = "sk-ant-debug-file-secret-0123456789";
  const wave = await startWave({
    workspace,
    args: [
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      "--model",
      "claude-sonnet-5-5",
      "--debug-file",
      `${workspace}/debug.log`,
    ],
    env: { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
  });
  try {
    const linked = await approved(
      wave,
      "c1",
      `rm -f debug.log && ln -s ${outside} debug.log`,
    );
    assert.equal(linked.is_error, false, JSON.stringify(linked));
    // A line wave logs after the swap: a permission update it cannot apply.
    await approved(wave, "c2", "echo hi", [{
      type: "setMode",
      mode: "bogus",
      destination: "session",
    }]);
    await wave.finish();
    assert.equal(await Deno.readTextFile(outside), "precious\n");
    assert.match(
      wave.stderr,
      /wave: a permission update was not applied: unknown permission mode "bogus"/,
    );
    assert.ok(!wave.stderr.includes(key));
  } finally {
    await wave.kill();
    await Deno.remove(outside).catch(() => {});
  }
});

Deno.test("claude attacks: --add-dir naming WAVE_HOME shows commands none of wave's state: other sessions' transcripts stay hidden and nothing can be made where wave keeps its programs", async () => {
  const waveHome = await Deno.realPath(
    await tempDir({ prefix: "wave-home-" }),
  );
  await Deno.mkdir(`${waveHome}/sessions`, { recursive: true });
  await Deno.writeTextFile(`${waveHome}/sessions/other.jsonl`, "other\n");
  const wave = await startWave({
    waveHome,
    args: [
      "--output-format",
      "stream-json",
      "--shell-sandbox",
      "bwrap",
      "--permission-mode",
      "bypassPermissions",
      "--add-dir",
      waveHome,
    ],
  });
  try {
    const answer = await wave.callTool("Bash", {
      command: `cat ${waveHome}/sessions/other.jsonl; ` +
        `mkdir -p ${waveHome}/bin; echo evil > ${waveHome}/bin/rg; ` +
        `echo made > ${waveHome}/made.txt`,
    });
    assert.equal(answer.structured.sandboxed, true);
    assert.doesNotMatch(answer.content, /^other$/m);
    assert.match(answer.content, /other\.jsonl: No such file or directory/);
    // The root itself is writable, as --add-dir says; wave's parts are not.
    assert.equal(await Deno.readTextFile(`${waveHome}/made.txt`), "made\n");
    await assert.rejects(Deno.stat(`${waveHome}/bin/rg`));
  } finally {
    await wave.kill();
  }
});

Deno.test("claude attacks: malformed updatedPermissions in a can_use_tool answer are named and skipped; the approved call runs and the session goes on", async () => {
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
    ],
  });
  try {
    const updates: unknown[] = [
      { type: "addRules", behavior: "allow" },
      { type: "addRules", rules: [{ toolName: 5 }], behavior: "allow" },
      { type: "addRules", rules: [null], behavior: "allow" },
      { type: "addRules", rules: [{ toolName: "Bash" }], behavior: "bogus" },
      { type: "addDirectories", directories: "/" },
      { type: "removeDirectories" },
      { type: "setMode" },
      { type: "nonsense" },
      null,
    ];
    const answer = await approved(wave, "c1", "echo ran", updates);
    assert.equal(answer.is_error, false, JSON.stringify(answer));
    assert.equal(answer.content, "ran");
    await wave.finish();
    const prefix = "wave: a permission update was not applied: ";
    const problems = wave.stderr.split("\n").filter((line) =>
      line.startsWith(prefix)
    ).map((line) => line.slice(prefix.length));
    assert.deepEqual(problems, [
      "addRules whose rules are not a list of {toolName, ruleContent?}",
      "addRules whose rules are not a list of {toolName, ruleContent?}",
      "addRules whose rules are not a list of {toolName, ruleContent?}",
      'addRules with behavior "bogus"; expected allow, deny or ask',
      "addDirectories whose directories are not a list of paths",
      "removeDirectories whose directories are not a list of paths",
      "setMode without a mode name",
      'unknown permission update type "nonsense"',
    ]);
  } finally {
    await wave.kill();
  }
});

Deno.test("claude attacks: an input swapped by a PreToolUse hook or by the parent's updatedInput is asked about again when it names a path outside or a sensitive file", async () => {
  const outside = await Deno.realPath(
    await tempDir({ prefix: "wave-outside-" }),
  );
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      "--permission-mode",
      "acceptEdits",
    ],
  });
  try {
    const init = await wave.request({
      subtype: "initialize",
      hooks: { PreToolUse: [{ matcher: "Write", hookCallbackIds: ["swap"] }] },
    });
    assert.equal(init.subtype, "success");
    const answer = (requestId: string, response: unknown) =>
      wave.send({
        type: "control_response",
        response: { subtype: "success", request_id: requestId, response },
      });
    const nextAsk = () =>
      wave.waitFor((m) =>
        m.type === "control_request" && m.request.subtype === "can_use_tool" &&
        !m.handled && (m.handled = true)
      );
    // The hook swaps a workspace path (acceptEdits: no question) for one outside.
    await wave.sendCall("w1", "Write", { file_path: "a.txt", content: "x" });
    const hook = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "hook_callback"
    );
    assert.equal(hook.request.callback_id, "swap");
    await answer(hook.request_id, {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        updatedInput: { file_path: `${outside}/pwned.txt`, content: "x" },
      },
    });
    const ask1 = await nextAsk();
    assert.equal(ask1.request.blocked_path, `${outside}/pwned.txt`);
    await answer(ask1.request_id, { behavior: "deny", message: "no" });
    const w1 = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "w1"
    );
    assert.equal(w1.response.response.is_error, true);
    await assert.rejects(Deno.stat(`${outside}/pwned.txt`));
    // The parent approves an outside path, then swaps in a sensitive file.
    await wave.sendCall("w2", "Write", {
      file_path: `${outside}/ok.txt`,
      content: "x",
    });
    const hook2 = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "hook_callback" &&
      m.request_id !== hook.request_id
    );
    await answer(hook2.request_id, {});
    const ask2 = await nextAsk();
    await answer(ask2.request_id, {
      behavior: "allow",
      updatedInput: { file_path: ".env", content: "SECRET=stolen\n" },
    });
    const ask3 = await nextAsk();
    assert.match(ask3.request.reason, /sensitive file \(\.env\)/);
    await answer(ask3.request_id, { behavior: "deny", message: "no" });
    const w2 = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "w2"
    );
    assert.equal(w2.response.response.is_error, true);
    await assert.rejects(Deno.stat(`${wave.workspace}/.env`));
    await assert.rejects(Deno.stat(`${outside}/ok.txt`));
  } finally {
    await wave.kill();
    await Deno.remove(outside, { recursive: true }).catch(() => {});
  }
});

Deno.test("claude attacks: a PreToolUse hook registered with a timeout longer than a timer holds (30 days) is waited for, not skipped as failed", async () => {
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
    ],
  });
  try {
    const init = await wave.request({
      subtype: "initialize",
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hookCallbackIds: ["guard"],
          timeout: 30 * 24 * 3600,
        }],
      },
    });
    assert.equal(init.subtype, "success");
    await wave.sendCall("b1", "Bash", { command: "echo ran" });
    const hook = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "hook_callback"
    );
    // A moment in which a timer that fired at once would have given up.
    await new Promise((r) => setTimeout(r, 300));
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: hook.request_id,
        response: {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "guarded",
          },
        },
      },
    });
    const answer = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "b1"
    );
    assert.equal(
      answer.response.response.content,
      "Bash was blocked by a hook: guarded",
    );
    assert.doesNotMatch(wave.stderr, /hook guard failed/);
  } finally {
    await wave.kill();
  }
});

Deno.test("claude attacks: the model's API key file in an --add-dir root is asked about before a file tool reads or searches it, even under bypassPermissions", async () => {
  const keys = await Deno.realPath(
    await tempDir({ prefix: "wave-keys-" }),
  );
  const key = "sk-ant-in-a-root-0123456789";
  await Deno.writeTextFile(`${keys}/anthropic_token`, `${key}\n`);
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      "--permission-mode",
      "bypassPermissions",
      "--model",
      "claude-sonnet-5-5",
      "--add-dir",
      keys,
    ],
    env: {
      ANTHROPIC_API_KEY_FILE: `${keys}/anthropic_token`,
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    },
  });
  try {
    const calls: [string, Record<string, unknown>, string][] = [
      [
        "Read",
        { file_path: `${keys}/anthropic_token` },
        `the model's API key file: ${keys}/anthropic_token`,
      ],
      [
        "Grep",
        { pattern: "sk-ant", path: keys, output_mode: "content" },
        `a directory holding the model's API key file: ${keys}`,
      ],
    ];
    for (const [i, [tool, input, reason]] of calls.entries()) {
      await wave.sendCall(`k${i}`, tool, input);
      const ask = await wave.waitFor((m) =>
        m.type === "control_request" && m.request.subtype === "can_use_tool" &&
        m.request.tool_name === tool
      );
      assert.equal(ask.request.reason, reason);
      await wave.send({
        type: "control_response",
        response: {
          subtype: "success",
          request_id: ask.request_id,
          response: { behavior: "deny", message: "not the key" },
        },
      });
      const answer = await wave.waitFor((m) =>
        m.type === "control_response" && m.response.request_id === `k${i}`
      );
      assert.equal(answer.response.response.is_error, true);
      assert.ok(!JSON.stringify(answer).includes(key));
    }
    // Another file in the root is the workspace's equal: read without a question.
    await Deno.writeTextFile(`${keys}/notes.txt`, "plain\n");
    const notes = await wave.callTool("Read", {
      file_path: `${keys}/notes.txt`,
    });
    assert.match(notes.content, /plain/);
  } finally {
    await wave.kill();
    await Deno.remove(keys, { recursive: true }).catch(() => {});
  }
});

Deno.test("claude attacks: an interrupt ends a turn that waits for a Stop or UserPromptSubmit hook the parent does not answer", async () => {
  const mock = new MockModel();
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--model",
      "anthropic:test-model",
      "--base-url",
      mock.url,
    ],
    env: { ANTHROPIC_API_KEY: "sk-test", PATH: Deno.env.get("PATH")! },
  });
  try {
    const init = await wave.request({
      subtype: "initialize",
      hooks: {
        Stop: [{ hookCallbackIds: ["stop"], timeout: 600 }],
        UserPromptSubmit: [{ hookCallbackIds: ["prompt"], timeout: 600 }],
      },
    });
    assert.equal(init.subtype, "success");
    mock.script({ reply: [{ type: "text", text: "finished" }] });
    await wave.send({
      type: "user",
      message: { role: "user", content: "go" },
    });
    for (const [i, callback] of ["prompt", "stop"].entries()) {
      const hook = await wave.waitFor((m) =>
        m.type === "control_request" &&
        m.request.subtype === "hook_callback" &&
        m.request.callback_id === callback
      );
      if (callback === "prompt") {
        // The first is answered; the Stop hook is left waiting.
        await wave.send({
          type: "control_response",
          response: {
            subtype: "success",
            request_id: hook.request_id,
            response: {},
          },
        });
        continue;
      }
      assert.equal(i, 1);
      const answer = await wave.request({ subtype: "interrupt" });
      assert.equal(answer.subtype, "success");
    }
    const result = await wave.waitFor((m) => m.type === "result", {
      timeoutMs: 10_000,
      what: "the interrupted turn's result",
    });
    assert.equal(result.subtype, "error_during_execution");
    // The next turn's prompt hook is interrupted the same way.
    await wave.send({
      type: "user",
      message: { role: "user", content: "again" },
    });
    await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "hook_callback" &&
      m.request.callback_id === "prompt" && m.request.input.prompt === "again"
    );
    await wave.request({ subtype: "interrupt" });
    await wave.waitFor(
      (m) => m.type === "result" && m !== result,
      { timeoutMs: 10_000, what: "the second turn's result" },
    );
  } finally {
    await wave.kill();
    await mock.close();
  }
});

Deno.test("attack: set_model cannot make wave read a file (a replay script); wave's agent after Claude's plan asks before changes again", async () => {
  const wave = await startWave({
    args: ["--permission-mode", "plan", "--output-format", "stream-json"],
  });
  try {
    const refused = await wave.request({
      subtype: "set_model",
      model: "replay:/etc/passwd",
    });
    assert.equal(refused.subtype, "error");
    assert.match(refused.error, /not a replay script/);
    assert.doesNotMatch(refused.error, /root:/);
    await wave.request({ subtype: "set_permission_mode", mode: "agent" });
    const call = await wave.request({
      subtype: "call_tool",
      tool_name: "Write",
      input: { file_path: "a.txt", content: "x" },
    });
    // default mode asks the parent, and with --approvals deny that is a denial.
    assert.equal(call.response.is_error, true);
    assert.match(call.response.content, /Write changes a\.txt/);
  } finally {
    await wave.kill();
  }
});

Deno.test("a --json-schema wave cannot check ends the turn at once, saying so, before the model is asked", async () => {
  const model = new MockModel();
  const wave = await startWave({
    args: [
      "--model",
      "anthropic:claude-x",
      "--base-url",
      model.url,
      "--json-schema",
      '{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}',
    ],
    env: { ANTHROPIC_API_KEY: "k" },
  });
  try {
    await wave.send({
      type: "user",
      message: { role: "user", content: "go" },
    });
    const result = await wave.waitFor((m) => m.type === "result");
    assert.equal(result.subtype, "error_during_execution");
    assert.match(result.result, /JSON Schema \(--json-schema\) cannot be used/);
    assert.equal(model.requests.length, 0);
  } finally {
    await wave.kill();
    await model.close();
  }
});
