/**
 * Deny rules as an attacker meets them, through the real CLI: a command
 * rule read as the shell reads the line (quotes, continuations, wrappers,
 * `sh -c`, and what cannot be known without running it), a `Read` rule
 * over searches that name no path, and a `Read` rule over what commands
 * read under bubblewrap.
 */

import assert from "node:assert/strict";
import { type Message, startWave, type WaveProcess } from "../_wave.ts";

/** wave speaking stream-json under bypassPermissions, with `args` (a toolset, rules). */
function startBypassing(args: string[]): Promise<WaveProcess> {
  return startWave({
    args: [
      ...args,
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
    ],
  });
}

/** wave under bypassPermissions with the command deny rule `Bash(rm:*)` (`args` first: a toolset). */
function startWithRmRule(args: string[] = []): Promise<WaveProcess> {
  return startBypassing([...args, "--disallowedTools", "Bash(rm:*)"]);
}

/** `command` is refused by the rule `Bash(rm:*)`, in its exact words (through `tool`, `input` its input). */
async function assertRuleRefuses(
  wave: WaveProcess,
  command: string,
  tool = "Bash",
  input: Record<string, unknown> = { command },
): Promise<void> {
  const answer = await wave.callTool(tool, input);
  assert.equal(answer.is_error, true, command);
  assert.equal(
    answer.content,
    `${tool} was refused: the rule Bash(rm:*) disallows it (--disallowedTools).`,
    command,
  );
}

Deno.test("deny rules: a command rule holds against the shell's spellings, wrappers with options, sh -c and find -exec; a line it cannot rule out is refused under bypassPermissions", async () => {
  const wave = await startWithRmRule();
  try {
    const ws = wave.workspace;
    await Deno.writeTextFile(`${ws}/victim`, "v");
    for (
      const command of [
        "true; r\\\nm -f victim",
        "$'\\x72m' -f victim",
        "timeout 5 rm -f victim",
        "nice -n 5 rm -f victim",
        "env -u HOME rm -f victim",
        "bash -c 'rm -f victim'",
        "sh -c \"true; 'rm' -f victim\"",
        "eval 'rm -f victim'",
        "find . -name victim -exec rm {} \\;",
      ]
    ) await assertRuleRefuses(wave, command);
    for (
      const [command, why] of [
        [
          "R=rm; $R -f victim",
          "the program it runs is known only when it runs",
        ],
        ["/bin/r? -f victim", "the program it runs is known only when it runs"],
        ["{rm,-f,victim}", "the program it runs is known only when it runs"],
        ["rm${IFS}-f victim", "the program it runs is known only when it runs"],
        [
          "$(printf rm) -f victim",
          "the program it runs is known only when it runs",
        ],
        ["echo 'unclosed", "a quote is not closed"],
      ]
    ) {
      const answer = await wave.callTool("Bash", { command });
      assert.equal(answer.is_error, true, command);
      assert.equal(
        answer.content,
        `Bash was refused: its command may run what the rule Bash(rm:*) covers, which cannot be known without running it (${why}).`,
        command,
      );
    }
    assert.equal(await Deno.readTextFile(`${ws}/victim`), "v");
    // What only mentions rm still runs.
    const ok = await wave.callTool("Bash", {
      command: 'echo "not; rm -f victim" && grep -c v victim',
    });
    assert.equal(ok.is_error, false, JSON.stringify(ok));
    assert.match(String(ok.content), /not; rm -f victim\n1/);
  } finally {
    await wave.kill();
  }
});

/** A workspace with secrets under Read deny rules, and a file no rule names. */
async function plantSecrets(ws: string): Promise<void> {
  await Deno.mkdir(`${ws}/secrets/deeper`, { recursive: true });
  await Deno.mkdir(`${ws}/config`);
  await Deno.writeTextFile(`${ws}/secrets/deeper/key.txt`, "TOKEN-in-dir\n");
  await Deno.writeTextFile(`${ws}/config/prod.private`, "TOKEN-in-env\n");
  await Deno.writeTextFile(`${ws}/config/app.txt`, "TOKEN-config\n");
  await Deno.writeTextFile(`${ws}/notes.txt`, "TOKEN-public\n");
}

const READ_DENIALS = ["--disallowedTools", "Read(secrets/**) Read(*.private)"];

Deno.test("deny rules: a Read rule holds over searches that name no path and over directory listings, in every toolset: matching lines and names of denied files never come back; a search of a denied path is still refused", async () => {
  const searches: [string, string, Record<string, unknown>][] = [
    ["wave", "Grep", { pattern: "TOKEN", output_mode: "content" }],
    ["wave", "Grep", { pattern: "TOKEN", path: "config" }],
    ["wave", "Glob", { pattern: "**/*" }],
    ["sata", "grep", { Pattern: "TOKEN" }],
    ["sata", "find", { Name: "*" }],
    ["sata", "list", {}],
    ["sata", "list", { Path: "config" }],
    ["devflow", "search_files", { pattern: "*" }],
    ["devflow", "list_directory", { path: ".", recursive: true }],
    ["devflow", "list_directory", { path: "config" }],
    ["files", "find_files", {
      queries: [{ pattern: "TOKEN", file_pattern: "*" }],
      output: "content",
    }],
    ["files", "find_files", { queries: [{ pattern: "**/*.*" }] }],
  ];
  for (const toolset of ["wave", "sata", "devflow", "files"]) {
    const wave = await startBypassing(["--toolset", toolset, ...READ_DENIALS]);
    try {
      await plantSecrets(wave.workspace);
      for (const [set, tool, input] of searches) {
        if (set !== toolset) continue;
        const answer = await wave.callTool(tool, input);
        const text = JSON.stringify(answer.content);
        assert.equal(answer.is_error, false, `${tool}: ${text}`);
        assert.match(
          text,
          /notes\.txt|TOKEN-public|app\.txt|TOKEN-config/,
          `${tool}: ${text}`,
        );
        for (
          const leak of [
            "TOKEN-in-dir",
            "TOKEN-in-env",
            "key.txt",
            "prod.private",
          ]
        ) {
          assert.ok(
            !text.includes(leak),
            `${tool} ${JSON.stringify(input)} showed ${leak}: ${text}`,
          );
        }
      }
    } finally {
      await wave.kill();
    }
  }
  const wave = await startBypassing([...READ_DENIALS]);
  try {
    await plantSecrets(wave.workspace);
    const answer = await wave.callTool("Grep", {
      pattern: "TOKEN",
      path: "secrets",
    });
    assert.equal(answer.is_error, true);
    assert.equal(
      answer.content,
      "Grep was refused: the rule Read(secrets/**) disallows it (--disallowedTools).",
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("deny rules: under bubblewrap a command finds the files a Read rule denies empty, and cannot write them; what no rule names it reads", async () => {
  const wave = await startBypassing([
    "--shell-sandbox",
    "bwrap",
    ...READ_DENIALS,
  ]);
  try {
    const ws = wave.workspace;
    await plantSecrets(ws);
    const answer = await wave.callTool("Bash", {
      command:
        'cat secrets/deeper/key.txt config/prod.private notes.txt; grep -r TOKEN . ; echo "[$(ls -A secrets)]"; echo x > config/prod.private; echo x > secrets/new; echo done',
    });
    const text = String(answer.content);
    assert.match(text, /TOKEN-public/);
    assert.match(text, /TOKEN-config/);
    assert.match(text, /\n\[\]\n/);
    assert.match(text, /done/);
    for (const leak of ["TOKEN-in-dir", "TOKEN-in-env"]) {
      assert.ok(!text.includes(leak), `the command showed ${leak}: ${text}`);
    }
    // Nothing written through the hiding mounts, nothing lost.
    assert.equal(
      await Deno.readTextFile(`${ws}/config/prod.private`),
      "TOKEN-in-env\n",
    );
    assert.equal(
      await Deno.readTextFile(`${ws}/secrets/deeper/key.txt`),
      "TOKEN-in-dir\n",
    );
    await assert.rejects(Deno.stat(`${ws}/secrets/new`));
    // A file made after the session started is hidden too: found at call time.
    await Deno.writeTextFile(`${ws}/late.private`, "TOKEN-late\n");
    const late = await wave.callTool("Bash", {
      command: "cat late.private; echo done",
    });
    assert.ok(
      !String(late.content).includes("TOKEN-late"),
      String(late.content),
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("deny rules: in default mode a line a deny rule cannot rule out is put to the parent (can_use_tool with the rule and why), though an allow rule covers Bash; the parent's no keeps it from running", async () => {
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
      "--allowedTools",
      "Bash",
      "--disallowedTools",
      "Bash(rm:*)",
    ],
  });
  try {
    await Deno.writeTextFile(`${wave.workspace}/victim`, "v");
    const command = "R=rm; $R -f victim";
    await wave.sendCall("c1", "Bash", { command });
    const ask = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "can_use_tool"
    );
    assert.equal(ask.request.tool_name, "Bash");
    assert.equal(
      ask.request.reason,
      `Bash runs a command the rule Bash(rm:*) may cover (the program it runs is known only when it runs): ${command}`,
    );
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask.request_id,
        response: { behavior: "deny", message: "not that" },
      },
    });
    const answer = await wave.waitFor((m) =>
      m.type === "control_response" && m.response.request_id === "c1"
    );
    assert.equal(answer.response.response.is_error, true);
    assert.equal(
      answer.response.response.content,
      "Bash was denied by the user: not that",
    );
    assert.equal(await Deno.readTextFile(`${wave.workspace}/victim`), "v");
    // A clear line the allow rule covers runs without a question.
    const ok = await wave.callTool("Bash", {
      command: "echo $HOME > /dev/null && echo fine",
    });
    assert.equal(ok.is_error, false, JSON.stringify(ok));
  } finally {
    await wave.kill();
  }
});

Deno.test("deny rules: under bubblewrap a command cannot rename a directory that holds a denied path (mv app app2 would take app/secrets out of Read(app/secrets/**) for the next call and the Read tool); a rule spelled with .. covers what it names", async () => {
  const wave = await startBypassing([
    "--shell-sandbox",
    "bwrap",
    "--disallowedTools",
    "Read(app/secrets/**) Read(config/prod.private) Read(./notes/../hidden/**)",
  ]);
  try {
    const ws = wave.workspace;
    await Deno.mkdir(`${ws}/app/secrets`, { recursive: true });
    await Deno.writeTextFile(`${ws}/app/secrets/key.txt`, "TOKEN-dir\n");
    await Deno.mkdir(`${ws}/config`);
    await Deno.writeTextFile(`${ws}/config/prod.private`, "TOKEN-file\n");
    await Deno.writeTextFile(`${ws}/config/app.txt`, "TOKEN-public\n");
    await Deno.mkdir(`${ws}/hidden`);
    await Deno.writeTextFile(`${ws}/hidden/h.txt`, "TOKEN-dots\n");
    const moved = await wave.callTool("Bash", {
      command:
        "mv app app2 2>&1; mv config cfg 2>&1; echo x > config/new.txt; cat config/app.txt; cat hidden/h.txt; echo done",
    });
    const text = String(moved.content);
    assert.match(
      text,
      /mv: cannot move 'app' to 'app2': Device or resource busy\nmv: cannot move 'config' to 'cfg': Device or resource busy\nTOKEN-public\n/,
    );
    assert.match(text, /done/);
    assert.ok(!text.includes("TOKEN-dots"), text);
    // What the command wrote beside the hidden file is on disk.
    assert.equal(await Deno.readTextFile(`${ws}/config/new.txt`), "x\n");
    const after = await wave.callTool("Bash", {
      command: "cat app2/secrets/key.txt cfg/prod.private; echo done",
    });
    for (const leak of ["TOKEN-dir", "TOKEN-file"]) {
      assert.ok(!String(after.content).includes(leak), String(after.content));
    }
    const read = await wave.callTool("Read", { file_path: "hidden/h.txt" });
    assert.equal(
      read.content,
      "Read was refused: the rule Read(./notes/../hidden/**) disallows it (--disallowedTools).",
    );
  } finally {
    await wave.kill();
  }
});

Deno.test("deny rules: a command rule holds against a shell fed a here-string, a function's body, trap, coproc, busybox, bash -c --, a quoted } in ${…} and $((…); …); a shell reading a pipe is refused under bypassPermissions", async () => {
  const wave = await startWithRmRule();
  try {
    const ws = wave.workspace;
    await Deno.writeTextFile(`${ws}/victim`, "v");
    for (
      const command of [
        'bash<<<"rm -f victim"',
        "function f { rm -f victim; }; f",
        "trap 'rm -f victim' EXIT; true",
        "coproc rm -f victim",
        "busybox rm -f victim",
        "bash -c -- 'rm -f victim'",
        'echo ${x:-"}"} ; rm -f victim ; #"',
        "echo $((echo a); rm -f victim)",
      ]
    ) await assertRuleRefuses(wave, command);
    const piped = await wave.callTool("Bash", {
      command: "echo 'rm -f victim' | sh",
    });
    assert.equal(
      piped.content,
      "Bash was refused: its command may run what the rule Bash(rm:*) covers, which cannot be known without running it (sh runs the commands it reads from its input).",
    );
    assert.equal(await Deno.readTextFile(`${ws}/victim`), "v");
  } finally {
    await wave.kill();
  }
});

Deno.test("deny rules: a Bash rule binds every dialect's command tool: devflow run_command and sata shell refuse what Bash(rm:*) covers, and run the rest", async () => {
  for (
    const [toolset, tool, inputOf] of [
      ["devflow", "run_command", (command: string) => ({ command })],
      ["sata", "shell", (command: string) => ({ Script: command })],
    ] as const
  ) {
    const wave = await startWithRmRule(["--toolset", toolset]);
    try {
      const ws = wave.workspace;
      await Deno.writeTextFile(`${ws}/victim`, "v");
      for (const command of ["rm -f victim", "true && 'r'm -f victim"]) {
        await assertRuleRefuses(wave, command, tool, inputOf(command));
      }
      assert.equal(await Deno.readTextFile(`${ws}/victim`), "v");
      const ok = await wave.callTool(tool, inputOf("cat victim"));
      assert.equal(ok.is_error, false, JSON.stringify(ok));
    } finally {
      await wave.kill();
    }
  }
});

Deno.test("deny rules: files made past --max-deny-walk block no search or listing (they are given the rules, nothing is walked) and still leave the denied ones out; a command under bubblewrap is refused, saying what lets it run; one under none runs", async () => {
  const start = (toolset: string, sandbox: string) =>
    startBypassing([
      "--toolset",
      toolset,
      "--shell-sandbox",
      sandbox,
      "--max-deny-walk",
      "50",
      ...READ_DENIALS,
    ]);
  const wave = await start("wave", "bwrap");
  try {
    const ws = wave.workspace;
    await plantSecrets(ws);
    // What a model could make with one command: more than the walk's bound.
    await Deno.mkdir(`${ws}/many`);
    for (let i = 0; i < 60; i++) {
      await Deno.writeTextFile(`${ws}/many/f${i}.private`, "TOKEN-many\n");
    }
    const calls: [string, Record<string, unknown>][] = [
      ["Grep", { pattern: "TOKEN", output_mode: "content" }],
      ["Glob", { pattern: "**/*" }],
    ];
    for (const [tool, input] of calls) {
      const answer = await wave.callTool(tool, input);
      const text = JSON.stringify(answer.content);
      assert.equal(answer.is_error, false, `${tool}: ${text}`);
      assert.match(text, /notes\.txt|TOKEN-public/, `${tool}: ${text}`);
      for (
        const leak of ["TOKEN-in-dir", "TOKEN-in-env", "TOKEN-many", "key.txt"]
      ) {
        assert.ok(!text.includes(leak), `${tool} showed ${leak}: ${text}`);
      }
    }
    const command = await wave.callTool("Bash", { command: "cat notes.txt" });
    assert.equal(command.is_error, true);
    assert.equal(
      command.content,
      `Bash was not run: the deny rule Read(*.private) has more than 50 files and directories to look through for what it covers (from ${ws}), so what the command could read past it cannot be hidden from it; a narrower rule (a directory, a name under one) or a higher --max-deny-walk lets commands run (searches and the file tools are not bound by this)`,
    );
  } finally {
    await wave.kill();
  }
  const none = await start("devflow", "none");
  try {
    await plantSecrets(none.workspace);
    for (let i = 0; i < 60; i++) {
      await Deno.writeTextFile(`${none.workspace}/f${i}.private`, "x");
    }
    const listing = await none.callTool("list_directory", {
      path: ".",
      recursive: true,
    });
    const text = JSON.stringify(listing.content);
    assert.equal(listing.is_error, false, text);
    assert.match(text, /notes\.txt/);
    for (const leak of ["key.txt", "prod.private", "f1.private"]) {
      assert.ok(!text.includes(leak), `list_directory showed ${leak}: ${text}`);
    }
    // Under none, Read rules bind no command: nothing to walk for it.
    const command = await none.callTool("run_command", {
      command: "cat notes.txt",
    });
    assert.equal(command.is_error, false, JSON.stringify(command));
    assert.match(JSON.stringify(command.content), /TOKEN-public/);
  } finally {
    await none.kill();
  }
});

Deno.test("deny rules: where ripgrep reads a glob otherwise than the permission check (a name ending in a space, `?` against a two-byte letter) no search shows the file; a missing file's 'did you mean', sata list_plans and a listing's link to a covered file name or size nothing covered", async () => {
  const rules = [
    "--disallowedTools",
    "Read(vault /**) Read(secret?) Read(*.env) Read(*.private.md)",
  ];
  const start = (toolset: string) =>
    startBypassing(["--toolset", toolset, ...rules]);
  const plant = async (ws: string) => {
    await Deno.mkdir(`${ws}/vault `);
    await Deno.writeTextFile(`${ws}/vault /key.txt`, "TOKEN-vault\n");
    await Deno.writeTextFile(`${ws}/secretó`, "TOKEN-accent\n");
    await Deno.writeTextFile(`${ws}/prod-db-password.env`, "TOKEN-env\n");
    await Deno.writeTextFile(`${ws}/notes.txt`, "TOKEN-public\n");
    await Deno.symlink("prod-db-password.env", `${ws}/flink`);
    await Deno.mkdir(`${ws}/.cursor/plans`, { recursive: true });
    await Deno.writeTextFile(`${ws}/.cursor/plans/open.md`, "# open\n");
    await Deno.writeTextFile(`${ws}/.cursor/plans/x.private.md`, "# TOKEN\n");
  };
  const leaks = [
    "TOKEN-vault",
    "TOKEN-accent",
    "TOKEN-env",
    "key.txt",
    "secretó",
    "prod-db-password",
    "x.private",
  ];
  const assertNoLeak = (tool: string, answer: Message) => {
    const text = JSON.stringify(answer.content);
    for (const leak of leaks) {
      assert.ok(!text.includes(leak), `${tool} showed ${leak}: ${text}`);
    }
  };
  const wave = await start("wave");
  try {
    await plant(wave.workspace);
    for (
      const [tool, input] of [
        ["Grep", { pattern: "TOKEN", output_mode: "content" }],
        ["Grep", { pattern: "TOKEN" }],
        ["Glob", { pattern: "**/*" }],
      ] as const
    ) {
      const answer = await wave.callTool(tool, input);
      assert.equal(answer.is_error, false, JSON.stringify(answer));
      assert.match(JSON.stringify(answer.content), /notes\.txt/);
      assertNoLeak(tool, answer);
    }
    // The Read itself is refused; a near name gets no hint of it.
    const read = await wave.callTool("Read", { file_path: "secretó" });
    assert.equal(read.is_error, true);
    const missing = await wave.callTool("Read", {
      file_path: "prod-db-password.envx",
    });
    assert.equal(
      missing.content,
      "File does not exist: prod-db-password.envx.",
    );
  } finally {
    await wave.kill();
  }
  const sata = await start("sata");
  try {
    await plant(sata.workspace);
    const plans = await sata.callTool("list_plans", {});
    assert.equal(plans.is_error, false, JSON.stringify(plans));
    assert.match(JSON.stringify(plans.content), /open\.md/);
    assertNoLeak("list_plans", plans);
  } finally {
    await sata.kill();
  }
  const devflow = await start("devflow");
  try {
    await plant(devflow.workspace);
    const listing = await devflow.callTool("list_directory", { path: "." });
    const text = JSON.stringify(listing.content);
    assert.equal(listing.is_error, false, text);
    assert.match(text, /flink/);
    assert.ok(!text.includes("10 B"), text);
    assertNoLeak("list_directory", listing);
  } finally {
    await devflow.kill();
  }
});
