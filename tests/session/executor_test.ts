/**
 * The sandbox executor's lifecycle: idle warm workers are retired (never
 * one with a call in flight), one-off workers end with their call, and a
 * call of a tool that runs no commands answers with an error when its
 * deadline passes, its worker replaced.
 */

import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import {
  type ExecOutcome,
  type ExecutorOptions,
  SandboxExecutor,
} from "../../session/executor.ts";
import { ProcessGroups } from "../../tools/kernel/processes.ts";
import type { Scopes, ToolEvent } from "../../tools/kernel/tool.ts";
import { resolveInWorkspace } from "../../tools/kernel/workspace.ts";
import { waitUntil } from "../_waiting.ts";
import { FIXTURE_TOOLS, ROOT } from "../_wave.ts";
import { tempDir, tempFile } from "../_temp.ts";
import { historyDir } from "../../tools/_core/history_dir.ts";

const fixture = (file: string) =>
  pathToFileURL(`${FIXTURE_TOOLS}/${file}`).href;
const TOOLS = {
  Echo: { module: fixture("echo.ts"), scopes: { read: true } },
  Sleep: { module: fixture("sleep.ts"), scopes: { read: true } },
  Hang: { module: fixture("hang.ts"), scopes: { read: true } },
  PathRead: { module: fixture("read_path.ts"), scopes: { read: true } },
  Transcribe: { module: fixture("transcribe.ts"), scopes: { read: true } },
  LoadedAt: { module: fixture("loaded_at.ts"), scopes: { read: true } },
  EnvProbe: { module: fixture("env_probe.ts"), scopes: { read: true } },
  Spawn: {
    module: fixture("spawn.ts"),
    scopes: { read: true, run: ["sleep"] },
  },
} as const;

interface CallOptions {
  /** A path outside the workspace the call is approved for (a one-off worker). */
  approved?: string;
  /** The tool's scopes, instead of its own. */
  scopes?: Scopes;
  signal?: AbortSignal;
  /** What the main thread does for the tool's `ctx.transcribe`. */
  transcribe?: (path: string) => Promise<string>;
}

interface Harness {
  executor: SandboxExecutor;
  workspace: string;
  /** Runs one call; `events` collects what it emits. */
  call(
    tool: keyof typeof TOOLS,
    input: Record<string, unknown>,
    options?: CallOptions,
  ): { outcome: Promise<ExecOutcome>; events: ToolEvent[] };
}

let nextCall = 1;

async function harness(options: Partial<ExecutorOptions>): Promise<Harness> {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-exec-" }),
  );
  const waveHome = await Deno.realPath(
    await tempDir({ prefix: "wave-exec-home-" }),
  );
  const executor = new SandboxExecutor({
    workspace,
    waveHome,
    historyDir: historyDir({ workspace, waveHome }),
    processes: new ProcessGroups(),
    moduleDirs: [ROOT, FIXTURE_TOOLS],
    ...options,
  });
  const sleep = new Deno.Command("which", { args: ["sleep"] }).outputSync();
  const programs = { sleep: new TextDecoder().decode(sleep.stdout).trim() };
  return {
    executor,
    workspace,
    call(tool, input, options = {}) {
      const { approved } = options;
      const events: ToolEvent[] = [];
      const id = `call-${nextCall++}`;
      const { module } = TOOLS[tool];
      const scopes: Scopes = options.scopes ?? TOOLS[tool].scopes;
      const outcome = executor.run({
        callId: id,
        toolName: tool,
        module,
        scopes,
        input,
        signal: options.signal ?? new AbortController().signal,
        onEvent: (event) => events.push(event),
        transcribe: options.transcribe,
        ctx: {
          workspace,
          sessionId: "s",
          toolUseId: id,
          waveHome,
          spillDir: waveHome,
          limits: { maxReadTokens: 25_000 },
          shellSandbox: { kind: "none" },
          markerPrefix: `${Deno.pid}-test`,
          taskListId: "t",
          env: {},
          programs: tool === "Spawn" ? programs : {},
          paths: approved
            ? { [approved]: resolveInWorkspace(workspace, approved) }
            : {},
          approved: approved ? [approved] : [],
          readState: {},
          stt: options.transcribe ? "openai:test" : null,
          task: { id: "task-s", goal: "" },
          historyLimits: { maxAgeMs: 1e12, maxBytes: 1 << 30 },
          outputDir: `${workspace}/output`,
          openWith: "none",
        },
        grants: approved ? { read: [approved], write: [] } : undefined,
      });
      return { outcome, events };
    },
  };
}

const started = (events: ToolEvent[]) => () =>
  events.some((e) => e.type === "output");

Deno.test("executor: a warm worker unused for the idle time is retired, and a fresh one takes the next call", async () => {
  const h = await harness({ idleMs: 50 });
  try {
    const first = await h.call("Echo", { text: "one" }).outcome;
    assert.equal(first.result.content, "one");
    assert.equal(h.executor.workers, 1);
    await waitUntil(() => h.executor.workers === 0, "the idle worker retired");
    const second = await h.call("Echo", { text: "two" }).outcome;
    assert.deepEqual(second.result, {
      content: "two",
      structured: { length: 3 },
    });
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: a worker with a call in flight is not retired when another call on it ends", async () => {
  const h = await harness({ idleMs: 20 });
  try {
    // Both run on one worker (same permissions); the Echo ends first,
    // and the Sleep outlasts the idle time many times over.
    const sleep = h.call("Sleep", { ms: 400 });
    await waitUntil(started(sleep.events), "the Sleep to start");
    assert.equal(
      (await h.call("Echo", { text: "x" }).outcome).result.content,
      "x",
    );
    const slept = await sleep.outcome;
    assert.equal(slept.result.content, "slept");
    assert.equal(slept.result.isError, undefined);
    assert.equal(h.executor.workers, 1);
    await waitUntil(() => h.executor.workers === 0, "the idle worker retired");
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: a one-off worker for an approved outside path ends with its call", async () => {
  const h = await harness({});
  const outside = await tempFile({ prefix: "wave-exec-outside-" });
  await Deno.writeTextFile(outside, "out there");
  const real = await Deno.realPath(outside);
  try {
    const { result } = await h.call("PathRead", { path: real }, {
      approved: real,
    }).outcome;
    assert.deepEqual(result, { content: "out there", structured: { real } });
    assert.equal(h.executor.workers, 0);
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: a call past its deadline answers with an error naming the tool, the deadline and what to try; its worker is replaced", async () => {
  const h = await harness({ deadlineMs: 300, abortGraceMs: 200 });
  try {
    const hang = h.call("Hang", { how: "busy" });
    const { result } = await hang.outcome;
    assert.deepEqual(result, {
      content:
        "Hang did not finish within its deadline of 300 ms, so it was stopped and its sandbox worker replaced. Try a smaller request: a narrower range (offset and limit), a more specific path or pattern.",
      isError: true,
      structured: { type: "deadline_exceeded", deadline_ms: 300 },
    });
    assert.equal(h.executor.workers, 0);
    const after = await h.call("Echo", { text: "still here" }).outcome;
    assert.equal(after.result.content, "still here");
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: other calls on a worker whose call passed its deadline are still served by it", async () => {
  const h = await harness({ deadlineMs: 150, abortGraceMs: 5_000 });
  try {
    // A Sleep declared as a command tool has no deadline of its own; with
    // no programs found it shares the Hang's worker.
    const stopSleep = new AbortController();
    const sleep = h.call("Sleep", { ms: 60_000 }, {
      scopes: { read: true, run: ["none"] },
      signal: stopSleep.signal,
    });
    await waitUntil(started(sleep.events), "the Sleep to start");
    const hang = h.call("Hang", { how: "wait" });
    await waitUntil(started(hang.events), "the Hang to start");
    await waitUntil(
      () => hang.events.some((e) => e.type === "output" && /stop/.test(e.text)),
      "the deadline to ask the Hang to stop",
    );
    // Past the deadline the worker takes no more calls: the next goes to a
    // fresh worker, and the old one ends once the Sleep has answered.
    const fresh = await h.call("Echo", { text: "fresh" }).outcome;
    assert.equal(fresh.result.content, "fresh");
    assert.equal(h.executor.workers, 2);
    stopSleep.abort();
    const slept = await sleep.outcome;
    assert.equal(slept.result.content, "interrupted", "the tool's own answer");
    assert.deepEqual((await hang.outcome).result.structured, {
      type: "deadline_exceeded",
      deadline_ms: 150,
    });
    await waitUntil(() => h.executor.workers === 1, "the old worker ended");
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: a tool that runs commands has no deadline (its own timeout rules)", async () => {
  const h = await harness({ deadlineMs: 50 });
  try {
    const { result } = await h.call("Spawn", { seconds: 0.5 }).outcome;
    assert.equal(result.content, "exited 0");
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: the deadline stops while the call waits for a transcript from the main thread", async () => {
  const h = await harness({ deadlineMs: 200, abortGraceMs: 200 });
  try {
    const asked: string[] = [];
    // The worker opens what it asks for: the files exist.
    await Deno.writeTextFile(`${h.workspace}/a.wav`, "RIFF");
    await Deno.writeTextFile(`${h.workspace}/x.wav`, "RIFF");
    const x = `${h.workspace}/x.wav`;
    const { outcome } = h.call("Transcribe", { path: "a.wav", ask: x }, {
      transcribe: (path) => {
        asked.push(path);
        // Longer than the whole deadline: it must not count.
        return new Promise((resolve) => setTimeout(() => resolve("text"), 600));
      },
    });
    assert.deepEqual((await outcome).result, { content: "text" });
    assert.deepEqual(asked, [x]);
    const failed = await h.call("Transcribe", { path: "a.wav" }, {
      transcribe: () =>
        Promise.reject(
          Object.assign(new Error("the API said no"), {
            structured: { type: "transcription_failed", status: 500 },
          }),
        ),
    }).outcome;
    assert.deepEqual(failed.result, {
      content: "the API said no",
      isError: true,
      structured: { type: "transcription_failed", status: 500 },
    });
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: prewarm starts a tool's worker and loads its module before its first call, which then runs on that worker", async () => {
  const h = await harness({});
  try {
    h.executor.prewarm({ read: true }, [], [TOOLS.LoadedAt.module]);
    assert.equal(h.executor.workers, 1);
    // Idle time, as after system/init; a worker starts in well under this.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const sentAt = Date.now();
    const { result } = await h.call("LoadedAt", {}).outcome;
    const { loadedAt, ranAt } = result.structured as Record<string, number>;
    assert.ok(
      loadedAt < sentAt,
      `the module was loaded ${loadedAt - sentAt} ms after the call was sent`,
    );
    assert.ok(ranAt >= sentAt);
    assert.equal(h.executor.workers, 1, "the call ran on the prewarmed worker");
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: a prewarmed worker nobody calls is retired after the idle time", async () => {
  const h = await harness({ idleMs: 50 });
  try {
    h.executor.prewarm({ read: true }, [], [TOOLS.Echo.module]);
    assert.equal(h.executor.workers, 1);
    await waitUntil(() => h.executor.workers === 0, "the idle worker retired");
  } finally {
    h.executor.close();
  }
});

Deno.test("executor: a worker reads no environment variable, but one that runs ripgrep reads the one Node's spawn needs", async () => {
  const { executor, call } = await harness({});
  try {
    const names = ["NODE_V8_COVERAGE", "HOME", "PATH", "ANTHROPIC_API_KEY"];
    const plain = await call("EnvProbe", { names }).outcome;
    assert.equal(plain.result.content, "");
    const searcher = await call("EnvProbe", { names }, {
      scopes: { read: true, run: ["rg"] },
    }).outcome;
    assert.equal(searcher.result.content, "NODE_V8_COVERAGE");
  } finally {
    await executor.close();
  }
});
