import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { pathOfFileUrl } from "../../session/_paths.ts";

Deno.test("pathOfFileUrl gives what node:url's fileURLToPath gives on Linux", () => {
  for (
    const url of [
      "file:///work/main/",
      "file:///work/main/cli.ts",
      "file:///tmp/a%20b/%C3%BC.ts",
      "file:///tmp/%25percent",
    ]
  ) assert.equal(pathOfFileUrl(url), fileURLToPath(url));
  assert.throws(() => pathOfFileUrl("https://example.com/x"), TypeError);
});
