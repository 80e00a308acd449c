/**
 * The sandbox worker's entry (session/_tool_worker_entry.js): it confines
 * itself before it loads any code, and a worker that could not be confined
 * runs nothing.
 */

import assert from "node:assert/strict";
import type { FromWorker, ToWorker } from "../../session/_worker_protocol.ts";
import { Access, landlockAbi } from "../../tools/kernel/landlock.ts";
import { FIXTURE_TOOLS } from "../_wave.ts";
import { tempDir } from "../_temp.ts";

const ENTRY = new URL("../../session/_tool_worker_entry.js", import.meta.url);

/** A worker of the entry that may read and write `dir` (and call libc to confine itself). */
function workerIn(dir: string): Worker {
  return new Worker(ENTRY, {
    type: "module",
    deno: {
      permissions: {
        read: true,
        write: [dir],
        run: false,
        net: false,
        env: false,
        sys: false,
        ffi: true,
      },
    },
  });
}

function call(
  dir: string,
  file: string,
  module = `${FIXTURE_TOOLS}/write_raw.ts`,
): ToWorker {
  return {
    type: "call",
    id: "c1",
    module,
    input: { file, text: "written" },
    ctx: {
      workspace: dir,
      sessionId: "s",
      toolUseId: "toolu_1",
      waveHome: dir,
      spillDir: dir,
      limits: { maxReadTokens: 25_000 },
      shellSandbox: { kind: "none" },
      markerPrefix: `${Deno.pid}-test`,
      taskListId: "t",
      env: {},
      programs: {},
      paths: {},
      approved: [],
      readState: {},
      stt: null,
      task: { id: "task-s", goal: "" },
      historyLimits: { maxAgeMs: 1e12, maxBytes: 1 << 30 },
      outputDir: `${dir}/output`,
      openWith: "none",
    },
  };
}

/**
 * The messages `worker` posts until one of type `last` (or an error: its
 * message as `why`), and any others within `quietMs` after it. (The first
 * worker of a test run waits for `deno test` to type-check its graph.)
 */
async function messagesOf(
  worker: Worker,
  last: FromWorker["type"],
  quietMs: number,
): Promise<FromWorker[]> {
  const got: FromWorker[] = [];
  const { promise, resolve } = Promise.withResolvers<void>();
  let quiet: ReturnType<typeof setTimeout> | undefined;
  const note = (message: FromWorker) => {
    got.push(message);
    if (message.type === last || quiet !== undefined) {
      clearTimeout(quiet);
      quiet = setTimeout(resolve, quietMs);
    }
  };
  worker.onerror = (event) => {
    event.preventDefault();
    note({ type: "unconfined", why: `worker error: ${event.message}` });
  };
  worker.onmessage = (event: MessageEvent<FromWorker>) => note(event.data);
  await promise;
  return got;
}

Deno.test({
  name:
    "tool worker entry: a worker whose confinement fails says so and runs no call, not even one sent with it",
  ignore: landlockAbi() <= 0,
  async fn() {
    const dir = await Deno.realPath(await tempDir());
    const file = `${dir}/out.txt`;
    Deno.writeTextFileSync(`${dir}/a_file`, "");
    const worker = workerIn(dir);
    try {
      // A directory's right on a file: the kernel refuses the rule.
      worker.postMessage(
        {
          type: "confine",
          rules: [{ path: `${dir}/a_file`, access: Access.readDir }],
        } satisfies ToWorker,
      );
      worker.postMessage(call(dir, file));
      worker.postMessage({ type: "preload", modules: [] } satisfies ToWorker);
      const got = await messagesOf(worker, "unconfined", 1500);
      assert.deepEqual(got, [{
        type: "unconfined",
        why: `landlock_add_rule failed for ${dir}/a_file`,
      }]);
      await assert.rejects(Deno.stat(file), Deno.errors.NotFound);
    } finally {
      worker.terminate();
    }
  },
});

Deno.test({
  name:
    "tool worker entry: a confined worker runs the calls that came while it loaded",
  ignore: landlockAbi() <= 0,
  async fn() {
    const dir = await Deno.realPath(await tempDir());
    const file = `${dir}/out.txt`;
    const worker = workerIn(dir);
    try {
      worker.postMessage(
        {
          type: "confine",
          rules: [
            {
              path: dir,
              access: Access.readFile | Access.writeFile | Access.readDir |
                Access.makeReg | Access.truncate,
            },
            { path: "/", access: Access.readFile | Access.readDir },
          ],
        } satisfies ToWorker,
      );
      worker.postMessage(call(dir, file));
      worker.postMessage({ type: "preload", modules: [] } satisfies ToWorker);
      const got = (await messagesOf(worker, "result", 500)).map((m) => m.type);
      // An empty preload is answered at once; the call waits for its module.
      assert.deepEqual(got.toSorted(), ["preloaded", "result", "started"]);
      assert.ok(got.indexOf("started") < got.indexOf("result"));
      assert.equal(Deno.readTextFileSync(file), "written");
    } finally {
      worker.terminate();
    }
  },
});

Deno.test({
  name:
    "tool worker entry: a confine that comes after the worker's code began to load is refused, and nothing more runs",
  ignore: landlockAbi() <= 0,
  async fn() {
    const dir = await Deno.realPath(await tempDir());
    const worker = workerIn(dir);
    try {
      worker.postMessage({ type: "preload", modules: [] } satisfies ToWorker);
      worker.postMessage(
        {
          type: "confine",
          rules: [{ path: dir, access: Access.readFile }],
        } satisfies ToWorker,
      );
      worker.postMessage(call(dir, `${dir}/out.txt`));
      const got = await messagesOf(worker, "unconfined", 1500);
      assert.deepEqual(got, [{
        type: "unconfined",
        why: "confine came after the worker's code had begun to load",
      }]);
      await assert.rejects(Deno.stat(`${dir}/out.txt`), Deno.errors.NotFound);
    } finally {
      worker.terminate();
    }
  },
});

Deno.test("tool worker entry: tool modules build their schemas with the inert z, and whatever reads one throws; the main thread's z is zod's", async () => {
  const dir = await Deno.realPath(await tempDir());
  const worker = workerIn(dir);
  const refusal =
    "threw: zod is not loaded in a sandbox worker: the main thread validates each call's input";
  try {
    worker.postMessage(call(dir, "", `${FIXTURE_TOOLS}/schema_probe.ts`));
    const got = await messagesOf(worker, "result", 0);
    const result = got.find((m) => m.type === "result");
    assert.deepEqual(
      result?.type === "result" ? result.result.content : got,
      ["safeParse", "keys", "iterate", "instanceof", "string", "json", "in"]
        .map((name) => `${name} ${refusal}`).join("\n"),
    );
  } finally {
    worker.terminate();
  }
  const { default: probe } = await import(
    `${FIXTURE_TOOLS}/schema_probe.ts`
  );
  assert.deepEqual(await probe.run({}, undefined as never), {
    content: [
      "safeParse: true",
      "keys: a",
      "iterate: a,b",
      "instanceof: true",
      "string: string",
      "json: string",
      "in: true",
    ].join("\n"),
  });
  assert.equal(probe.input.safeParse({ note: "" }).success, false);
});
