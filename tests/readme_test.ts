/** The README renders as meant: every table is whole. */
import assert from "node:assert/strict";
import { waveArgs } from "../scripts/flags.ts";
import { tempDir, tempFile } from "./_temp.ts";

/** The cells of a Markdown table row; a `|` inside backticks or escaped is text. */
export function cells(row: string): string[] {
  const out: string[] = [];
  let cell = "";
  let code = false;
  const body = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\" && body[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (c === "`") {
      code = !code;
      cell += c;
    } else if (c === "|" && !code) {
      out.push(cell.trim());
      cell = "";
    } else cell += c;
  }
  out.push(cell.trim());
  return out;
}

/** Problems with the Markdown tables in `text`: rows of the wrong width, a row broken over lines. */
export function tableProblems(text: string): string[] {
  const lines = text.split("\n");
  const problems: string[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("```")) inFence = !inFence;
    if (inFence || !lines[i].startsWith("|")) continue;
    if (i > 0 && lines[i - 1].startsWith("|")) continue;
    // A table starts here: a header, a separator, then rows.
    const width = cells(lines[i]).length;
    if (!/^\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[i + 1] ?? "")) {
      problems.push(`line ${i + 2}: a table without a separator row`);
      continue;
    }
    let j = i + 1;
    for (; j < lines.length && lines[j].startsWith("|"); j++) {
      const n = cells(lines[j]).length;
      if (n !== width) {
        problems.push(`line ${j + 1}: ${n} cells in a table of ${width}`);
      }
      if (j > i + 1 && cells(lines[j]).some((c) => c === "")) {
        problems.push(`line ${j + 1}: an empty cell`);
      }
    }
    // A row broken over lines leaves a line after the table that holds " | ".
    if (lines[j] && lines[j].trim() !== "" && / \| /.test(lines[j])) {
      problems.push(`line ${j + 1}: a table row broken over lines`);
    }
  }
  return problems;
}

Deno.test("README: every table renders as a table (no broken rows, no missing or empty cells)", async () => {
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  assert.deepEqual(tableProblems(readme), []);
});

Deno.test("README table check: it finds a short row, an empty cell and a row broken over lines", () => {
  const broken = [
    "| a | b |",
    "| - | - |",
    "| `x|y` | 2 |",
    "| 3 |",
    "|   |   |",
    "`z` | 4 |",
  ].join("\n");
  assert.deepEqual(tableProblems(broken), [
    "line 4: 1 cells in a table of 2",
    "line 5: an empty cell",
    "line 6: a table row broken over lines",
  ]);
});

Deno.test("README: the parent author's start line is exactly what the tests and the binary run", async () => {
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const block = readme.match(
    /A parent starts wave from anywhere[\s\S]*?```sh\n([\s\S]*?)```/,
  );
  assert.ok(block, "the README shows how a parent starts wave");
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const line = block[1].replace(/\\\n\s*/g, "").trim().replaceAll(
    "/path/to/wave",
    root,
  );
  assert.equal(
    line,
    ["npx", "-y", "deno@2.9.6", ...waveArgs(["--workspace", "DIR"])].join(
      " ",
    ),
  );
});

/** The fenced code blocks of `text`, with their info strings. */
export function codeBlocks(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1],
    body: m[2],
  }));
}

/** The commands the README's client snippets start wave with: Claude Code's `.mcp.json` and `claude mcp add`, Codex's config.toml. */
export function mcpSnippetCommands(
  readme: string,
): { where: string; command: string; args: string[] }[] {
  const found: { where: string; command: string; args: string[] }[] = [];
  for (const { lang, body } of codeBlocks(readme)) {
    if (lang === "json" && body.includes('"mcpServers"')) {
      const { command, args } = JSON.parse(body).mcpServers.wave;
      found.push({ where: ".mcp.json", command, args });
    } else if (lang === "sh" && body.startsWith("claude mcp add wave -- ")) {
      const [command, ...args] = body.trim().slice(23).split(/\s+/);
      found.push({ where: "claude mcp add", command, args });
    } else if (lang === "toml" && body.startsWith("[mcp_servers.wave]")) {
      const command = JSON.parse(/^command = (".*")$/m.exec(body)![1]);
      const args = JSON.parse(/^args = (\[.*\])$/m.exec(body)![1]);
      found.push({ where: "codex config.toml", command, args });
    }
  }
  return found;
}

Deno.test("README: the Claude Code and Codex snippets' commands start wave mcp, and an MCP client lists its tools", async () => {
  const { Client } = await import("@modelcontextprotocol/sdk/client");
  const { StdioClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/stdio.js"
  ) as typeof import("@modelcontextprotocol/sdk/client/stdio");
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const snippets = mcpSnippetCommands(readme);
  assert.deepEqual(snippets.map((s) => s.where), [
    ".mcp.json",
    "claude mcp add",
    "codex config.toml",
  ]);
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  for (const snippet of snippets) {
    // The one placeholder: where this repository is checked out.
    const args = snippet.args.map((a) => a.replace("/path/to/wave", root));
    assert.deepEqual(args.slice(-2), [`${root}/cli.ts`, "mcp"], snippet.where);
    const workspace = await Deno.realPath(await tempDir());
    const client = new Client({ name: "readme", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: snippet.command,
        args,
        cwd: workspace,
        env: {
          PATH: Deno.env.get("PATH")!,
          HOME: Deno.env.get("HOME") ?? "/root",
          WAVE_HOME: await tempDir(),
        },
        stderr: "ignore",
      }),
    );
    try {
      assert.equal(client.getServerVersion()?.name, "wave", snippet.where);
      assert.match(client.getInstructions() ?? "", new RegExp(workspace));
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "Read"), snippet.where);
    } finally {
      await client.close();
    }
  }
});

Deno.test("README: the Zed snippet's command starts wave acp, and an ACP client opens a session in the project", async () => {
  const { acp, startAcp } = await import("./_acp.ts");
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const zed = codeBlocks(readme).filter((b) =>
    b.lang === "json" && b.body.includes('"agent_servers"')
  );
  assert.equal(zed.length, 1);
  const server = JSON.parse(zed[0].body).agent_servers.wave;
  assert.equal(server.type, "custom");
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const args: string[] = server.args.map((a: string) =>
    a.replace("/path/to/wave", root)
  );
  assert.deepEqual(args.slice(5, 7), [`${root}/cli.ts`, "acp"]);
  // The snippet's placeholders: the checkout, and a file with the key.
  const keyFile = await tempFile();
  await Deno.writeTextFile(keyFile, "sk-ant-test-key-0123456789\n");
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.env)) {
    env[name] = String(value).replace("/path/to/anthropic-key", keyFile);
  }
  const project = await Deno.realPath(await tempDir());
  const wave = await startAcp({
    command: { command: server.command, args, cwd: project },
    workspace: project,
    env,
  });
  try {
    const init = await wave.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    assert.equal(init.agentInfo?.name, "wave");
    const session = await wave.agent.request(acp.methods.agent.session.new, {
      cwd: project,
      mcpServers: [],
    });
    assert.equal(session.modes?.currentModeId, "agent");
  } finally {
    assert.equal(await wave.close(), 0, wave.stderr());
  }
});
