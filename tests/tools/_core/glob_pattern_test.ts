/** Glob patterns: all-wildcard ones, and absolute ones made relative. */
import assert from "node:assert/strict";
import {
  hasLiteral,
  relativePattern,
} from "../../../tools/_core/glob_pattern.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";

Deno.test("004 find_files: a glob with no literal character is told apart (**/*, *, ?*)", () => {
  for (const p of ["**/*", "*", "?*", "**", "*/*", "[a-z]*", "{*,?}", "!*"]) {
    assert.equal(hasLiteral(p), false, p);
  }
  for (
    const p of ["*.ts", "**/*.ts", "src/**", "a", "*.*", "\\*", "[*", "{a,b}"]
  ) {
    assert.equal(hasLiteral(p), true, p);
  }
});

Deno.test("relativePattern: an absolute pattern inside the search path becomes relative; outside, an error naming the field", () => {
  const root = {
    real: "/ws",
    abs: "/ws",
    shown: ".",
    place: "the workspace",
  };
  assert.equal(relativePattern("src/*.ts", root, "dir"), "src/*.ts");
  assert.equal(relativePattern("/ws/src/*.ts", root, "dir"), "src/*.ts");
  assert.throws(
    () => relativePattern("/elsewhere/*.ts", root, "dir"),
    (e: Error) =>
      e instanceof ToolError &&
      e.message ===
        "The pattern /elsewhere/*.ts is an absolute path outside the search path (the workspace). Set dir to the directory to search, and give a pattern relative to it.",
  );
});
