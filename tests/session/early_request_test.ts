/** The early first request's parts: which first lines it sends for, when it is not taken, and how the SDK's fetch takes it over. */
import assert from "node:assert/strict";
import { parseFlags } from "../../session/config.ts";
import {
  EarlyRequest,
  earlyRequestBlocker,
  firstRequestWire,
  proxyVariable,
  sendEarly,
  userContent,
} from "../../session/early_request.ts";
import { peekFirstLine } from "../../session/_first_line.ts";
import { modelRequest } from "../../session/model_request.ts";
import { createProvider } from "../../session/models/mod.ts";
import { ToolRegistry } from "../../session/registry.ts";
import { builtinRef, TOOLSETS } from "../../tools/toolsets.ts";
import { decodeLine } from "../../session/inbound.ts";
import { MockModel, textStep } from "../_mock_model.ts";
import { TOOLSET_NAMES } from "../../tools/toolsets.ts";

Deno.test("userContent: a user turn exactly when inbound.ts decodes the line as one", () => {
  const lines = [
    '{"type":"user","message":{"role":"user","content":"hi"}}',
    '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"}]},"session_id":"x"}',
    '{"type":"user","message":{"role":"user","content":[]}}',
    '{"type":"user","message":{"role":"user","content":[1]}}',
    '{"type":"user","message":{"role":"user","content":[{"text":"no type"}]}}',
    '{"type":"user","message":{"role":"assistant","content":"hi"}}',
    '{"type":"user","message":{"role":"user"}}',
    '{"type":"user","message":"hi"}',
    '{"type":"user"}',
    '{"type":"control_request","request_id":"r1","request":{"subtype":"list_tools"}}',
    "[1]",
    "null",
    "not json",
  ];
  for (const line of lines) {
    const decoded = decodeLine(line, 1);
    const turn = "type" in decoded && decoded.type === "user"
      ? decoded.message.content
      : null;
    assert.deepEqual(userContent(line), turn, line);
  }
});

const env = (vars: Record<string, string>) => ({
  get: (name: string) => vars[name],
  toObject: () => vars,
});

function blocker(args: string[], vars: Record<string, string> = {}) {
  const all = {
    WAVE_HOME: "/tmp/wave-home-unused",
    ANTHROPIC_API_KEY: "sk-x",
    OPENAI_API_KEY: "sk-x",
    ...vars,
  };
  const parsed = parseFlags(
    ["--workspace", "/tmp", ...args],
    env(all),
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  return earlyRequestBlocker(parsed.config, env(all));
}

Deno.test("earlyRequestBlocker: taken only where the first request is fully known at start", () => {
  assert.equal(blocker(["--model", "anthropic:m"]), null);
  assert.equal(blocker(["--model", "openai:m"]), null);
  assert.equal(blocker(["--model", "sonnet", "--system-prompt", "x"]), null);
  assert.equal(blocker([]), "no model");
  assert.equal(
    blocker(["--model", "anthropic:m", "--fallback-model", "anthropic:n"]),
    "a fallback model",
  );
  assert.equal(
    blocker(["--model", "anthropic:m", "--json-schema", '{"type":"object"}']),
    "structured output",
  );
  assert.equal(
    blocker(["--model", "anthropic:m"], { WAVE_EARLY_REQUEST: "off" }),
    "WAVE_EARLY_REQUEST=off",
  );
  assert.equal(
    blocker(["--model", "anthropic:m"], { ANTHROPIC_BASE_URL: "http://x" }),
    "ANTHROPIC_BASE_URL is set (the SDK reads it)",
  );
  assert.equal(
    blocker(["--model", "openai:m"], { OPENAI_ORG_ID: "org" }),
    "OPENAI_ORG_ID is set (the SDK reads it)",
  );
  // Another API's variables are not read by this one's SDK.
  assert.equal(
    blocker(["--model", "openai:m"], { ANTHROPIC_BASE_URL: "http://x" }),
    null,
  );
});

Deno.test("EarlyRequest: the SDK's same request takes the response over, once; a different one aborts it and goes out itself", async () => {
  const mock = new MockModel();
  mock.script(textStep("early"), textStep("sdk"), textStep("again"));
  try {
    const wire = {
      url: `${mock.url}/v1/messages`,
      headers: { "content-type": "application/json", "x-a": "1" },
      body: '{"model":"m","stream":true}',
    };
    const same = new EarlyRequest(wire);
    const send = same.fetchFor();
    const first = await send(wire.url, {
      method: "POST",
      headers: new Headers(wire.headers),
      body: wire.body,
    });
    assert.ok(same.claimed);
    assert.match(await first.text(), /early/);
    // The next call is the SDK's own (a retry): the real fetch.
    const second = await send(wire.url, {
      method: "POST",
      headers: wire.headers,
      body: wire.body,
    });
    assert.match(await second.text(), /sdk/);
    assert.equal(mock.requests.length, 2);

    const errors: string[] = [];
    const log = console.error;
    console.error = (...data: unknown[]) => errors.push(data.join(" "));
    let differs: EarlyRequest;
    try {
      differs = new EarlyRequest(wire);
      assert.equal(
        differs.claim(wire.url, {
          method: "POST",
          headers: { ...wire.headers, "x-a": "2" },
          body: wire.body,
        }),
        null,
      );
    } finally {
      console.error = log;
    }
    assert.equal(differs.claimed, false);
    assert.deepEqual(errors, [
      "wave: the early first request differed from the SDK's (header x-a); the SDK's was sent",
    ]);
  } finally {
    await mock.close();
  }
});

Deno.test("EarlyRequest: one that failed before its response began gives way to the SDK's own request at once, with a line on stderr", async () => {
  const mock = new MockModel();
  mock.script(textStep("sdk"));
  // A server that takes the early request's connection and drops it.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dropping = (async () => {
    const conn = await listener.accept();
    await conn.read(new Uint8Array(1024));
    conn.close();
  })();
  const errors: string[] = [];
  const log = console.error;
  console.error = (...data: unknown[]) => errors.push(data.join(" "));
  try {
    const wire = {
      url: `http://127.0.0.1:${listener.addr.port}/v1/messages`,
      headers: { "content-type": "application/json" },
      body: '{"model":"m","stream":true}',
    };
    const early = new EarlyRequest(wire);
    const sent: string[] = [];
    const real: typeof fetch = (input, init) => {
      sent.push(String(input));
      return fetch(`${mock.url}/v1/messages`, init);
    };
    const response = await early.fetchFor(real)(wire.url, {
      method: "POST",
      headers: wire.headers,
      body: wire.body,
    });
    assert.match(await response.text(), /sdk/);
    assert.deepEqual(sent, [wire.url]);
    assert.equal(mock.requests.length, 1);
    assert.equal(errors.length, 1);
    assert.match(
      errors[0],
      /^wave: the early first request failed \(.+\); the SDK's was sent$/,
    );
  } finally {
    console.error = log;
    await dropping;
    listener.close();
    await mock.close();
  }
});

Deno.test("EarlyRequest: discarded, it is aborted and nothing can take it over; an aborted SDK request aborts it", async () => {
  const mock = new MockModel();
  mock.script(
    { hang: [{ type: "text", text: "slow" }], events: 2 },
    { hang: [{ type: "text", text: "slow" }], events: 2 },
  );
  try {
    const wire = {
      url: `${mock.url}/v1/messages`,
      headers: { "content-type": "application/json" },
      body: "{}",
    };
    const left = new EarlyRequest(wire);
    left.discard();
    assert.equal(
      left.claim(wire.url, {
        method: "POST",
        headers: wire.headers,
        body: wire.body,
      }),
      null,
    );
    const taken = new EarlyRequest(wire);
    const controller = new AbortController();
    const response = await taken.claim(wire.url, {
      method: "POST",
      headers: wire.headers,
      body: wire.body,
      signal: controller.signal,
    })!;
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(async () => {
      while (!(await reader.read()).done) { /* the stream until it fails */ }
    });
  } finally {
    await mock.close();
  }
});

for (const api of ["anthropic", "openai"] as const) {
  Deno.test(`EarlyRequest (${api}): the live SDK, sending the loop's first request, takes the early one over: one request reaches the server`, async () => {
    const mock = new MockModel();
    mock.script(textStep("hello"));
    try {
      const vars = {
        WAVE_HOME: "/tmp/wave-home-unused",
        ANTHROPIC_API_KEY: "sk-x",
        OPENAI_API_KEY: "sk-x",
      };
      const parsed = parseFlags(
        [
          "--workspace",
          "/tmp",
          "--model",
          `${api}:test-model`,
          "--base-url",
          api === "openai" ? `${mock.url}/v1` : mock.url,
        ],
        env(vars),
        TOOLSET_NAMES,
      );
      if (parsed.kind !== "run") throw new Error(parsed.stderr);
      const { config } = parsed;
      const names = TOOLSETS.wave.map((t) => t.name);
      const early = new EarlyRequest(firstRequestWire(config, names, "hi"));
      const provider = await createProvider({
        model: config.model!,
        baseUrl: config.baseUrl ?? undefined,
        apiKey: config.apiKey!,
        fetch: early.fetchFor(),
      });
      // The request the agent loop builds for the same session.
      const registry = await ToolRegistry.load(TOOLSETS.wave.map(builtinRef));
      const request = modelRequest({
        config,
        mode: config.mode,
        tools: registry.describe(config.mode),
        taskTrackers: registry.emitters("task_list_changed", config.mode),
      }, [{ role: "user", content: "hi" }]);
      const reply = await provider.complete(
        request,
        new AbortController().signal,
      );
      assert.deepEqual(reply.content, [{ type: "text", text: "hello" }]);
      assert.ok(early.claimed);
      assert.equal(mock.requests.length, 1);
      assert.equal(mock.requests[0].text, early.wire.body);
    } finally {
      await mock.close();
    }
  });
}

Deno.test("proxyVariable: a proxy fetch honours sends the early request through fetch", () => {
  assert.equal(proxyVariable(env({ PATH: "/bin", NO_PROXY: "x" })), null);
  for (const name of ["HTTPS_PROXY", "http_proxy", "ALL_PROXY"]) {
    assert.equal(proxyVariable(env({ [name]: "http://proxy:3128" })), name);
  }
});

/** The config of a session on `url`'s model API, as parsed at start. */
function configFor(api: "anthropic" | "openai", url: string) {
  const parsed = parseFlags(
    [
      "--workspace",
      "/tmp",
      "--model",
      `${api}:test-model`,
      "--base-url",
      api === "openai" ? `${url}/v1` : url,
    ],
    env({ WAVE_HOME: "/tmp/wave-home-unused", ANTHROPIC_API_KEY: "sk-x" }),
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  return parsed.config;
}

/** A stream that gives `text` once `gate` opens. */
function lineAfter(text: string, gate: Promise<void>) {
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      await gate;
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

Deno.test("sendEarly: the connection opens before the first line comes; a user turn goes over it, any other line closes it", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const config = configFor("anthropic", url);
  try {
    for (
      const [line, sends] of [
        ['{"type":"user","message":{"role":"user","content":"hi"}}', true],
        ['{"type":"control_request","request_id":"r","request":{}}', false],
      ] as const
    ) {
      const gate = Promise.withResolvers<void>();
      const sending = sendEarly(
        config,
        ["Read"],
        peekFirstLine(lineAfter(line + "\n", gate.promise), 1 << 20),
        undefined,
        60_000, // however slow the machine, the connection is still fresh
      );
      // Accepted while the line has not come yet.
      const conn = await listener.accept();
      gate.resolve();
      const request = await sending.request;
      assert.equal(request !== undefined, sends);
      const bytes: number[] = [];
      const buffer = new Uint8Array(1 << 16);
      for (let n; (n = await conn.read(buffer)) !== null;) {
        bytes.push(...buffer.subarray(0, n));
        if (
          new TextDecoder().decode(new Uint8Array(bytes)).includes("\r\n\r\n")
        ) break;
      }
      const text = new TextDecoder().decode(new Uint8Array(bytes));
      if (sends) {
        assert.match(text, /^POST \/v1\/messages HTTP\/1\.1\r\n/);
        request!.discard();
      } else assert.equal(text, "");
      conn.close();
    }
  } finally {
    listener.close();
  }
});

Deno.test("sendEarly: a first line that comes after the connection's freshness goes over a new connection; the idle one is closed", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  try {
    const gate = Promise.withResolvers<void>();
    const sending = sendEarly(
      configFor("openai", url),
      [],
      peekFirstLine(
        lineAfter(
          '{"type":"user","message":{"role":"user","content":"hi"}}\n',
          gate.promise,
        ),
        1 << 20,
      ),
      undefined,
      0,
    );
    const idle = await listener.accept();
    await new Promise((resolve) => setTimeout(resolve, 5));
    gate.resolve();
    const request = await sending.request;
    const fresh = await listener.accept();
    const buffer = new Uint8Array(1 << 16);
    assert.equal(await idle.read(buffer), null);
    const n = await fresh.read(buffer);
    assert.match(
      new TextDecoder().decode(buffer.subarray(0, n!)),
      /^POST \/v1\/chat\/completions HTTP\/1\.1\r\n/,
    );
    request!.discard();
    idle.close();
    fresh.close();
  } finally {
    listener.close();
  }
});
