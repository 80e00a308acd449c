import assert from "node:assert/strict";
import { toModelError } from "../../session/models/_sdk_provider.ts";

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
