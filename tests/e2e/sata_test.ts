/**
 * End-to-end: the `sata` toolset (spec 001), each line of its 功能职责 and
 * 边界 named, through `call_tool` against the real CLI.
 */

import assert from "node:assert/strict";
import { startWave, type WaveProcess } from "../_wave.ts";
import { tempFile } from "../_temp.ts";

async function sata(
  fn: (wave: WaveProcess) => Promise<void>,
  args: string[] = [],
  workspace?: string,
): Promise<void> {
  const wave = await startWave({
    args: ["--toolset", "sata", ...args],
    workspace,
  });
  try {
    await fn(wave);
  } finally {
    await wave.kill();
  }
}

Deno.test("001: the sata toolset lists exactly its tools, with no git or memory tools", () =>
  sata(async (wave) => {
    const names = [
      "read",
      "write",
      "edit",
      "list",
      "grep",
      "find",
      "shell",
      "list_plans",
      "read_plan",
      "write_plan",
    ];
    assert.deepEqual(wave.messages[0].tools, names);
    const listed = await wave.request({ subtype: "list_tools" });
    const all = listed.response.tools.map((t: { name: string }) => t.name);
    assert.deepEqual(all, names);
    assert.ok(
      !all.some((n: string) => /git|memory/i.test(n)),
      "边界: 不实现 Git, 不实现记忆工具",
    );
  }));

Deno.test("001 功能职责: 按路径读文件，可指定起始行和行数", () =>
  sata(async (wave) => {
    wave.put("notes.txt", "one\ntwo\nthree\nfour\n");
    const all = await wave.callTool("read", { Path: "notes.txt" });
    assert.deepEqual(all.structured, {
      Path: "notes.txt",
      Content: "one\ntwo\nthree\nfour\n",
      Truncated: false,
    });
    const part = await wave.callTool("read", {
      Path: "notes.txt",
      Offset: 2,
      Limit: 2,
    });
    assert.deepEqual(part.structured, {
      Path: "notes.txt",
      Content: "two\nthree\n",
      Truncated: false,
    });
    const big = Array.from({ length: 5000 }, (_, i) =>
      `line ${i} ${"x".repeat(20)}`).join("\n") + "\n";
    wave.put("big.txt", big);
    const cut = await wave.callTool("read", { Path: "big.txt" });
    assert.equal(cut.structured.Truncated, true);
    assert.ok(cut.structured.Content.length <= 30_000);
    assert.ok(big.startsWith(cut.structured.Content));
    assert.match(
      cut.content,
      /\[Truncated: lines 1-\d+ of 5000 shown; read on with Offset \d+\.\]$/,
    );
  }));

Deno.test("001 功能职责: 整文件写入，或按旧文本替换改一处 (Change: Path, Diff, Line)", () =>
  sata(async (wave) => {
    const created = await wave.callTool("write", {
      Path: "src/app.py",
      Content: "a = 1\nb = 2\nc = 3\n",
    });
    assert.equal(created.structured.Path, "src/app.py");
    assert.equal(created.structured.Line, 1);
    assert.match(created.structured.Diff, /\+a = 1\n\+b = 2\n\+c = 3/);
    const edited = await wave.callTool("edit", {
      Path: "src/app.py",
      Old: "b = 2",
      New: "b = 20",
    });
    assert.deepEqual(edited.structured, {
      Path: "src/app.py",
      Diff:
        "--- src/app.py\n+++ src/app.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n",
      Line: 2,
    });
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/src/app.py`),
      "a = 1\nb = 20\nc = 3\n",
    );
    const rewritten = await wave.callTool("write", {
      Path: "src/app.py",
      Content: "a = 1\nb = 20\nc = 30\n",
    });
    assert.equal(rewritten.structured.Line, 3);
  }));

Deno.test("001 边界: 一次替换只改第一处匹配；匹配不到或匹配不唯一则失败，不静默改错", () =>
  sata(async (wave) => {
    wave.put("dup.txt", "x\nx\n");
    const dup = await wave.callTool("edit", {
      Path: "dup.txt",
      Old: "x",
      New: "y",
    });
    assert.equal(dup.is_error, true);
    assert.match(dup.content, /^Found 2 matches of old_string in dup\.txt/);
    const none = await wave.callTool("edit", {
      Path: "dup.txt",
      Old: "zzz",
      New: "y",
    });
    assert.equal(none.is_error, true);
    assert.match(
      none.content,
      /^String to replace not found in dup\.txt\.\nString: zzz/,
    );
    assert.equal(Deno.readTextFileSync(`${wave.workspace}/dup.txt`), "x\nx\n");
  }));

Deno.test("001 功能职责: 列目录、按内容搜索、按文件名查找", () =>
  sata(async (wave) => {
    wave.put("src/main.go", "package main\nfunc main() { run() }\n");
    wave.put("src/util/run.go", "package util\nfunc run() {}\n");
    wave.put("README.md", "# readme\n");
    const listed = await wave.callTool("list", {});
    assert.deepEqual(listed.structured.Entries, [
      { Path: "src", IsDir: true },
      { Path: "README.md", IsDir: false },
    ]);
    const sub = await wave.callTool("list", { Path: "src" });
    assert.deepEqual(sub.structured.Entries, [
      { Path: "src/util", IsDir: true },
      { Path: "src/main.go", IsDir: false },
    ]);
    const grep = await wave.callTool("grep", { Pattern: "run\\(\\)" });
    assert.deepEqual(grep.structured.Matches, [
      { Path: "src/main.go", Line: 2, Text: "func main() { run() }" },
      { Path: "src/util/run.go", Line: 2, Text: "func run() {}" },
    ]);
    const scoped = await wave.callTool("grep", {
      Pattern: "run",
      Path: "src/util",
    });
    assert.deepEqual(
      scoped.structured.Matches.map((m: { Path: string }) => m.Path),
      ["src/util/run.go"],
    );
    const byName = await wave.callTool("find", { Name: "*.go" });
    assert.deepEqual(byName.structured.Entries, [
      { Path: "src/main.go", IsDir: false },
      { Path: "src/util/run.go", IsDir: false },
    ]);
    const exact = await wave.callTool("find", { Name: "util" });
    assert.deepEqual(exact.structured.Entries, [{
      Path: "src/util",
      IsDir: true,
    }]);
    const nothing = await wave.callTool("find", { Name: "*.rs" });
    assert.deepEqual(nothing.structured.Entries, []);
  }));

Deno.test("001 功能职责: 在工作区里跑 bash 或 powershell，可取消", () =>
  sata(async (wave) => {
    const ok = await wave.callTool("shell", {
      Program: "bash",
      Script: "echo hello from $(basename $PWD)",
    });
    assert.equal(
      ok.structured.Output,
      `hello from ${wave.workspace.split("/").pop()}\n`,
    );
    assert.equal(ok.structured.ExitCode, 0);
    assert.equal(ok.structured.Truncated, false);
    assert.equal(ok.structured.FullPath, "");
    await wave.sendCall("slow", "shell", { Script: "echo started; sleep 60" });
    await wave.waitFor(
      (m) => m.subtype === "tool_progress" && m.text.includes("started"),
      { what: "the command's start (tool_progress 'started')" },
    );
    await wave.request({ subtype: "interrupt" });
    const cancelled = await wave.waitFor((m) =>
      m.response?.request_id === "slow"
    );
    assert.equal(cancelled.response.response.structured.Cancelled, true);
  }));

Deno.test("001 功能职责: 超长输出截断，必要时落到旁路文件，不撑爆上下文", () =>
  sata(async (wave) => {
    const r = await wave.callTool("shell", { Script: "seq 1 100000" });
    assert.equal(r.structured.Truncated, true);
    assert.ok(r.structured.Output.length < 31_000);
    assert.ok(r.structured.FullPath.endsWith(".log"));
    const full = Deno.readTextFileSync(r.structured.FullPath);
    assert.equal(full.split("\n").length, 100_001);
    assert.ok(r.content.includes(r.structured.FullPath));
  }));

Deno.test("001 功能职责: 列出、读取、覆盖工作区 .cursor/ 下的 markdown 计划", () =>
  sata(async (wave) => {
    const empty = await wave.callTool("list_plans", {});
    assert.deepEqual(empty.structured, { Plans: [] });
    const saved = await wave.callTool("write_plan", {
      Name: "migration",
      Content: "# Plan\n1. step\n",
    });
    assert.deepEqual(saved.structured, {
      Name: "migration.md",
      Content: "# Plan\n1. step\n",
    });
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/.cursor/migration.md`),
      "# Plan\n1. step\n",
    );
    await wave.callTool("write_plan", {
      Name: "notes/later.md",
      Content: "later",
    });
    await wave.callTool("write_plan", {
      Name: "migration.md",
      Content: "# Plan v2\n",
    });
    const listed = await wave.callTool("list_plans", {});
    assert.deepEqual(listed.structured, {
      Plans: ["migration.md", "notes/later.md"],
    });
    const read = await wave.callTool("read_plan", { Name: "migration" });
    assert.deepEqual(read.structured, {
      Name: "migration.md",
      Content: "# Plan v2\n",
    });
    const missing = await wave.callTool("read_plan", { Name: "nope" });
    assert.equal(missing.is_error, true);
    assert.match(missing.content, /There is no plan named nope\.md/);
  }));

Deno.test("001 边界: 计划工具只动 .cursor/ 下的 markdown", () =>
  sata(async (wave) => {
    const cases: [string, RegExp][] = [
      ["../escape", /may not contain ".."/],
      ["/etc/passwd", /is absolute/],
      ["a/../../b", /may not contain ".."/],
      ["..\\win", /may not contain ".."/],
      ["script.sh", /Plans are markdown: "script\.sh" has the suffix \.sh/],
      ["notes.txt", /has the suffix \.txt/],
    ];
    for (const [name, pattern] of cases) {
      const r = await wave.callTool("write_plan", { Name: name, Content: "x" });
      assert.equal(r.is_error, true, name);
      assert.match(r.content, pattern, name);
    }
    const names = [...Deno.readDirSync(wave.workspace)].map((e) => e.name);
    assert.deepEqual(names, [], "nothing was written anywhere");
  }));

Deno.test("001 功能职责: 路径先落到本会话工作目录；目录外必须等人批过才能执行", () =>
  sata(async (wave) => {
    const outside = await tempFile();
    await Deno.writeTextFile(outside, "outside text\n");
    const pending = wave.callTool("read", { Path: outside });
    const ask = await wave.waitFor((m) => m.type === "control_request");
    assert.equal(ask.request.subtype, "can_use_tool");
    assert.equal(ask.request.tool_name, "read");
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask.request_id,
        response: { behavior: "allow" },
      },
    });
    const r = await pending;
    assert.equal(r.structured.Content, "outside text\n");
    // Not approved: nothing runs.
    const pendingWrite = wave.callTool("write", {
      Path: outside,
      Content: "pwned",
    });
    const ask2 = await wave.waitFor((m) =>
      m.type === "control_request" && m.request_id !== ask.request_id
    );
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask2.request_id,
        response: { behavior: "deny", message: "no" },
      },
    });
    const denied = await pendingWrite;
    assert.equal(denied.is_error, true);
    assert.equal(Deno.readTextFileSync(outside), "outside text\n");
  }, ["--approvals", "parent"]));

Deno.test("001 边界: 不决定 ask / plan / agent 本轮能跑哪些名字；未绑定的调用由三模式拒绝", () =>
  sata(async (wave) => {
    const expectRefused = async (
      tool: string,
      input: Record<string, unknown>,
      mode: string,
    ) => {
      const r = await wave.request({
        subtype: "call_tool",
        tool_name: tool,
        input,
      });
      assert.equal(r.subtype, "error", `${tool} in ${mode}`);
      assert.equal(
        r.error,
        `${tool} is not available in ${mode} mode; it needs agent mode or wider (set_permission_mode)`,
      );
    };
    for (const mode of ["ask", "plan"]) {
      await wave.request({ subtype: "set_permission_mode", mode });
      await expectRefused("write", { Path: "a", Content: "b" }, mode);
      await expectRefused("edit", { Path: "a", Old: "b", New: "c" }, mode);
      await expectRefused("shell", { Script: "true" }, mode);
    }
    // plan allows write_plan; ask does not.
    const inPlan = await wave.callTool("write_plan", {
      Name: "p",
      Content: "x",
    });
    assert.equal(inPlan.is_error, false);
    await wave.request({ subtype: "set_permission_mode", mode: "ask" });
    const inAsk = await wave.request({
      subtype: "call_tool",
      tool_name: "write_plan",
      input: { Name: "p", Content: "x" },
    });
    assert.equal(
      inAsk.error,
      "write_plan is not available in ask mode; it needs plan mode or wider (set_permission_mode)",
    );
    const reading = await wave.callTool("read_plan", { Name: "p" });
    assert.equal(reading.structured.Content, "x");
  }));

Deno.test("001 边界: 工具失败写成结果喂回模型，不打死这一次执行", () =>
  sata(async (wave) => {
    const failures = [
      await wave.callTool("read", { Path: "missing.txt" }),
      await wave.callTool("shell", { Script: "exit 7" }),
      await wave.callTool("grep", { Pattern: "(" }),
      await wave.callTool("list", { Path: "nope" }),
    ];
    for (const f of failures) assert.equal(f.is_error, true);
    assert.equal(failures[1].structured.ExitCode, 7);
    const still = await wave.callTool("shell", { Script: "echo alive" });
    assert.equal(still.structured.Output, "alive\n");
  }));

Deno.test("001 边界: 同一会话里改文件的调用排队，避免两处同时写同一份", () =>
  sata(async (wave) => {
    wave.put("counter.txt", "0\n");
    // Ten edits sent at once, each replacing the value it expects: only a queue makes them all succeed.
    const edits = Array.from(
      { length: 10 },
      (_, i) =>
        wave.callTool("edit", {
          Path: "counter.txt",
          Old: `${i}\n`,
          New: `${i + 1}\n`,
        }),
    );
    const results = await Promise.all(edits);
    for (const r of results) assert.equal(r.is_error, false, r.content);
    assert.equal(
      Deno.readTextFileSync(`${wave.workspace}/counter.txt`),
      "10\n",
    );
  }));

Deno.test("001 边界: 不冻结会话工作目录；只消费会话上已有的目录", () =>
  sata(async (wave) => {
    const r = await wave.callTool("shell", {
      Script: "mkdir sub && cd sub && pwd",
    });
    assert.equal(r.structured.Output.trim(), `${wave.workspace}/sub`);
    const again = await wave.callTool("shell", { Script: "pwd" });
    assert.equal(
      again.structured.Output.trim(),
      wave.workspace,
      "each command starts in the session's workspace",
    );
  }));
