import assert from "node:assert/strict";
import { parseFlags } from "../../session/config.ts";
import { landlockAbi } from "../../tools/kernel/landlock.ts";
import { tempDir, tempFile } from "../_temp.ts";

const env = (vars: Record<string, string>) => ({ get: (k: string) => vars[k] });

Deno.test("defaults", async () => {
  const dir = await Deno.realPath(await tempDir());
  const out = parseFlags(["--workspace", dir], env({ HOME: "/home/u" }), [
    "wave",
  ]);
  assert.equal(out.kind, "run");
  if (out.kind !== "run") return;
  const { sessionId, ...rest } = out.config;
  assert.match(sessionId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(rest, {
    front: "stream-json",
    listen: null,
    listenIdleMs: 1800000,
    workspace: dir,
    toolset: "wave",
    mode: "agent",
    approvals: "deny",
    approvalTimeoutMs: 300_000,
    maxLineBytes: 16 * 1024 * 1024,
    waveHome: "/home/u/.wave",
    toolModules: [],
    maxReadTokens: 25_000,
    maxDenyWalk: 200_000,
    envAllow: [],
    shellSandbox: "auto",
    allowNet: false,
    model: null,
    baseUrl: undefined,
    apiKey: undefined,
    sttModel: null,
    sttBaseUrl: undefined,
    sttApiKey: undefined,
    maxTurns: 50,
    resume: false,
    reportFile: null,
    taskListId: sessionId,
    taskListShared: false,
    toolDeadlineMs: 60_000,
    fileBoundary: landlockAbi() > 0 ? "landlock" : "paths",
    outputDir: `${dir}/output`,
    openWith: "none",
    historyLimits: { maxAgeMs: 30 * 24 * 3600 * 1000, maxBytes: 1 << 30 },
    claudeCompat: false,
    permissionMode: null,
    toolRules: { allow: [], deny: [] },
    tools: null,
    systemPrompt: { replace: null, append: null },
    includePartialMessages: false,
    fallbackModel: null,
    addDirs: [],
    maxThinkingTokens: null,
    persistSession: true,
    debugFile: null,
    jsonSchema: null,
    maxBudgetUsd: null,
    forkFrom: null,
    warnings: [],
    mcpServers: {},
    mcpTimeouts: { connectMs: 30_000, toolMs: 600_000 },
  });
});

Deno.test("--report FILE is taken relative to the caller's directory", async () => {
  const dir = await Deno.realPath(await tempDir());
  const out = parseFlags(
    ["--workspace", dir, "--report", "out/r.html"],
    env({ HOME: "/home/u", WAVE_CALLER_CWD: "/srv/ci" }),
    ["wave"],
  );
  assert.equal(
    out.kind === "run" && out.config.reportFile,
    "/srv/ci/out/r.html",
  );
});

Deno.test("flags with = and with a separate value; WAVE_HOME wins over HOME", async () => {
  const dir = await Deno.realPath(await tempDir());
  const out = parseFlags(
    [
      `--workspace=${dir}`,
      "--mode",
      "plan",
      "--approvals=parent",
      "--approval-timeout",
      "1.5s",
      "--session-id",
      "abc.1",
    ],
    env({ HOME: "/home/u", WAVE_HOME: "/state" }),
    ["wave"],
  );
  assert.ok(out.kind === "run");
  assert.equal(out.config.mode, "plan");
  assert.equal(out.config.approvals, "parent");
  assert.equal(out.config.approvalTimeoutMs, 1500);
  assert.equal(out.config.sessionId, "abc.1");
  assert.equal(out.config.waveHome, "/state");
  // The task list is the session's own unless --task-list names one,
  // even one named as the session is.
  assert.equal(out.config.taskListId, "abc.1");
  assert.equal(out.config.taskListShared, false);
  const named = parseFlags(
    [`--workspace=${dir}`, "--session-id=abc.1", "--task-list=abc.1"],
    env({ HOME: "/home/u" }),
    ["wave"],
  );
  assert.ok(named.kind === "run");
  assert.equal(named.config.taskListId, "abc.1");
  assert.equal(named.config.taskListShared, true);
});

Deno.test("a workspace that is a file is refused", async () => {
  const file = await tempFile();
  const out = parseFlags(["--workspace", file], env({ HOME: "/h" }), ["wave"]);
  assert.equal(out.kind, "exit");
  assert.ok(
    out.kind === "exit" && out.code === 2 &&
      /not a directory/.test(out.stderr!),
  );
});

Deno.test("the caller's directory: a relative --workspace, the default workspace, a replay script and a tool module resolve against it", async () => {
  const caller = await Deno.realPath(await tempDir());
  await Deno.mkdir(`${caller}/sub`);
  await Deno.writeTextFile(`${caller}/script.json`, "{}");
  const vars = { HOME: "/home/u", WAVE_CALLER_CWD: caller };
  const given = parseFlags(
    [
      "--workspace",
      "sub/../sub/.",
      "--model",
      "replay:./script.json",
      "--tool-module",
      "tools/t.ts",
    ],
    env(vars),
    ["wave"],
  );
  assert.ok(given.kind === "run");
  assert.equal(given.config.workspace, `${caller}/sub`);
  assert.equal(given.config.model, `replay:${caller}/script.json`);
  assert.deepEqual(given.config.toolModules, [`file://${caller}/tools/t.ts`]);
  const fallback = parseFlags([], env(vars), ["wave"]);
  assert.ok(fallback.kind === "run");
  assert.equal(fallback.config.workspace, caller);
});

Deno.test("INIT_CWD alone is not the caller's directory: npm sets it too, and parents pass it on", async () => {
  const other = await Deno.realPath(await tempDir());
  const out = parseFlags([], env({ HOME: "/home/u", INIT_CWD: other }), [
    "wave",
  ]);
  assert.ok(out.kind === "run");
  assert.equal(out.config.workspace, await Deno.realPath(Deno.cwd()));
});

Deno.test("a missing workspace is named as resolved against the caller's directory", () => {
  const out = parseFlags(
    ["--workspace", "no/such"],
    env({ HOME: "/h", WAVE_CALLER_CWD: "/nowhere/x" }),
    ["wave"],
  );
  assert.deepEqual(out, {
    kind: "exit",
    code: 2,
    stderr:
      "wave: workspace does not exist: /nowhere/x/no/such (see wave --help)\n",
  });
});

Deno.test("--stt-model: openai:NAME only; its key from OPENAI_API_KEY, --model openai:'s own for the same server, or none for --stt-base-url", async () => {
  const dir = await Deno.realPath(await tempDir());
  const parse = (args: string[], vars: Record<string, string> = {}) =>
    parseFlags(["--workspace", dir, ...args], env({ HOME: "/h", ...vars }), [
      "wave",
    ]);
  const exit = (message: string) => ({
    kind: "exit",
    code: 2,
    stderr: `wave: ${message} (see wave --help)\n`,
  });
  assert.deepEqual(
    parse(["--stt-model", "anthropic:x"]),
    exit(
      '--stt-model must be openai:NAME (the OpenAI audio transcription API, or a compatible server with --stt-base-url), not "anthropic:x"',
    ),
  );
  assert.deepEqual(
    parse(["--stt-model", "openai:whisper-1"]),
    exit(
      "--stt-model openai:… needs OPENAI_API_KEY in the environment, or its key in a file (OPENAI_API_KEY_FILE), or --stt-base-url for a local server",
    ),
  );
  assert.deepEqual(
    parse(["--stt-base-url", "http://127.0.0.1:1/v1"]),
    exit("--stt-base-url needs --stt-model openai:NAME"),
  );
  assert.deepEqual(
    parse(["--stt-model", "openai:w", "--stt-base-url", "ftp://x"]),
    exit('--stt-base-url must be an http(s) URL, not "ftp://x"'),
  );
  const key = (args: string[], vars: Record<string, string> = {}) => {
    const out = parse(args, vars);
    assert.ok(out.kind === "run", JSON.stringify(out));
    return out.config.sttApiKey?.reveal();
  };
  const local = ["--stt-model", "openai:w", "--stt-base-url", "http://h/v1"];
  assert.equal(key(local), "none");
  assert.equal(key(local, { OPENAI_API_KEY: "env" }), "env");
  assert.equal(
    key(["--stt-model", "openai:w"], { OPENAI_API_KEY: "env" }),
    "env",
  );
  const keyFile = `${dir}/key`;
  await Deno.writeTextFile(keyFile, "from-file\n");
  const chat = ["--model", "openai:gpt", "--api-key-file", keyFile];
  // The same server as the chat model: its key.
  assert.equal(
    key([...chat, "--stt-model", "openai:w"], { OPENAI_API_KEY: "env" }),
    "from-file",
  );
  // Another server: its own.
  assert.equal(
    key([...chat, ...local], { OPENAI_API_KEY: "env" }),
    "env",
  );
  const out = parse(local);
  assert.ok(out.kind === "run");
  assert.equal(out.config.sttModel, "openai:w");
  assert.equal(out.config.sttBaseUrl, "http://h/v1");
  assert.equal(String(out.config.sttApiKey), "[redacted]");
});

Deno.test("fronts: wave mcp and wave acp take the same flags, ask their parent unless --approvals says, and --listen is wave mcp's", async () => {
  const dir = await Deno.realPath(await tempDir());
  const vars = env({ HOME: "/home/u" });
  const mcp = parseFlags(["mcp", "--workspace", dir, "--mode", "ask"], vars, [
    "wave",
  ]);
  assert.ok(mcp.kind === "run");
  assert.equal(mcp.config.front, "mcp");
  assert.equal(mcp.config.mode, "ask");
  assert.equal(mcp.config.approvals, "parent");
  assert.equal(mcp.config.listen, null);
  const acp = parseFlags(
    ["acp", "--workspace", dir, "--approvals", "deny"],
    vars,
    ["wave"],
  );
  assert.ok(acp.kind === "run");
  assert.equal(acp.config.front, "acp");
  assert.equal(acp.config.approvals, "deny");
  const listening = parseFlags(
    ["mcp", "--workspace", dir, "--listen", "127.0.0.1:0"],
    vars,
    ["wave"],
  );
  assert.ok(listening.kind === "run");
  assert.deepEqual(listening.config.listen, { hostname: "127.0.0.1", port: 0 });
  const v6 = parseFlags(
    ["mcp", `--workspace=${dir}`, "--listen=[::1]:8080"],
    vars,
    ["wave"],
  );
  assert.ok(v6.kind === "run");
  assert.deepEqual(v6.config.listen, { hostname: "::1", port: 8080 });
  assert.deepEqual(
    parseFlags(["--workspace", dir, "--listen", "127.0.0.1:1"], vars, ["wave"]),
    {
      kind: "exit",
      code: 2,
      stderr: "wave: --listen is a flag of wave mcp (see wave --help)\n",
    },
  );
  assert.deepEqual(
    parseFlags(["mcp", "--workspace", dir, "--listen", "0.0.0.0:80"], vars, [
      "wave",
    ]),
    {
      kind: "exit",
      code: 2,
      stderr:
        'wave: --listen must be HOST:PORT with HOST 127.0.0.1, localhost or [::1] (wave serves no other network), not "0.0.0.0:80" (see wave --help)\n',
    },
  );
  const idle = parseFlags(
    ["mcp", "--workspace", dir, "--listen", "127.0.0.1:0", "--listen-idle=90"],
    vars,
    ["wave"],
  );
  assert.ok(idle.kind === "run");
  assert.equal(idle.config.listenIdleMs, 90_000);
  assert.deepEqual(
    parseFlags(["mcp", "--workspace", dir, "--listen-idle", "0"], vars, [
      "wave",
    ]),
    {
      kind: "exit",
      code: 2,
      stderr:
        'wave: --listen-idle must be a positive whole number, not "0" (see wave --help)\n',
    },
  );
  // A subcommand is only the first argument.
  const late = parseFlags(["--workspace", dir, "mcp"], vars, ["wave"]);
  assert.deepEqual(late, {
    kind: "exit",
    code: 2,
    stderr: "wave: unexpected argument: mcp (see wave --help)\n",
  });
});

Deno.test("Claude Code's flags, as the Claude Agent SDK passes them (--flag value and --flag=value)", async () => {
  const dir = await Deno.realPath(await tempDir());
  const extra = await Deno.realPath(await tempDir());
  const out = parseFlags(
    [
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format=stream-json",
      "-p",
      "--max-turns=3",
      "--model=opus",
      "--fallback-model",
      "claude-haiku-5-5",
      "--permission-prompt-tool=stdio",
      "--permission-mode=acceptEdits",
      "--allowedTools",
      "Read,Bash(git log:*)",
      "--disallowedTools=Grep",
      "--tools",
      "Read,Bash,Edit",
      "--system-prompt",
      "Be brief.",
      "--append-system-prompt=Use British spelling.",
      "--include-partial-messages",
      "--add-dir",
      extra,
      "--max-thinking-tokens=2048",
      "--no-session-persistence",
      "--debug-file",
      "debug.log",
      "--json-schema",
      '{"type":"object"}',
      "--max-budget-usd=0.5",
      "--setting-sources=",
      "--workspace",
      dir,
    ],
    env({
      HOME: dir,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    }),
    ["wave"],
  );
  assert.equal(out.kind, "run", out.kind === "exit" ? out.stderr ?? "" : "");
  if (out.kind !== "run") return;
  const c = out.config;
  assert.equal(c.claudeCompat, true);
  assert.equal(c.maxTurns, 3);
  assert.equal(c.model, "anthropic:claude-opus-5-5");
  assert.equal(c.baseUrl, "http://127.0.0.1:9");
  assert.equal(c.fallbackModel, "anthropic:claude-haiku-5-5");
  assert.equal(c.approvals, "parent");
  assert.equal(c.permissionMode, "acceptEdits");
  assert.equal(c.mode, "agent");
  assert.deepEqual(c.toolRules, {
    allow: ["Read", "Bash(git log:*)"],
    deny: ["Grep"],
  });
  assert.deepEqual(c.tools, ["Read", "Bash", "Edit"]);
  assert.deepEqual(c.systemPrompt, {
    replace: "Be brief.",
    append: "Use British spelling.",
  });
  assert.equal(c.includePartialMessages, true);
  assert.deepEqual(c.addDirs, [extra]);
  assert.equal(c.maxThinkingTokens, 2048);
  assert.equal(c.persistSession, false);
  assert.equal(c.debugFile, `${Deno.cwd()}/debug.log`);
  assert.deepEqual(c.jsonSchema, { type: "object" });
  assert.equal(c.maxBudgetUsd, 0.5);
  assert.deepEqual(c.warnings, []);
});

Deno.test("Claude Code's flags wave cannot honour are accepted and named in a warning; bad values exit 2", async () => {
  const dir = await Deno.realPath(await tempDir());
  const run = (...args: string[]) =>
    parseFlags([...args, "--workspace", dir], env({ HOME: dir }), ["wave"]);
  const out = run(
    "--betas",
    "x",
    "--agents",
    "{}",
    "--plugin-dir",
    "p",
    "--setting-sources",
    "user,project",
    "--permission-prompt-tool",
    "mcp__auth__ask",
    "--await-initialize",
  );
  assert.equal(out.kind, "run");
  if (out.kind !== "run") return;
  assert.deepEqual(out.config.warnings, [
    "--agents was accepted but is not honoured: wave cannot run subagents yet",
    "--betas was accepted but is not honoured: wave sends no beta headers",
    "--plugin-dir was accepted but is not honoured: wave loads no Claude Code plugins",
    "--permission-prompt-tool mcp__auth__ask was accepted but is not honoured: wave asks the parent with can_use_tool (--permission-prompt-tool stdio) or decides by --approvals (deny)",
    "--setting-sources user,project was accepted but is not honoured: wave reads no Claude Code settings files or CLAUDE.md",
  ]);
  // Without Claude Code's flags, wave's own defaults stand.
  assert.equal(out.config.permissionMode, null);
  const bad: [string[], string][] = [
    [
      ["--permission-mode", "yolo"],
      "--permission-mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto",
    ],
    [
      ["--mode", "ask", "--permission-mode", "plan"],
      "--mode and --permission-mode both set the mode; give one of them",
    ],
    [["--json-schema", "{"], "--json-schema is not JSON"],
    [
      ["--max-budget-usd", "-1"],
      "--max-budget-usd must be a positive number of dollars",
    ],
    [["--fork-session"], "--fork-session needs --resume ID or --continue"],
    [
      ["--resume", "../../etc/x", "--fork-session"],
      "--resume must name a session id",
    ],
    [["--continue"], "there is no earlier session of"],
    [["--add-dir", `${dir}/nope`], "--add-dir does not exist"],
    [["--output-format", "text"], "--output-format must be one of stream-json"],
  ];
  for (const [args, message] of bad) {
    const failed = run(...args);
    assert.equal(failed.kind, "exit", args.join(" "));
    if (failed.kind === "exit") {
      assert.equal(failed.code, 2);
      assert.ok(
        failed.stderr?.includes(message),
        `${args.join(" ")}: ${failed.stderr}`,
      );
    }
  }
});

Deno.test("--add-dir with no directory, a rule whose parentheses do not close, and a fork into an existing session id are refused instead of naming the current directory, nothing, or overwriting a transcript", async () => {
  const dir = await Deno.realPath(await tempDir());
  const run = (...args: string[]) =>
    parseFlags([...args, "--workspace", dir], env({ HOME: dir }), ["wave"]);
  const bad: [string[], string][] = [
    [["--add-dir="], "wave: --add-dir needs a directory"],
    [["--add-dir", " "], "wave: --add-dir needs a directory"],
    [
      ["--disallowedTools", "Read,Bash(rm -rf"],
      'wave: --disallowedTools: "Bash(rm -rf" is not a rule; write Tool or Tool(specifier), with its parentheses closed',
    ],
    [
      ["--allowedTools", "Edit(src/**"],
      'wave: --allowedTools: "Edit(src/**" is not a rule; write Tool or Tool(specifier), with its parentheses closed',
    ],
  ];
  for (const [args, message] of bad) {
    const failed = run(...args);
    assert.equal(failed.kind, "exit", args.join(" "));
    if (failed.kind === "exit") {
      assert.equal(failed.code, 2);
      assert.ok(failed.stderr?.startsWith(message), String(failed.stderr));
    }
  }
  // A fork into an id that exists would copy over that session's transcript.
  await Deno.mkdir(`${dir}/.wave/sessions`, { recursive: true });
  for (const id of ["A", "B"]) {
    await Deno.writeTextFile(
      `${dir}/.wave/sessions/${id}.jsonl`,
      JSON.stringify({ type: "session", session_id: id, cwd: dir }) + "\n",
    );
  }
  const fork = run("--resume", "A", "--fork-session", "--session-id", "B");
  assert.equal(fork.kind, "exit");
  if (fork.kind === "exit") {
    assert.equal(fork.code, 2);
    assert.ok(
      fork.stderr?.startsWith(
        "wave: --session-id B names a session that exists; --fork-session needs a new id",
      ),
      String(fork.stderr),
    );
  }
  assert.equal(
    run("--resume", "A", "--fork-session", "--session-id", "C").kind,
    "run",
  );
  const ok = run("--disallowedTools", "Bash(rm:*),Read(//etc/**)");
  assert.equal(ok.kind, "run");
  if (ok.kind === "run") {
    assert.deepEqual(ok.config.toolRules.deny, [
      "Bash(rm:*)",
      "Read(//etc/**)",
    ]);
  }
});

Deno.test("--continue takes this workspace's newest session; --fork-session starts a new id from it", async () => {
  const dir = await Deno.realPath(await tempDir());
  const other = await Deno.realPath(await tempDir());
  const home = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  const write = async (id: string, cwd: string, age: number) => {
    const path = `${home}/sessions/${id}.jsonl`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({ type: "session", session_id: id, cwd }) + "\n",
    );
    const when = new Date(Date.now() - age * 1000);
    await Deno.utime(path, when, when);
  };
  await write("old", dir, 100);
  await write("new", dir, 10);
  await write("elsewhere", other, 1);
  const run = (...args: string[]) =>
    parseFlags(
      [...args, "--workspace", dir],
      env({ HOME: dir, WAVE_HOME: home }),
      ["wave"],
    );
  const cont = run("--continue");
  assert.ok(
    cont.kind === "run" && cont.config.sessionId === "new" &&
      cont.config.resume,
  );
  const fork = run("--resume", "old", "--fork-session", "--session-id", "copy");
  assert.ok(fork.kind === "run");
  if (fork.kind !== "run") return;
  assert.equal(fork.config.sessionId, "copy");
  assert.equal(fork.config.forkFrom, "old");
  assert.equal(fork.config.resume, true);
});

Deno.test("--mcp-config: inline JSON and files merge by name; --strict-mcp-config is accepted", async () => {
  const dir = await Deno.realPath(await tempDir());
  await Deno.writeTextFile(
    `${dir}/servers.json`,
    JSON.stringify({
      mcpServers: {
        web: { type: "http", url: "http://127.0.0.1:1/mcp" },
        echo: { command: "other" },
      },
    }),
  );
  const out = parseFlags(
    [
      "--workspace",
      dir,
      "--mcp-config",
      '{"mcpServers":{"echo":{"command":"deno","args":["run"]}}}',
      "--strict-mcp-config",
      `--mcp-config=servers.json`,
    ],
    env({ HOME: "/home/u", WAVE_CALLER_CWD: dir }),
    ["wave"],
  );
  assert.ok(out.kind === "run");
  assert.deepEqual(out.config.mcpServers, {
    echo: { command: "other" },
    web: { type: "http", url: "http://127.0.0.1:1/mcp" },
  });
});

Deno.test("--mcp-config: bad JSON, a missing file and a config without mcpServers each exit 2 naming the flag", async () => {
  const dir = await Deno.realPath(await tempDir());
  const run = (value: string) =>
    parseFlags(
      ["--workspace", dir, "--mcp-config", value],
      env({ HOME: "/home/u", WAVE_CALLER_CWD: dir }),
      ["wave"],
    );
  assert.deepEqual(run("{nope"), {
    kind: "exit",
    code: 2,
    stderr:
      "wave: --mcp-config's JSON is not JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2) (see wave --help)\n",
  });
  assert.deepEqual(run("missing.json"), {
    kind: "exit",
    code: 2,
    stderr:
      `wave: --mcp-config: cannot read ${dir}/missing.json: no such file (see wave --help)\n`,
  });
  assert.deepEqual(
    parseFlags(
      ["mcp", "--workspace", dir, "--mcp-config", '{"mcpServers":{"a":{}}}'],
      env({ HOME: "/home/u" }),
      ["wave"],
    ),
    {
      kind: "exit",
      code: 2,
      stderr:
        "wave: --mcp-config is not a flag of wave mcp (see wave --help)\n",
    },
  );
  assert.deepEqual(run('{"servers":{}}'), {
    kind: "exit",
    code: 2,
    stderr:
      `wave: --mcp-config's JSON must be an object with an "mcpServers" object ({"mcpServers": {"<name>": {"command": ...}}}) (see wave --help)\n`,
  });
});

Deno.test("MCP_TIMEOUT and MCP_TOOL_TIMEOUT (Claude Code's) set the MCP servers' timeouts; a bad one exits 2 naming it", async () => {
  const dir = await Deno.realPath(await tempDir());
  const out = parseFlags(
    ["--workspace", dir],
    env({ HOME: "/home/u", MCP_TIMEOUT: "1500", MCP_TOOL_TIMEOUT: "90000" }),
    ["wave"],
  );
  assert.ok(out.kind === "run");
  assert.deepEqual(out.config.mcpTimeouts, { connectMs: 1500, toolMs: 90_000 });
  assert.deepEqual(
    parseFlags(
      ["--workspace", dir],
      env({ HOME: "/home/u", MCP_TOOL_TIMEOUT: "5s" }),
      ["wave"],
    ),
    {
      kind: "exit",
      code: 2,
      stderr:
        'wave: MCP_TOOL_TIMEOUT must be a whole number of milliseconds, not "5s" (see wave --help)\n',
    },
  );
});
