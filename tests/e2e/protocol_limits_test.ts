/**
 * End-to-end: what a parent cannot make wave do with its own lines: serve
 * two requests under one `request_id` at once, echo an id of megabytes, or
 * run a call prepared in one mode after the mode changed under it.
 */

import assert from "node:assert/strict";
import { type Message, startWave, type WaveProcess } from "../_wave.ts";
import { tempFile } from "../_temp.ts";

const answerTo = (wave: WaveProcess, id: string) =>
  wave.waitFor(
    (m) => m.type === "control_response" && m.response.request_id === id,
    { what: `the control_response to ${id}` },
  );

const approvalRequest = (wave: WaveProcess) =>
  wave.waitFor((m) =>
    m.type === "control_request" && m.request.subtype === "can_use_tool"
  );

const approve = (wave: WaveProcess, ask: Message, behavior: "allow") =>
  wave.send({
    type: "control_response",
    response: {
      subtype: "success",
      request_id: ask.request_id,
      response: { behavior },
    },
  });

Deno.test("a request_id still in flight cannot be used again: the duplicate is refused and not run, the first still answered", async () => {
  const outside = await tempFile({ suffix: ".txt" });
  await Deno.writeTextFile(outside, "outside\n");
  const wave = await startWave({ args: ["--approvals", "parent"] });
  try {
    // The first "dup" waits for its approval: it is in flight until answered.
    await wave.sendCall("dup", "Read", { file_path: outside });
    const ask = await approvalRequest(wave);
    await wave.sendCall("dup", "Write", {
      file_path: `${wave.workspace}/made.txt`,
      content: "x",
    });
    const refused = await answerTo(wave, "dup");
    assert.deepEqual(refused.response, {
      subtype: "error",
      request_id: "dup",
      error:
        'duplicate request_id "dup": a request with this id is still in flight, so this call_tool request was not run; give each request its own id',
    });
    // Numbers are ids too, and 7 is not "7".
    await wave.sendCall(7, "Read", { file_path: outside });
    const second = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "can_use_tool" &&
      m.request_id !== ask.request_id
    );
    const seven = await wave.request({ subtype: "list_tools" }, "7");
    assert.equal(seven.subtype, "success");
    await wave.send({
      type: "control_request",
      request_id: 7,
      request: { subtype: "list_tools" },
    });
    const sevenAgain = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === 7
    );
    assert.equal(sevenAgain.response.subtype, "error");
    assert.match(sevenAgain.response.error, /^duplicate request_id 7: /);

    await approve(wave, ask, "allow");
    await approve(wave, second, "allow");
    const first = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "dup" &&
      m.response.subtype === "success"
    );
    assert.equal(first.response.response.content, "     1\toutside");
    await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === 7 &&
      m.response.subtype === "success"
    );
    // The duplicate never ran.
    await assert.rejects(Deno.stat(`${wave.workspace}/made.txt`));
    // Answered, the id is free again.
    await wave.send({
      type: "control_request",
      request_id: "dup",
      request: { subtype: "list_tools" },
    });
    let dups = 0;
    const reused = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "dup" &&
      ++dups === 3
    );
    assert.equal(reused.response.subtype, "success");
    const answers = wave.messages.filter((m) =>
      m.type === "control_response" && m.response.request_id === "dup"
    ).map((m) => m.response.subtype);
    assert.deepEqual(answers, ["error", "success", "success"]);
  } finally {
    await wave.kill();
    await Deno.remove(outside);
  }
});

Deno.test("a request_id is at most 256 characters: a longer one is refused without being echoed", async () => {
  const wave = await startWave();
  try {
    const longest = "r".repeat(256);
    const ok = await wave.request({ subtype: "list_tools" }, longest);
    assert.equal(ok.subtype, "success");

    const huge = "x".repeat(8 * 1024 * 1024);
    await wave.send({
      type: "control_request",
      request_id: huge,
      request: { subtype: "list_tools" },
    });
    await wave.send({
      type: "control_request",
      request_id: "y".repeat(257),
      request: { subtype: "interrupt" },
    });
    const errors = await Promise.all(
      [2, 3].map((line) =>
        wave.waitFor((m) => m.subtype === "error" && m.error.line === line)
      ),
    );
    assert.deepEqual(errors.map((m) => m.error), [
      {
        code: "invalid_message",
        line: 2,
        message:
          `line 2 has a request_id of 8388608 characters; at most 256 are allowed (it begins "${
            "x".repeat(32)
          }"…)`,
      },
      {
        code: "invalid_message",
        line: 3,
        message:
          `line 3 has a request_id of 257 characters; at most 256 are allowed (it begins "${
            "y".repeat(32)
          }"…)`,
      },
    ]);
    await wave.finish();
    // Nothing wave wrote came near the id's size.
    assert.ok(wave.lines.every((line) => line.length < 1024 * 1024));
    assert.equal(
      wave.messages.filter((m) => m.type === "control_response").length,
      1,
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("a tool name or tool_use_id over 256 characters is bad input, not echoed", async () => {
  const wave = await startWave();
  try {
    const name = await wave.request({
      subtype: "call_tool",
      tool_name: "N".repeat(100_000),
      input: {},
    }, "name");
    assert.deepEqual(name, {
      subtype: "error",
      request_id: "name",
      error:
        "invalid call_tool request: tool_name: Too big: expected string to have <=256 characters",
    });
    const id = await wave.request({
      subtype: "call_tool",
      tool_name: "Glob",
      input: { pattern: "*" },
      tool_use_id: "t".repeat(257),
    }, "id");
    assert.deepEqual(id, {
      subtype: "error",
      request_id: "id",
      error:
        "invalid call_tool request: tool_use_id: Too big: expected string to have <=256 characters",
    });
  } finally {
    await wave.kill();
  }
});

Deno.test("a Write prepared in agent mode and approved after set_permission_mode ask is not run", async () => {
  const wave = await startWave({ args: ["--approvals", "parent"] });
  // A sensitive file: writing it needs the parent's approval.
  const target = `${wave.workspace}/.env`;
  try {
    await wave.sendCall("write", "Write", {
      file_path: target,
      content: "should not be written\n",
    });
    const ask = await approvalRequest(wave);
    const mode = await wave.request({
      subtype: "set_permission_mode",
      mode: "ask",
    });
    assert.deepEqual(mode.response, { mode: "ask" });
    await approve(wave, ask, "allow");
    const answer = await answerTo(wave, "write");
    assert.deepEqual(answer.response, {
      subtype: "success",
      request_id: "write",
      response: {
        tool_use_id: answer.response.response.tool_use_id,
        content:
          "Write was not run: the session is in ask mode now (set_permission_mode changed it while the call waited), and Write needs agent mode or wider",
        is_error: true,
        structured: null,
      },
    });
    await assert.rejects(Deno.stat(target));
    // Back in agent mode, the same call runs.
    await wave.request({ subtype: "set_permission_mode", mode: "agent" });
    await wave.sendCall("write-again", "Write", {
      file_path: target,
      content: "written\n",
    });
    const again = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "can_use_tool" &&
      m.request_id !== ask.request_id
    );
    await approve(wave, again, "allow");
    const written = await answerTo(wave, "write-again");
    assert.equal(
      written.response.response.is_error,
      false,
      written.response.response.content,
    );
    assert.equal(await Deno.readTextFile(target), "written\n");
  } finally {
    await wave.kill();
  }
});

Deno.test("a Write waiting in the write queue behind a command is not run when set_permission_mode ask came meanwhile", async () => {
  const wave = await startWave();
  try {
    // A command holds the queue; the Write, prepared in agent mode, waits.
    await wave.sendCall("slow", "Bash", {
      command: "while [ ! -e go ]; do sleep 0.02; done; echo went",
    });
    await wave.sendCall("queued", "Write", {
      file_path: "late.txt",
      content: "late\n",
    });
    const mode = await wave.request({
      subtype: "set_permission_mode",
      mode: "ask",
    });
    assert.deepEqual(mode.response, { mode: "ask" });
    wave.put("go", "");
    assert.equal(
      (await answerTo(wave, "slow")).response.response.content,
      "went",
    );
    const answer = await answerTo(wave, "queued");
    assert.equal(
      answer.response.response.content,
      "Write was not run: the session is in ask mode now (set_permission_mode changed it while the call waited), and Write needs agent mode or wider",
    );
    assert.equal(answer.response.response.is_error, true);
    await assert.rejects(Deno.stat(`${wave.workspace}/late.txt`));
  } finally {
    await wave.kill();
  }
});

Deno.test("approval request ids are unguessable: each a new UUID; answers to guessed ids are refused and approve nothing", async () => {
  const outside = [
    await tempFile({ suffix: ".txt" }),
    await tempFile({ suffix: ".txt" }),
  ];
  for (const file of outside) await Deno.writeTextFile(file, "outside\n");
  const wave = await startWave({ args: ["--approvals", "parent"] });
  try {
    await wave.sendCall("a", "Read", { file_path: outside[0] });
    await wave.sendCall("b", "Read", { file_path: outside[1] });
    const asks: Message[] = [];
    await wave.waitFor((m) => {
      if (
        m.type === "control_request" && m.request.subtype === "can_use_tool"
      ) {
        if (!asks.includes(m)) asks.push(m);
      }
      return asks.length === 2;
    });
    const ids = asks.map((m) => m.request_id);
    for (const id of ids) {
      assert.match(
        id,
        /^wave-approval-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
    assert.notEqual(ids[0], ids[1]);
    for (const n of [0, 1, 2]) {
      await wave.send({
        type: "control_response",
        response: {
          subtype: "success",
          request_id: `wave-approval-${n}`,
          response: { behavior: "allow" },
        },
      });
    }
    await wave.request({ subtype: "get_tasks" }, "after-guesses");
    assert.deepEqual(
      wave.messages.filter((m) => m.type === "system" && m.subtype === "error")
        .map((m) => m.error.message),
      [0, 1, 2].map((n) =>
        `control_response for unknown request_id "wave-approval-${n}": no approval with that id is waiting`
      ),
    );
    assert.ok(
      !wave.messages.some((m) =>
        m.type === "control_response" &&
        ["a", "b"].includes(m.response.request_id)
      ),
      "both Reads still wait",
    );
  } finally {
    await wave.kill();
  }
});
