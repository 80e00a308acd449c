/**
 * A scripted 50-turn session through a real provider (issue 18): the
 * model is the mock server on 127.0.0.1 speaking the Anthropic Messages
 * API, then OpenAI Chat Completions; each turn calls tools of every kind,
 * several in parallel now and then. wave's wall time for the session is
 * set against its floor: the same HTTP exchanges made by a bare client
 * (the requests wave sent, replayed with `fetch`, each stream read to its
 * end) plus the same tool calls through `call_tool` in another session.
 *
 * @module
 */

import { type MockBlock, MockModel } from "../../tests/_mock_model.ts";
import { BenchWave, type Figure, scriptArgs, time } from "./measure.ts";
import { sample } from "./soak.ts";

const TURNS = 50;

/** The tool calls of turn `i`: one of each kind in turn, two at once every fifth turn. */
export function callsOf(i: number): [string, Record<string, unknown>][] {
  const kinds: [string, Record<string, unknown>][] = [
    ["Read", { file_path: "notes.txt" }],
    ["Grep", { pattern: "line 1", path: "notes.txt" }],
    ["Glob", { pattern: "**/*.txt" }],
    ["Edit", {
      file_path: "notes.txt",
      old_string: i % 2 ? "LINE 0\n" : "line 0\n",
      new_string: i % 2 ? "line 0\n" : "LINE 0\n",
    }],
    ["Bash", { command: "echo turn" }],
    ["Write", { file_path: `out/turn${i}.txt`, content: `turn ${i}\n` }],
  ];
  const calls = [kinds[i % kinds.length]];
  // Edit needs the file read in this session, and it flips a line: the
  // Read before it keeps it fresh.
  if (calls[0][0] === "Edit") calls.unshift(kinds[0]);
  if (i % 5 === 4) calls.push(kinds[(i + 2) % 3]);
  return calls;
}

/** Scripts `turns` turns of tool calls, then the end. */
export function script(mock: MockModel, turns = TURNS): void {
  for (let i = 0; i < turns; i++) {
    const reply: MockBlock[] = callsOf(i).map(([name, input], k) => ({
      type: "tool_use",
      id: `toolu_${i}_${k}`,
      name,
      input,
    }));
    mock.script({ reply });
  }
  mock.script({ reply: [{ type: "text", text: "done" }] });
}

/** A workspace with the file the calls read and edit. */
export async function workspace(): Promise<string> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-session-" }),
  );
  await Deno.writeTextFile(
    `${dir}/notes.txt`,
    Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join(""),
  );
  return dir;
}

/** What one scripted session cost wave. */
interface SessionCost {
  /** Wall time from the user line to the result. */
  ms: number;
  /** wave's RSS (MB) and threads once the result has arrived. */
  rssMb: number;
  threads: number;
  /** Of the RSS: wave's own pages, and pages of files (the deno binary). */
  anonMb: number;
  fileMb: number;
}

/** wave's wall time for the whole session, and its memory at the end. */
async function waveSession(
  provider: "anthropic" | "openai",
  mock: MockModel,
): Promise<SessionCost> {
  const dir = await workspace();
  script(mock);
  const wave = new BenchWave([
    "--workspace",
    dir,
    "--model",
    `${provider}:bench-model`,
    "--base-url",
    provider === "anthropic" ? mock.url : `${mock.url}/v1`,
    "--max-turns",
    String(TURNS + 5),
  ], {
    WAVE_HOME: `${dir}/.home`,
    PATH: Deno.env.get("PATH")!,
    ANTHROPIC_API_KEY: "sk-bench",
    OPENAI_API_KEY: "sk-bench",
  });
  await wave.ready();
  let finished!: (m: Record<string, unknown>) => void;
  const done = new Promise<Record<string, unknown>>((r) => finished = r);
  wave.onMessage((m) => {
    if (m.type === "result") finished(m);
  });
  const ms = await time(async () => {
    await wave.write(
      JSON.stringify({
        type: "user",
        message: { role: "user", content: "go" },
      }) + "\n",
    );
    const result = await done;
    if (result.is_error) throw new Error(JSON.stringify(result));
  });
  const memory = await sample(wave.child.pid);
  await wave.close();
  await Deno.remove(dir, { recursive: true });
  return { ms, ...memory };
}

/**
 * The RSS of a bare Deno process (wave's flags) shaped as wave is after a
 * session, doing none of its work: the main thread and two workers (wave's
 * readers' and writers' sandbox workers) with nothing loaded, one
 * request to the mock server and one process run. What Deno itself costs
 * before any of wave's code: the floor under the RSS figure.
 */
async function bareRss(
  mock: MockModel,
): Promise<Awaited<ReturnType<typeof sample>>> {
  const dir = await Deno.makeTempDir({ prefix: "wave-bench-rss-" });
  await Deno.writeTextFile(`${dir}/worker.ts`, "self.postMessage(0);\n");
  const url = JSON.stringify(`${mock.url}/v1/messages`);
  await Deno.writeTextFile(
    `${dir}/bare.ts`,
    `const workers = [0, 1].map(() =>
  new Worker(new URL("./worker.ts", import.meta.url), { type: "module" })
);
await Promise.all(workers.map((w) => new Promise((r) => w.onmessage = r)));
await (await fetch(${url}, { method: "POST", body: "{}" })).arrayBuffer();
await new Deno.Command("true").output();
console.log(JSON.stringify({ type: "system", subtype: "init" }));
for await (const _ of Deno.stdin.readable);
Deno.exit(0);
`,
  );
  const bare = new BenchWave(
    [],
    { PATH: Deno.env.get("PATH")! },
    scriptArgs(`${dir}/bare.ts`),
  );
  await bare.ready();
  const memory = await sample(bare.child.pid);
  await bare.close();
  await Deno.remove(dir, { recursive: true });
  return memory;
}

/** The floor: the same exchanges by a bare client, and the same calls through call_tool. */
export async function floor(
  mock: MockModel,
  requests: MockModel["requests"],
  turns = TURNS,
): Promise<number> {
  script(mock, turns);
  let http = 0;
  for (const request of requests) {
    http += await time(async () => {
      const response = await fetch(`${mock.url}${request.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request.body),
      });
      await response.arrayBuffer();
    });
  }
  const dir = await workspace();
  const wave = new BenchWave(["--workspace", dir], {
    WAVE_HOME: `${dir}/.home`,
    PATH: Deno.env.get("PATH")!,
  });
  await wave.ready();
  let id = 0;
  const tools = await time(async () => {
    for (let i = 0; i < turns; i++) {
      await Promise.all(
        callsOf(i).map(([tool_name, input]) =>
          wave.request(`c${id++}`, { subtype: "call_tool", tool_name, input })
        ),
      );
    }
  });
  await wave.close();
  await Deno.remove(dir, { recursive: true });
  return http + tools;
}

/** wave's session ÷ its floor, and its RSS after it, for each provider. */
export async function session(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const provider of ["anthropic", "openai"] as const) {
    const mock = new MockModel();
    await waveSession(provider, mock); // warm-up: caches, page cache
    mock.requests.length = 0;
    const { ms: wall, rssMb, threads, anonMb, fileMb } = await waveSession(
      provider,
      mock,
    );
    const requests = [...mock.requests];
    const base = await floor(mock, requests);
    mock.script({ status: 404 });
    const bare = await bareRss(mock);
    await mock.close();
    figures.push({
      name: `${TURNS}-turn session (${provider}) ÷ its HTTP + tool floor`,
      value: wall / base,
      unit: "×",
      target: "≤ 1.15",
      ok: wall / base <= 1.15,
      detail: `${wall.toFixed(0)} ms vs ${
        base.toFixed(0)
      } ms (${requests.length} requests)`,
    }, {
      name: `RSS of wave after the ${TURNS}-turn session (${provider})`,
      value: rssMb,
      unit: "MB",
      target: "≤ 90",
      ok: rssMb <= 90,
      detail: `${threads} threads; own pages ${anonMb.toFixed(0)} MB, the ` +
        `binary's and other files' ${fileMb.toFixed(0)} MB`,
    }, {
      name:
        `RSS floor: a bare Deno process with two idle workers (${provider})`,
      value: bare.rssMb,
      unit: "MB",
      detail: `${bare.threads} threads; own pages ${
        bare.anonMb.toFixed(0)
      } MB, files ${bare.fileMb.toFixed(0)} MB`,
    });
  }
  return figures;
}
