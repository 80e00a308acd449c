/**
 * `initialize` gives its session a new config and changes none it was
 * handed: two sessions served in one process from the same parsed flags
 * (the library's `serve`, a front's sessions) do not see each other's
 * system prompt or structured-output schema.
 */
import assert from "node:assert/strict";
import { type Config, parseFlags } from "../../session/config.ts";
import { configAfterInitialize } from "../../session/initialize.ts";
import { serve } from "../../session/server.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { MOCK_KEY, MockModel, textStep } from "../_mock_model.ts";
import { tempDir } from "../_temp.ts";

/** A config for a new temp workspace and WAVE_HOME, with `args`' flags. */
async function tempConfig(args: string[] = []): Promise<Config> {
  const workspace = await tempDir({ prefix: "wave-ws-" });
  const home = await tempDir({ prefix: "wave-home-" });
  const env: Record<string, string> = {
    WAVE_HOME: home,
    ANTHROPIC_API_KEY: MOCK_KEY,
  };
  const parsed = parseFlags(
    ["--workspace", workspace, ...args],
    { get: (name) => env[name] },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  return parsed.config;
}

/** Serves `lines` (then EOF) from `config`; every line written. */
async function serveLines(config: Config, lines: unknown[]): Promise<string[]> {
  const written: string[] = [];
  const decoder = new TextDecoder();
  const code = await serve(config, {
    stdin: ReadableStream.from([
      new TextEncoder().encode(
        lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
      ),
    ]),
    stdout: {
      write(bytes) {
        written.push(decoder.decode(bytes, { stream: true }));
        return Promise.resolve(bytes.length);
      },
    },
  }, { modules: TOOLSETS[config.toolset].map(builtinRef) });
  assert.equal(code, 0);
  return written.join("").split("\n").filter((l) => l !== "");
}

const user = (text: string) => ({
  type: "user",
  message: { role: "user", content: text },
});

const SCHEMA = {
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
};

Deno.test("initialize: a session's system prompt and schema are its own; a second session served from the same config asks with wave's prompt and no schema", async () => {
  const mock = new MockModel();
  try {
    mock.script(
      // The first session's turn ends with its structured output.
      {
        reply: [{
          type: "tool_use",
          id: "toolu_s",
          name: "StructuredOutput",
          input: { answer: "one" },
        }],
      },
      textStep("second"),
    );
    const config = await tempConfig([
      "--model",
      "anthropic:test-model",
      "--base-url",
      mock.url,
    ]);
    const first = await serveLines(config, [
      {
        type: "control_request",
        request_id: "init",
        request: {
          subtype: "initialize",
          systemPrompt: "PROMPT OF THE FIRST SESSION",
          appendSystemPrompt: "APPENDED BY THE FIRST SESSION",
          jsonSchema: SCHEMA,
        },
      },
      user("first"),
    ]);
    assert.ok(
      first.some((l) => JSON.parse(l).type === "result"),
      "the first session's turn ended",
    );
    assert.deepEqual(config.systemPrompt, { replace: null, append: null });
    assert.equal(config.jsonSchema, null);

    await serveLines(config, [user("second")]);
    assert.equal(mock.requests.length, 2);
    const [asked, second] = mock.requests.map((r) => r.body);
    assert.match(JSON.stringify(asked.system), /PROMPT OF THE FIRST SESSION/);
    assert.match(
      JSON.stringify(asked.system),
      /APPENDED BY THE FIRST SESSION/,
    );
    assert.ok(
      (asked.tools as { name: string }[]).some((t) =>
        t.name === "StructuredOutput"
      ),
      "the first session offers its structured output",
    );
    assert.doesNotMatch(JSON.stringify(second.system), /FIRST SESSION/);
    assert.match(JSON.stringify(second.system), /Workspace: /);
    assert.ok(
      !(second.tools as { name: string }[]).some((t) =>
        t.name === "StructuredOutput"
      ),
      "the second session has no schema",
    );
  } finally {
    await mock.close();
  }
});

Deno.test("initialize: configAfterInitialize makes a new config with the request's settings and leaves the one given as it was", async () => {
  const config = await tempConfig(["--append-system-prompt", "from the flag"]);
  const prompt = config.systemPrompt;
  const next = configAfterInitialize(config, {
    subtype: "initialize",
    systemPrompt: ["one", "two"],
    jsonSchema: SCHEMA,
  });
  assert.notEqual(next, config);
  assert.deepEqual(next.systemPrompt, {
    replace: "one\n\ntwo",
    append: "from the flag",
  });
  assert.deepEqual(next.jsonSchema, SCHEMA);
  assert.equal(config.systemPrompt, prompt);
  assert.deepEqual(config.systemPrompt, {
    replace: null,
    append: "from the flag",
  });
  assert.equal(config.jsonSchema, null);
  // Nothing to change: the same config.
  assert.equal(
    configAfterInitialize(config, { subtype: "initialize" }),
    config,
  );
});
