import assert from "node:assert/strict";
import { toModelError } from "../../session/models/_sdk_provider.ts";
import { AnthropicProvider } from "../../session/models/anthropic.ts";
import { OpenAIProvider } from "../../session/models/openai.ts";
import { MockModel } from "../_mock_model.ts";

Deno.test("SDK errors: an HTTP answer is final and says what to check", () => {
  const unauthorized = toModelError(
    { status: 401, error: { error: { message: "invalid x-api-key" } } },
    "anthropic",
  );
  assert.equal(
    unauthorized.message,
    "the model API answered 401: invalid x-api-key. Check the API key (ANTHROPIC_API_KEY) and --base-url.",
  );
  assert.equal(unauthorized.retryable, false);
  assert.equal(
    toModelError({ status: 403, message: "no" }, "openai").message,
    "the model API answered 403: no. Check the API key (OPENAI_API_KEY) and --base-url.",
  );
  assert.equal(
    toModelError({ status: 404, message: "gone" }, "openai").message,
    "the model API answered 404: gone. Check the model name (--model) and --base-url.",
  );
  assert.equal(
    toModelError({ status: 529, message: "overloaded" }, "anthropic").message,
    "the model API answered 529: overloaded. The provider is busy or failing; it was retried. Try again later.",
  );
});

Deno.test("SDK errors: a stream cut off may be retried", () => {
  const cut = toModelError(new Error("socket hang up"), "openai");
  assert.equal(
    cut.message,
    "the model's reply stream broke off: socket hang up",
  );
  assert.equal(cut.retryable, true);
});

Deno.test("providers stream the reply's text as it comes: the pieces add up to the reply (Anthropic and OpenAI, against the mock server)", async () => {
  const mock = new MockModel();
  try {
    const text = "Streaming, piece by piece, to the front.";
    for (
      const provider of [
        new AnthropicProvider({
          model: "m",
          apiKey: "k",
          baseUrl: mock.url,
          maxRetries: 0,
        }),
        new OpenAIProvider({
          model: "m",
          apiKey: "k",
          baseUrl: `${mock.url}/v1`,
          maxRetries: 0,
        }),
      ]
    ) {
      mock.script({ reply: [{ type: "text", text }] });
      const pieces: string[] = [];
      const reply = await provider.complete(
        {
          system: "s",
          messages: [{ role: "user", content: "hi" }],
          tools: [],
          maxTokens: 100,
        },
        new AbortController().signal,
        (delta) => pieces.push(delta),
      );
      assert.deepEqual(reply.content, [{ type: "text", text }]);
      assert.equal(pieces.join(""), text);
      // The mock sends the text in pieces of 7 characters.
      assert.ok(pieces.length >= 5, `${pieces.length} pieces`);
    }
  } finally {
    await mock.close();
  }
});
