import assert from "node:assert/strict";
import { parseFlags } from "../../session/config.ts";
import { createProvider } from "../../session/models/mod.ts";
import { ApiKey } from "../../session/models/api_key.ts";
import { parseModelId } from "../../session/models/model_id.ts";
import { tempDir } from "../_temp.ts";

const env = (vars: Record<string, string>) => ({ get: (k: string) => vars[k] });

Deno.test("model id: PROVIDER:NAME splits at the first colon", () => {
  assert.deepEqual(parseModelId("anthropic:claude-x"), {
    provider: "anthropic",
    name: "claude-x",
  });
  assert.deepEqual(parseModelId("openai:ns/model:q4"), {
    provider: "openai",
    name: "ns/model:q4",
  });
  assert.deepEqual(parseModelId("replay:/a/b.json"), {
    provider: "replay",
    name: "/a/b.json",
  });
  for (const bad of ["anthropic:", ":claude", "google:gemini", "", "a b"]) {
    assert.deepEqual(parseModelId(bad), {
      problem:
        `--model must be a Claude model name, or PROVIDER:NAME with PROVIDER anthropic, openai or replay, not "${bad}"`,
    });
  }
});

Deno.test("model id: a bare name is an Anthropic model, as Claude Code's --model takes it; aliases stand for their model", () => {
  assert.deepEqual(parseModelId("claude-sonnet-4-5"), {
    provider: "anthropic",
    name: "claude-sonnet-4-5",
  });
  assert.deepEqual(parseModelId("opus"), {
    provider: "anthropic",
    name: "claude-opus-5-5",
  });
});

Deno.test("model id: the flag check and createProvider say the same thing", async () => {
  const dir = await Deno.realPath(await tempDir());
  const cases: [string, Record<string, string>][] = [
    ["gpt4", {}],
    ["anthropic:", {}],
    ["anthropic:claude", {}],
    ["openai:gpt", { ANTHROPIC_API_KEY: "a" }],
  ];
  for (const [model, vars] of cases) {
    const out = parseFlags(
      ["--workspace", dir, "--model", model],
      env({ HOME: dir, ...vars }),
      ["wave"],
    );
    assert.ok(out.kind === "exit", model);
    const error = await createProvider({ model }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(error instanceof Error, model);
    assert.equal(out.stderr, `wave: ${error.message} (see wave --help)\n`);
  }
});

Deno.test("model id: createProvider names the provider and the model", async () => {
  const anthropic = await createProvider({
    model: "anthropic:claude-x",
    apiKey: new ApiKey("a"),
  });
  assert.equal(anthropic.id, "anthropic:claude-x");
  const openai = await createProvider({
    model: "openai:ns/model:q4",
    baseUrl: "http://127.0.0.1:1/v1",
  });
  assert.equal(openai.id, "openai:ns/model:q4");
});
