import assert from "node:assert/strict";
import { ToolPermissions } from "../../session/permissions.ts";
import { SessionMode } from "../../session/session_mode.ts";
import type { PermissionMode } from "../../session/permission_modes.ts";
import type { ResolvedPath } from "../../tools/kernel/workspace.ts";
import { tempDirSync } from "../_temp.ts";

const BASH = {
  name: "Bash",
  mode: "agent" as const,
  scopes: { run: ["bash"] },
};
const WRITE = {
  name: "Write",
  mode: "agent" as const,
  scopes: { write: true as const },
};
const GREP = {
  name: "Grep",
  mode: "ask" as const,
  scopes: { read: true, run: ["rg"] },
};
const TASK = {
  name: "TaskCreate",
  mode: "plan" as const,
  scopes: { write: "state" as const },
};

function permissions(
  mode: PermissionMode | null,
  allow: string[] = [],
  deny: string[] = [],
) {
  return new ToolPermissions({
    mode: new SessionMode("agent", mode),
    workspace: "/w",
    allow,
    deny,
    only: null,
    roots: [],
  });
}

function path(real: string): ResolvedPath {
  return {
    abs: real,
    real,
    outside: !real.startsWith("/w/"),
    sensitive: null,
  } as unknown as ResolvedPath;
}

Deno.test("permissions: each Claude Code mode asks before what its row says", () => {
  const calls = [
    { def: BASH, input: { command: "ls" }, paths: [] },
    { def: WRITE, input: {}, paths: [path("/w/a.txt")] },
    { def: GREP, input: {}, paths: [] },
    { def: TASK, input: {}, paths: [] },
  ];
  const verdicts = (mode: PermissionMode | null) =>
    calls.map((c) => permissions(mode).check(c).behavior);
  assert.deepEqual(verdicts("default"), ["ask", "ask", "allow", "allow"]);
  assert.deepEqual(verdicts("auto"), ["ask", "ask", "allow", "allow"]);
  assert.deepEqual(verdicts("acceptEdits"), ["ask", "allow", "allow", "allow"]);
  assert.deepEqual(verdicts("bypassPermissions"), [
    "allow",
    "allow",
    "allow",
    "allow",
  ]);
  assert.deepEqual(verdicts("dontAsk"), ["deny", "deny", "allow", "allow"]);
  // wave's own modes ask about nothing inside the workspace.
  assert.deepEqual(verdicts(null), ["allow", "allow", "allow", "allow"]);
});

Deno.test("permissions: allow rules skip the question, deny rules refuse, and the ask names the command with a rule to suggest", () => {
  const p = permissions("default", ["Bash(git:*)", "Write(docs/**)"], [
    "Bash(rm:*)",
  ]);
  assert.equal(
    p.check({ def: BASH, input: { command: "git status" }, paths: [] })
      .behavior,
    "allow",
  );
  assert.equal(
    p.check({ def: WRITE, input: {}, paths: [path("/w/docs/x.md")] }).behavior,
    "allow",
  );
  assert.equal(
    p.check({ def: WRITE, input: {}, paths: [path("/w/src/x.ts")] }).behavior,
    "ask",
  );
  assert.deepEqual(
    p.check({ def: BASH, input: { command: "rm -rf ." }, paths: [] }),
    {
      behavior: "deny",
      message:
        "Bash was refused: the rule Bash(rm:*) disallows it (--disallowedTools).",
    },
  );
  assert.deepEqual(
    p.check({ def: BASH, input: { command: "npm test" }, paths: [] }),
    {
      behavior: "ask",
      reason: "Bash runs a command: npm test",
      suggestions: [{
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "npm:*" }],
        behavior: "allow",
        destination: "session",
      }],
    },
  );
});

Deno.test("permissions: a parent's updates add and remove rules, switch the mode and add directories", () => {
  const p = permissions("default");
  const npm = { def: BASH, input: { command: "npm test" }, paths: [] };
  assert.deepEqual(
    p.apply([{
      type: "addRules",
      rules: [{ toolName: "Bash", ruleContent: "npm:*" }],
      behavior: "allow",
      destination: "session",
    }]),
    [],
  );
  assert.equal(p.check(npm).behavior, "allow");
  p.apply([{
    type: "removeRules",
    rules: [{ toolName: "Bash", ruleContent: "npm:*" }],
    behavior: "allow",
    destination: "session",
  }]);
  assert.equal(p.check(npm).behavior, "ask");
  p.apply([{
    type: "addRules",
    rules: [{ toolName: "Bash" }],
    behavior: "deny",
    destination: "session",
  }]);
  assert.equal(p.check(npm).behavior, "deny");
  assert.equal(p.offers("Bash"), false);
  const q = permissions("default");
  q.apply([{ type: "setMode", mode: "acceptEdits", destination: "session" }]);
  assert.equal(
    q.check({ def: WRITE, input: {}, paths: [path("/w/a")] }).behavior,
    "allow",
  );
  assert.deepEqual(
    q.apply([{ type: "setMode", mode: "yolo", destination: "session" }]),
    ['unknown permission mode "yolo"'],
  );
  const dir = Deno.realPathSync(tempDirSync());
  q.apply([{
    type: "addDirectories",
    directories: [dir],
    destination: "session",
  }]);
  assert.deepEqual(q.roots, [dir]);
  q.apply([{
    type: "removeDirectories",
    directories: [dir],
    destination: "session",
  }]);
  assert.deepEqual(q.roots, []);
  Deno.removeSync(dir);
});

Deno.test("permissions: withMode gives a session of its own the rules and roots in force, in its own mode; what changes in one leaves the other as it was", () => {
  const p = new ToolPermissions({
    mode: new SessionMode("agent", "default"),
    workspace: "/w",
    allow: ["Bash(git:*)"],
    deny: ["Read(*.env)"],
    only: null,
    roots: [],
    waveHome: "/no/such/home",
  });
  const READ = { name: "Read", mode: "ask" as const, scopes: { read: true } };
  const history = {
    def: READ,
    input: {},
    paths: [path("/no/such/home/history/ab12/blobs/f00d")],
  };
  const notes = { def: READ, input: {}, paths: [path("/w/notes.md")] };
  const dir = Deno.realPathSync(tempDirSync());
  p.apply([{
    type: "addDirectories",
    directories: [dir],
    destination: "session",
  }]);
  const mode = new SessionMode("agent", "acceptEdits");
  const q = p.withMode(mode);
  const git = { def: BASH, input: { command: "git status" }, paths: [] };
  const write = { def: WRITE, input: {}, paths: [path("/w/a.txt")] };
  const secret = { def: WRITE, input: {}, paths: [path("/w/.env")] };
  assert.equal(q.check(git).behavior, "allow");
  assert.equal(q.check(secret).behavior, "deny");
  // The file history keeps copies of what the Read rule covers.
  assert.equal(q.check(history).behavior, "deny");
  assert.deepEqual(q.roots, [dir]);
  // Its mode is its own: acceptEdits there, default here.
  assert.equal(q.check(write).behavior, "allow");
  assert.equal(p.check(write).behavior, "ask");
  q.apply([
    {
      type: "addRules",
      rules: [{ toolName: "Bash" }],
      behavior: "deny",
      destination: "session",
    },
    {
      type: "addRules",
      rules: [{ toolName: "Read", ruleContent: "notes.md" }],
      behavior: "ask",
      destination: "session",
    },
    { type: "setMode", mode: "dontAsk", destination: "session" },
    {
      type: "removeDirectories",
      directories: [dir],
      destination: "session",
    },
  ]);
  assert.equal(q.check(git).behavior, "deny");
  // Asked by its rule, so refused where nothing is asked.
  assert.equal(q.check(notes).behavior, "deny");
  assert.equal(p.check(notes).behavior, "allow");
  assert.equal(mode.permissionName, "dontAsk");
  assert.deepEqual(q.roots, []);
  assert.equal(p.check(git).behavior, "allow");
  assert.equal(p.check(write).behavior, "ask");
  assert.deepEqual(p.roots, [dir]);
});

Deno.test("permissions: an Edit rule covers Write, a Read rule Grep; a hook's allow spares the question but not a deny or an ask rule", () => {
  const perms = permissions("default", [], ["Edit(locked/**)", "Read(vault/)"]);
  assert.deepEqual(
    perms.check({ def: WRITE, input: {}, paths: [path("/w/locked/new")] }),
    {
      behavior: "deny",
      message:
        "Write was refused: the rule Edit(locked/**) disallows it (--disallowedTools).",
    },
  );
  assert.equal(
    perms.check({ def: GREP, input: {}, paths: [path("/w/vault")] }).behavior,
    "deny",
  );
  assert.equal(
    perms.check({ def: TASK, input: {}, paths: [] }, true).behavior,
    "allow",
  );
  // An MCP server's tool (it may write, and names no path) is no Edit.
  const mcp = {
    def: {
      name: "mcp__db__drop",
      mode: "agent" as const,
      scopes: { write: true as const },
    },
    input: {},
    paths: [],
  };
  assert.equal(permissions("default", ["Edit"]).check(mcp).behavior, "ask");
  assert.equal(
    permissions("bypassPermissions", [], ["Edit"]).check(mcp).behavior,
    "allow",
  );
  const bash = { def: BASH, input: { command: "ls" }, paths: [] };
  assert.equal(perms.check(bash).behavior, "ask");
  assert.equal(perms.check(bash, true).behavior, "allow");
  perms.apply([{
    type: "addRules",
    rules: [{ toolName: "Bash", ruleContent: "ls" }],
    behavior: "ask",
    destination: "session",
  }]);
  assert.equal(perms.check(bash, true).behavior, "ask");
  assert.equal(
    permissions("bypassPermissions", [], ["Bash(ls)"]).check(bash, true)
      .behavior,
    "deny",
  );
});

Deno.test("permissions: a command a deny or an ask rule cannot rule out is asked about whatever allow rule would let it go, and refused where nothing is asked", () => {
  const call = (command: string) => ({
    def: BASH,
    input: { command },
    paths: [],
  });
  const ask = permissions("default", ["Bash"], ["Bash(rm:*)"]);
  assert.deepEqual(ask.check(call("$RM -rf x")), {
    behavior: "ask",
    reason:
      "Bash runs a command the rule Bash(rm:*) may cover (the program it runs is known only when it runs): $RM -rf x",
    suggestions: [],
  });
  assert.equal(ask.check(call("$RM -rf x"), true).behavior, "ask");
  assert.equal(ask.check(call("echo $HOME")).behavior, "allow");
  for (const mode of ["dontAsk", "bypassPermissions"] as const) {
    assert.deepEqual(
      permissions(mode, [], ["Bash(rm:*)"]).check(call("$RM x")),
      {
        behavior: "deny",
        message:
          "Bash was refused: its command may run what the rule Bash(rm:*) covers, which cannot be known without running it (the program it runs is known only when it runs).",
      },
    );
  }
  // Without a command rule, such a line is any other command.
  assert.equal(
    permissions("bypassPermissions", [], ["Bash"]).check(call("$RM x"))
      .behavior,
    "deny",
  );
  assert.equal(
    permissions("bypassPermissions", [], ["Read(secret/**)"]).check(
      call("$RM x"),
    ).behavior,
    "allow",
  );
});

Deno.test("permissions: a Bash rule binds every dialect's command tool: devflow run_command's command, sata shell's bash Script; a PowerShell Script under a command rule is not read, so it is refused where nothing is asked", () => {
  const RUN_COMMAND = {
    name: "run_command",
    mode: "agent" as const,
    scopes: { read: true, write: "state" as const, run: ["bash", "pwsh"] },
  };
  const SHELL = { ...RUN_COMMAND, name: "shell" };
  const bypass = permissions("bypassPermissions", [], ["Bash(rm:*)"]);
  assert.deepEqual(
    bypass.check({
      def: RUN_COMMAND,
      input: { command: "echo a && 'rm' -f x" },
      paths: [],
    }),
    {
      behavior: "deny",
      message:
        "run_command was refused: the rule Bash(rm:*) disallows it (--disallowedTools).",
    },
  );
  assert.deepEqual(
    bypass.check({
      def: SHELL,
      input: { Program: "bash", Script: "rm -f x" },
      paths: [],
    }),
    {
      behavior: "deny",
      message:
        "shell was refused: the rule Bash(rm:*) disallows it (--disallowedTools).",
    },
  );
  assert.deepEqual(
    bypass.check({
      def: SHELL,
      input: { Program: "powershell", Script: "Remove-Item x" },
      paths: [],
    }),
    {
      behavior: "deny",
      message:
        "shell was refused: its command may run what the rule Bash(rm:*) covers, which cannot be known without running it (a PowerShell script, which a command rule does not read).",
    },
  );
  // What the rule does not cover still runs, and an allow rule allows it.
  assert.equal(
    bypass.check({
      def: RUN_COMMAND,
      input: { command: "ls" },
      paths: [],
    }).behavior,
    "allow",
  );
  assert.equal(
    permissions("default", ["Bash(git:*)"]).check({
      def: SHELL,
      input: { Script: "git status" },
      paths: [],
    }).behavior,
    "allow",
  );
});

Deno.test("permissions: a Read deny or ask rule with a path binds the writers of what it covers, but an allow rule and a bare Read rule do not; while one is set, wave's file history is denied too", () => {
  const perms = new ToolPermissions({
    mode: new SessionMode("agent", "bypassPermissions"),
    workspace: "/w",
    allow: ["Read(docs/**)"],
    deny: ["Read(*.env)"],
    only: null,
    roots: [],
    waveHome: "/no/such/home",
  });
  const write = (real: string) => ({
    def: WRITE,
    input: {},
    paths: [path(real)],
  });
  assert.deepEqual(perms.check(write("/w/app/prod.env")), {
    behavior: "deny",
    message:
      "Write was refused: the rule Read(*.env) disallows it (--disallowedTools).",
  });
  assert.equal(perms.check(write("/w/app/notes.md")).behavior, "allow");
  // Copies of covered files, whatever their names.
  const READ = { name: "Read", mode: "ask" as const, scopes: { read: true } };
  assert.deepEqual(
    perms.check({
      def: READ,
      input: {},
      paths: [path("/no/such/home/history/ab12/blobs/f00d")],
    }),
    {
      behavior: "deny",
      message:
        "Read was refused: wave's file history (/no/such/home/history) keeps copies of files, so no tool reads it while a Read deny rule is set (--disallowedTools).",
    },
  );
  assert.deepEqual(perms.readDenials(), ["*.env", "//no/such/home/history/**"]);
  // An allow rule for reads does not let a writer go without its question.
  const asking = new ToolPermissions({
    mode: new SessionMode("agent", "default"),
    workspace: "/w",
    allow: ["Read(docs/**)"],
    deny: ["Read"],
    only: null,
    roots: [],
    waveHome: "/no/such/home",
  });
  assert.equal(asking.check(write("/w/docs/a.md")).behavior, "ask");
  // A bare Read rule takes the readers away, not the writers; it names no
  // path, so the history stays readable.
  assert.deepEqual(asking.readDenials(), []);
  assert.equal(
    asking.check({ def: READ, input: {}, paths: [path("/w/a")] }).behavior,
    "deny",
  );
});
