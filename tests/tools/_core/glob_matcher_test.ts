import assert from "node:assert/strict";
import { globMatcher } from "../../../tools/_core/glob_matcher.ts";

Deno.test("globMatcher: picomatch's globs, dot files included", async () => {
  const ts = await globMatcher("**/*.ts", { dot: true });
  assert.equal(ts("a.ts"), true);
  assert.equal(ts("src/deep/b.ts"), true);
  assert.equal(ts(".hidden/c.ts"), true);
  assert.equal(ts("src/b.tsx"), false);
  const braces = await globMatcher("config.{json,yaml}", { dot: true });
  assert.deepEqual(
    ["config.json", "config.yaml", "config.toml", "sub/config.json"].map(
      braces,
    ),
    [true, true, false, false],
  );
});

Deno.test("globMatcher: basename matches a slash-free pattern against the last name", async () => {
  const named = await globMatcher("*.md", { dot: true, basename: true });
  assert.equal(named("docs/guide/readme.md"), true);
  assert.equal(named("docs/guide/readme.txt"), false);
  const plain = await globMatcher("*.md", { dot: true });
  assert.equal(plain("docs/guide/readme.md"), false);
});

Deno.test("globMatcher: without dot, wildcards skip dot files", async () => {
  const matcher = await globMatcher("*", {});
  assert.equal(matcher(".env"), false);
  assert.equal(matcher("env"), true);
});
