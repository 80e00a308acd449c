/**
 * `serve()` in-process over streams: every line a real session writes is a
 * declared outbound message (session/outbound.ts), every input line gets
 * its answer, and names a parent chose that are also names of
 * `Object.prototype`'s members are only unknown names.
 */
import assert from "node:assert/strict";
import { type Config, parseFlags } from "../../session/config.ts";
import { checkOutboundLine } from "../../session/outbound.ts";
import { serve } from "../../session/server.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { tempDir } from "../_temp.ts";

/** A config for a new temp workspace and WAVE_HOME. */
async function tempConfig(args: string[] = []): Promise<Config> {
  const workspace = await tempDir({ prefix: "wave-ws-" });
  const home = await tempDir({ prefix: "wave-home-" });
  const parsed = parseFlags(
    ["--workspace", workspace, "--session-id", "s-test", ...args],
    { get: (name) => name === "WAVE_HOME" ? home : undefined },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  return parsed.config;
}

/** Serves `lines` (then EOF) and returns the exit code and every line written. */
async function serveLines(
  config: Config,
  lines: string[],
): Promise<{ code: number; out: string[] }> {
  const encoder = new TextEncoder();
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const code = await serve(config, {
    stdin: ReadableStream.from([encoder.encode(lines.join("\n") + "\n")]),
    stdout: {
      write(bytes) {
        chunks.push(decoder.decode(bytes, { stream: true }));
        return Promise.resolve(bytes.length);
      },
    },
  }, { modules: TOOLSETS[config.toolset].map(builtinRef) });
  const text = chunks.join("");
  assert.ok(text.endsWith("\n"), "the last line is whole");
  return { code, out: text.slice(0, -1).split("\n") };
}

const request = (id: string, body: Record<string, unknown>) =>
  JSON.stringify({ type: "control_request", request_id: id, request: body });

/** Names every plain object inherits: lookups by a parent's name must not find them. */
const INHERITED = [
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__proto__",
];

Deno.test("every line a session writes is a declared outbound message, and every input line is answered", async () => {
  const config = await tempConfig();
  await Deno.writeTextFile(`${config.workspace}/a.txt`, "one\n");
  const { code, out } = await serveLines(config, [
    request("tools", { subtype: "list_tools" }),
    request("read", {
      subtype: "call_tool",
      tool_name: "Read",
      input: { file_path: "a.txt" },
    }),
    request("create", {
      subtype: "call_tool",
      tool_name: "TaskCreate",
      input: { subject: "Parse", description: "" },
    }),
    request("bash", {
      subtype: "call_tool",
      tool_name: "Bash",
      input: { command: "echo out" },
    }),
    "nope",
    JSON.stringify({ type: "user", message: { role: "user", content: "hi" } }),
    request("tasks", { subtype: "get_tasks" }),
    // agent: the calls above may still be waiting in the queue, and a call
    // runs only if its tool is bound when it starts.
    request("mode", { subtype: "set_permission_mode", mode: "agent" }),
    JSON.stringify({
      type: "control_response",
      response: { subtype: "success", request_id: "zz", response: {} },
    }),
  ]);
  assert.equal(code, 0);
  const problems = out.flatMap((line) => {
    const problem = checkOutboundLine(line);
    return problem ? [`${problem}: ${line.slice(0, 300)}`] : [];
  });
  assert.deepEqual(problems, []);
  const messages = out.map((line) => JSON.parse(line));
  assert.ok(messages.every((m) => m.session_id === "s-test"));
  const answer = (id: string) =>
    messages.findIndex((m) =>
      m.type === "control_response" && m.response.request_id === id
    );
  for (const id of ["tools", "read", "create", "bash", "tasks", "mode"]) {
    assert.equal(messages[answer(id)].response.subtype, "success", id);
  }
  assert.deepEqual(messages[answer("mode")].response.response, {
    mode: "agent",
  });
  const taskList = messages.findIndex((m) => m.subtype === "task_list");
  assert.ok(
    taskList !== -1 && taskList < answer("create"),
    "a call's system/task_list comes before its answer",
  );
  assert.deepEqual(messages[taskList], {
    type: "system",
    subtype: "task_list",
    task_list_id: "s-test",
    tasks: [{ id: "1", subject: "Parse", status: "pending" }],
    visible: true,
    session_id: "s-test",
  });
  const progress = messages.findIndex((m) => m.subtype === "tool_progress");
  assert.ok(progress !== -1 && progress < answer("bash"));
  assert.deepEqual(messages[progress], {
    type: "system",
    subtype: "tool_progress",
    tool_use_id: messages[answer("bash")].response.response.tool_use_id,
    stream: "stdout",
    text: "out\n",
    session_id: "s-test",
  });
  assert.deepEqual(
    messages.filter((m) => m.subtype === "error").map((m) => m.error),
    [{
      code: "invalid_json",
      line: 5,
      message:
        `line 5 is not JSON: Unexpected token 'o', "nope" is not valid JSON`,
    }, {
      code: "invalid_message",
      line: 9,
      message:
        'control_response for unknown request_id "zz": no approval with that id is waiting',
    }],
  );
  const result = messages.find((m) => m.type === "result");
  assert.equal(result.subtype, "error_during_execution");
});

Deno.test("13: type, subtype and tool_name named like Object.prototype's members are unknown names; wave answers every line and keeps serving", async () => {
  const config = await tempConfig();
  const lines = INHERITED.flatMap((name) => [
    JSON.stringify({ type: name }),
    JSON.stringify({ type: name, request_id: `type-${name}` }),
    request(`subtype-${name}`, { subtype: name }),
    request(`tool-${name}`, {
      subtype: "call_tool",
      tool_name: name,
      input: {},
    }),
  ]);
  lines.push(
    request("stop", { subtype: "interrupt" }),
    request("after", { subtype: "list_tools" }),
  );
  const { code, out } = await serveLines(config, lines);
  assert.equal(code, 0);
  const messages = out.map((line) => JSON.parse(line));
  assert.equal(messages[0].subtype, "init");
  assert.equal(messages.length, 1 + lines.length, "one answer a line");
  assert.deepEqual(out.filter((line) => checkOutboundLine(line) !== null), []);
  const errors = (prefix: string) =>
    INHERITED.map((name) =>
      messages.find((m) => m.response?.request_id === `${prefix}-${name}`)
        ?.response
    );
  const toolNames = TOOLSETS.wave.map((t) => t.name).join(", ");
  assert.deepEqual(
    messages.filter((m) => m.subtype === "error").map((m) => m.error.message),
    INHERITED.map((name) =>
      `unknown message type "${name}"; expected user, control_request, control_response or control_cancel_request`
    ),
  );
  assert.deepEqual(
    errors("type"),
    INHERITED.map((name) => ({
      subtype: "error",
      request_id: `type-${name}`,
      error:
        `unknown message type "${name}"; expected user, control_request, control_response or control_cancel_request`,
    })),
  );
  assert.deepEqual(
    errors("subtype"),
    INHERITED.map((name) => ({
      subtype: "error",
      request_id: `subtype-${name}`,
      error:
        `unknown control_request subtype "${name}"; wave serves call_tool, interrupt, set_permission_mode, list_tools, get_tasks, set_task, initialize, set_model, set_max_thinking_tokens, mcp_status, mcp_message`,
    })),
  );
  assert.deepEqual(
    errors("tool"),
    INHERITED.map((name) => ({
      subtype: "error",
      request_id: `tool-${name}`,
      error: `unknown tool "${name}"; this toolset (wave) has: ${toolNames}`,
    })),
  );
  assert.deepEqual(messages.at(-2).response, {
    subtype: "success",
    request_id: "stop",
    response: {},
  });
  assert.equal(messages.at(-1).response.request_id, "after");
  assert.equal(messages.at(-1).response.subtype, "success");
});

Deno.test("checkOutboundLine says what is wrong with a line", () => {
  assert.equal(
    checkOutboundLine(
      '{"type":"system","subtype":"warning","message":"m","session_id":"s"}',
    ),
    null,
  );
  assert.equal(
    checkOutboundLine('{"type":"system","subtype":"warning","message":"m"}'),
    "no session_id string",
  );
  assert.equal(
    checkOutboundLine('{"type":"system","subtype":"x","session_id":"s"}'),
    "system/x is no declared outbound message",
  );
  assert.equal(
    checkOutboundLine(
      '{"type":"system","subtype":"warning","message":"m","extra":1,"session_id":"s"}',
    ),
    `system/warning: (root): Unrecognized key: "extra"`,
  );
  assert.equal(checkOutboundLine("[]"), "not a JSON object");
});
