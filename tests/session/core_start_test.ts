/**
 * The core's early start (session/core_start.ts): the readers' worker the
 * CLI boots before the session loads is the very worker the session's
 * read-only calls then use, the toolsets' read-only entries are the tools
 * that share it, and a start made for another config is not used.
 */

import assert from "node:assert/strict";
import { type Config, parseFlags, warmupDirOf } from "../../session/config.ts";
import { openCore } from "../../session/core.ts";
import {
  bootReaders,
  READERS_SCOPES,
  startCore,
} from "../../session/core_start.ts";
import { FILE_PROGRAMS } from "../../session/executor.ts";
import { ParentRequests } from "../../session/parent_requests.ts";
import { loadTool } from "../../tools/loaders.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { tempDir } from "../_temp.ts";

async function configFor(toolset = "wave"): Promise<{
  config: Config;
  remove(): Promise<void>;
}> {
  const workspace = await Deno.realPath(await tempDir({ prefix: "wave-cs-" }));
  const home = await Deno.realPath(await tempDir({ prefix: "wave-cs-home-" }));
  await Deno.writeTextFile(`${workspace}/notes.txt`, "line 1\nline 2\n");
  const parsed = parseFlags(
    ["--workspace", workspace, "--toolset", toolset],
    { get: (name) => name === "WAVE_HOME" ? home : undefined },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  return {
    config: parsed.config,
    async remove() {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

const coreOptions = (toolset: string) => ({
  modules: TOOLSETS[toolset].map(builtinRef),
  parent: { ask: () => Promise.resolve({ allowed: false, message: "no" }) },
  requests: new ParentRequests(() => {}),
  onEvent: () => {},
});

/** The read-only entries of a toolset: what the CLI has the readers' worker load. */
const readOnly = (toolset: string) =>
  TOOLSETS[toolset].filter((e) => e.mode === "ask").map(builtinRef);

Deno.test("every toolset's read-only entries are the tools that share the readers' worker", async () => {
  for (const toolset of TOOLSET_NAMES) {
    for (const entry of TOOLSETS[toolset]) {
      const { scopes } = await loadTool(builtinRef(entry));
      const sharesReaders = scopes.read === true && !scopes.write &&
        (scopes.run ?? []).every((name) => FILE_PROGRAMS.includes(name));
      assert.equal(
        entry.mode === "ask",
        sharesReaders,
        `${toolset}/${entry.name}: mode ${entry.mode}, scopes ${
          JSON.stringify(scopes)
        }`,
      );
    }
  }
  assert.deepEqual(READERS_SCOPES.run, [...FILE_PROGRAMS]);
});

Deno.test("the readers' worker booted before the core opens serves the session's read-only calls", async () => {
  const { config, remove } = await configFor();
  const started = await startCore(config);
  await bootReaders(started, readOnly("wave"));
  assert.equal(started.executor.workers, 1);
  const core = await openCore(config, { ...coreOptions("wave"), started });
  try {
    assert.equal(core.config.waveHome, started.config.waveHome);
    for (
      const [tool, input] of [
        ["Read", { file_path: "notes.txt" }],
        ["Grep", { pattern: "line", path: "notes.txt" }],
        ["Glob", { pattern: "*.txt" }],
      ] as const
    ) {
      const call = core.calls.prepare(tool, input);
      if ("error" in call) throw new Error(call.error);
      const result = await core.calls.run(call, new AbortController().signal);
      assert.equal(result.is_error, false, JSON.stringify(result));
    }
    // The same worker: no other was started for them.
    assert.equal(started.executor.workers, 1);
  } finally {
    await core.close();
    await remove();
  }
  assert.equal(started.executor.workers, 0);
});

Deno.test("a start made for another config is closed, and the core starts its own", async () => {
  const one = await configFor();
  const other = await configFor();
  const started = await startCore(one.config);
  await bootReaders(started, readOnly("wave"));
  assert.equal(started.executor.workers, 1);
  const core = await openCore(other.config, {
    ...coreOptions("wave"),
    started,
  });
  try {
    assert.equal(started.executor.workers, 0);
    assert.equal(
      await Deno.stat(warmupDirOf(started.config)).catch(() => null),
      null,
      "the other start's warm-up directory is removed",
    );
    assert.equal(core.config.workspace, other.config.workspace);
    const call = core.calls.prepare("Read", { file_path: "notes.txt" });
    if ("error" in call) throw new Error(call.error);
    const result = await core.calls.run(call, new AbortController().signal);
    assert.equal(result.is_error, false, JSON.stringify(result));
  } finally {
    await core.close();
    await one.remove();
    await other.remove();
  }
});
