import assert from "node:assert/strict";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parentDir, pathOfFileUrl } from "../../session/_paths.ts";

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

Deno.test("parentDir gives what node:path's dirname gives for absolute paths", () => {
  for (const path of ["/", "/a", "/a/b", "/a/b/", "/a//b", "/a b/c.ts"]) {
    assert.equal(parentDir(path), dirname(path), path);
  }
});
