import assert from "node:assert/strict";
import { parseFlags } from "../../session/config.ts";
import { type ApiKey, readApiKey } from "../../session/models/api_key.ts";
import {
  forgetModelKeys,
  forgetNodeCoverage,
} from "../../session/environment.ts";
import { tempDir } from "../_temp.ts";

const env = (vars: Record<string, string>) => ({ get: (k: string) => vars[k] });

function revealed(
  found: { key: ApiKey } | { problem: string },
): string | { problem: string } {
  return "key" in found ? found.key.reveal() : found;
}

Deno.test("api key: from the variable, and what to do without one", () => {
  const cwd = "/";
  assert.equal(
    revealed(
      readApiKey("anthropic", { env: env({ ANTHROPIC_API_KEY: "a" }), cwd }),
    ),
    "a",
  );
  assert.deepEqual(
    revealed(
      readApiKey("anthropic", { env: env({}), cwd, baseUrl: "http://x" }),
    ),
    {
      problem:
        "--model anthropic:… needs ANTHROPIC_API_KEY in the environment, or its key in a file (--api-key-file FILE or ANTHROPIC_API_KEY_FILE)",
    },
  );
  assert.equal(
    revealed(readApiKey("openai", { env: env({ OPENAI_API_KEY: "o" }), cwd })),
    "o",
  );
  // A local OpenAI-compatible server needs no key; an empty one counts as none.
  assert.equal(
    revealed(
      readApiKey("openai", {
        env: env({ OPENAI_API_KEY: "" }),
        cwd,
        baseUrl: "http://x",
      }),
    ),
    "none",
  );
  assert.deepEqual(
    revealed(readApiKey("openai", { env: env({ OPENAI_API_KEY: "" }), cwd })),
    {
      problem:
        "--model openai:… needs OPENAI_API_KEY in the environment, or its key in a file (--api-key-file FILE or OPENAI_API_KEY_FILE), or --base-url for a local server",
    },
  );
});

Deno.test("api key: a file wins over the variable; --api-key-file over both; relative to the caller", async () => {
  const dir = await Deno.realPath(await tempDir());
  await Deno.writeTextFile(`${dir}/flag.key`, "  from-flag\n");
  await Deno.writeTextFile(`${dir}/var.key`, "from-var-file\n");
  const vars = {
    ANTHROPIC_API_KEY: "from-variable",
    ANTHROPIC_API_KEY_FILE: "var.key",
  };
  assert.equal(
    revealed(readApiKey("anthropic", { env: env(vars), cwd: dir })),
    "from-var-file",
  );
  assert.equal(
    revealed(
      readApiKey("anthropic", { env: env(vars), cwd: dir, file: "flag.key" }),
    ),
    "from-flag",
  );
});

Deno.test("api key: a pipe works as the key file, read once", async () => {
  // A parent that leaves the key on no disk: --api-key-file on a pipe.
  const dir = await Deno.realPath(await tempDir());
  const fifo = `${dir}/key.fifo`;
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success);
  const writer = new Deno.Command("bash", {
    args: ["-c", `printf 'sk-piped\\n' > ${fifo}`],
  }).spawn();
  assert.equal(
    revealed(readApiKey("openai", { env: env({}), cwd: dir, file: fifo })),
    "sk-piped",
  );
  assert.ok((await writer.status).success);
});

Deno.test("api key: a missing, unreadable or empty key file is a start-up error (exit 2, one line)", async () => {
  const dir = await Deno.realPath(await tempDir());
  await Deno.writeTextFile(`${dir}/empty.key`, " \n");
  const run = (args: string[], vars: Record<string, string> = {}) =>
    parseFlags(
      ["--workspace", dir, ...args],
      env({ HOME: dir, WAVE_CALLER_CWD: dir, ...vars }),
      [
        "wave",
      ],
    );
  assert.deepEqual(
    run(["--model", "anthropic:c", "--api-key-file", "nope.key"]),
    {
      kind: "exit",
      code: 2,
      stderr:
        `wave: the API key file ${dir}/nope.key (--api-key-file) cannot be read: No such file or directory (os error 2): readfile '${dir}/nope.key' (see wave --help)\n`,
    },
  );
  assert.deepEqual(
    run(["--model", "openai:g"], { OPENAI_API_KEY_FILE: `${dir}/empty.key` }),
    {
      kind: "exit",
      code: 2,
      stderr:
        `wave: the API key file ${dir}/empty.key (OPENAI_API_KEY_FILE) is empty (see wave --help)\n`,
    },
  );
  // A directory cannot be read as a file.
  const out = run(["--model", "openai:g", "--api-key-file", dir]);
  assert.equal(out.kind, "exit");
  assert.match(
    (out as { stderr: string }).stderr,
    new RegExp(
      `^wave: the API key file ${dir} \\(--api-key-file\\) cannot be read: `,
    ),
  );
  assert.deepEqual(run(["--api-key-file", "k"]), {
    kind: "exit",
    code: 2,
    stderr:
      "wave: --api-key-file needs --model anthropic:… or openai:… (see wave --help)\n",
  });
});

Deno.test("api key: the config holds it, and shows it to no log", async () => {
  const dir = await Deno.realPath(await tempDir());
  const out = parseFlags(
    ["--workspace", dir, "--model", "anthropic:c"],
    env({ HOME: dir, ANTHROPIC_API_KEY: "sk-secret-1" }),
    ["wave"],
  );
  assert.ok(out.kind === "run");
  assert.equal(out.config.apiKey?.reveal(), "sk-secret-1");
  const shown = [
    JSON.stringify(out.config),
    Deno.inspect(out.config, { depth: 10 }),
    String(out.config.apiKey),
    `${out.config.apiKey}`,
  ];
  for (const text of shown) {
    assert.ok(!text.includes("sk-secret-1"), text);
    assert.match(text, /\[redacted\]/);
  }
  // A replay model has no key.
  await Deno.writeTextFile(`${dir}/r.json`, "[]");
  const replay = parseFlags(
    ["--workspace", dir, "--model", `replay:${dir}/r.json`],
    env({ HOME: dir, ANTHROPIC_API_KEY: "sk-secret-1" }),
    ["wave"],
  );
  assert.ok(replay.kind === "run");
  assert.equal(replay.config.apiKey, undefined);
});

Deno.test("api key: forgetModelKeys deletes every model key variable, and nothing else", () => {
  const vars = new Map(Object.entries({
    ANTHROPIC_API_KEY: "a",
    OPENAI_API_KEY: "o",
    ANTHROPIC_AUTH_TOKEN: "t",
    PATH: "/bin",
  }));
  forgetModelKeys({ delete: (name) => vars.delete(name) });
  assert.deepEqual([...vars.keys()], ["PATH"]);
});

Deno.test("api key: forgetNodeCoverage deletes NODE_V8_COVERAGE, which Node's spawn would pass on to ripgrep, and nothing else", () => {
  const vars = new Map(
    Object.entries({ NODE_V8_COVERAGE: "/tmp/c", PATH: "/bin" }),
  );
  forgetNodeCoverage({ delete: (name) => vars.delete(name) });
  assert.deepEqual([...vars.keys()], ["PATH"]);
});
