/**
 * The session's warm-up (`ToolCalls.prewarm`): in every toolset, each
 * read and edit tool runs its warm-up calls, and each succeeds, in a
 * scratch workspace that is removed afterwards; the session's workspace,
 * read-state and file history are left as they were; and the warm-up
 * waits while a real call is in flight, and stops when told to.
 */

import assert from "node:assert/strict";
import { lutimesSync } from "node:fs";
import { dirname } from "node:path";
import { type Config, parseFlags } from "../../session/config.ts";
import { type Core, openCore } from "../../session/core.ts";
import { ParentRequests } from "../../session/parent_requests.ts";
import { warmupDirOf } from "../../session/config.ts";
import { STALE_WARMUP_MS } from "../../session/tool_calls.ts";
import type { ApprovalDecision } from "../../session/approvals.ts";
import { historyDir } from "../../tools/_core/history_dir.ts";
import { WARMUP_FILES } from "../../tools/kernel/tool.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { waitUntil } from "../_waiting.ts";
import { tempDir } from "../_temp.ts";

/** The session's own notes.txt: named as the scratch one is, with other bytes. */
const NOTES = "line 1\nline 2\nline 3\nline 4\n";

interface Session {
  core: Core;
  config: Config;
  workspace: string;
  close(): Promise<void>;
}

async function session(
  toolset: string,
  flags: string[] = [],
  ask: () => Promise<ApprovalDecision> = () =>
    Promise.resolve({ allowed: false, message: "no" }),
  before: (config: Config) => void = () => {},
): Promise<Session> {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-warmup-" }),
  );
  const home = await Deno.realPath(
    await tempDir({ prefix: "wave-warmup-home-" }),
  );
  await Deno.writeTextFile(`${workspace}/notes.txt`, NOTES);
  const parsed = parseFlags(
    ["--workspace", workspace, "--toolset", toolset, ...flags],
    { get: (name) => name === "WAVE_HOME" ? home : undefined },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  before(parsed.config);
  const core = await openCore(parsed.config, {
    modules: TOOLSETS[toolset].map(builtinRef),
    parent: { ask },
    requests: new ParentRequests(() => {}),
    onEvent: () => {},
  });
  return {
    core,
    config: core.config,
    workspace,
    async close() {
      await core.close();
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** Each toolset's warm-up calls, in order: the read-only tools', then the writers'. */
const WARMED: Record<string, string[]> = {
  wave: ["Read", "Read", "Glob", "Grep", "Grep", "TaskList", "Write", "Edit"],
  sata: ["read", "list", "grep", "find", "write", "edit"],
  devflow: [
    "read_file",
    "list_directory",
    "search_in_file",
    "file_info",
    "search_files",
    "write_file",
    "patch_file",
    "append_file",
  ],
  files: ["find_files", "find_files", "read_files", "edit_file"],
};

for (const toolset of TOOLSET_NAMES) {
  Deno.test(`prewarm (${toolset}): every warm-up call succeeds in the scratch workspace, which is removed; the session's workspace, read-state and history are untouched`, async () => {
    const s = await session(toolset);
    try {
      const started: string[] = [];
      const made = await s.core.calls.prewarm({
        onCall: (tool) => started.push(tool),
      });
      assert.deepEqual(made.map((call) => call.tool), WARMED[toolset]);
      assert.deepEqual(started, WARMED[toolset]);
      for (const call of made) {
        assert.equal(
          call.result.is_error,
          false,
          `${call.tool} ${JSON.stringify(call.input)}: ${
            JSON.stringify(call.result.content)
          }`,
        );
      }
      assert.equal(
        await Deno.stat(warmupDirOf(s.config)).catch(() => null),
        null,
        "the scratch directory is removed",
      );
      const entries = [...Deno.readDirSync(s.workspace)].map((e) => e.name);
      assert.deepEqual(entries, ["notes.txt"]);
      assert.equal(await Deno.readTextFile(`${s.workspace}/notes.txt`), NOTES);
      assert.equal(
        await Deno.stat(historyDir(s.config)).then(
          () => [...Deno.readDirSync(historyDir(s.config))].length,
          () => 0,
        ),
        0,
        "nothing in the session's file history",
      );
    } finally {
      await s.close();
    }
  });
}

Deno.test("prewarm: the warm-up's reads are not the session's (Edit still needs the session's own Read)", async () => {
  const s = await session("wave");
  try {
    const made = await s.core.calls.prewarm();
    assert.ok(made.some((call) => call.tool === "Read"));
    const edit = s.core.calls.prepare("Edit", {
      file_path: "notes.txt",
      old_string: "line 1\n",
      new_string: "line one\n",
    });
    if ("error" in edit) throw new Error(edit.error);
    const result = await s.core.calls.run(edit, new AbortController().signal);
    assert.equal(result.is_error, true, JSON.stringify(result));
    assert.equal(
      (result.structured as { type?: string }).type,
      "not_read",
      JSON.stringify(result),
    );
    assert.equal(await Deno.readTextFile(`${s.workspace}/notes.txt`), NOTES);
  } finally {
    await s.close();
  }
});

Deno.test("prewarm's calls take no number from the session's tool_use ids (a parent's first call is toolu_wave_1 whenever it comes)", async () => {
  const s = await session("wave");
  try {
    const idOf = () => {
      const call = s.core.calls.prepare("Read", { file_path: "notes.txt" });
      if ("error" in call) throw new Error(call.error);
      return Number(call.toolUseId.replace("toolu_wave_", ""));
    };
    const before = idOf();
    const made = await s.core.calls.prewarm();
    assert.ok(made.length > 0);
    assert.equal(idOf(), before + 1);
  } finally {
    await s.close();
  }
});

Deno.test("prewarm waits while a real call is in flight, and goes on once it has answered", async () => {
  const answer = Promise.withResolvers<ApprovalDecision>();
  let asked = false;
  const s = await session("wave", ["--approvals", "parent"], () => {
    asked = true;
    return answer.promise;
  });
  try {
    // A Read outside the workspace waits for the parent's approval.
    const outside = `${s.workspace}-outside.txt`;
    await Deno.writeTextFile(outside, "elsewhere\n");
    const read = s.core.calls.prepare("Read", { file_path: outside });
    if ("error" in read) throw new Error(read.error);
    const log: string[] = [];
    const call = s.core.calls.run(read, new AbortController().signal)
      .then((result) => {
        log.push("answered");
        return result;
      });
    await waitUntil(() => asked, "the parent was asked about the Read");
    const warming = s.core.calls.prewarm({
      onCall: (tool) => log.push(tool),
    });
    // Long enough for the warm-up to have started its workers and run
    // its calls (it takes well under this) had it not waited.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(log, [], "nothing was warmed while the call waited");
    answer.resolve({ allowed: true });
    const result = await call;
    await Deno.remove(outside);
    assert.equal(result.is_error, false, JSON.stringify(result));
    await warming;
    assert.deepEqual(log, ["answered", ...WARMED.wave]);
  } finally {
    await s.close();
  }
});

Deno.test("prewarm waits while real work is held (a turn sending its first request), until every hold is released; releasing one twice counts once", async () => {
  const s = await session("wave");
  try {
    const log: string[] = [];
    const note = (what: string) => log.push(what);
    const turn = s.core.calls.hold();
    const other = s.core.calls.hold();
    const warming = s.core.calls.prewarm({ onCall: note });
    turn();
    turn();
    // Long enough for the warm-up to have run had it not waited.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual(log, [], "nothing was warmed while a hold remained");
    note("released");
    other();
    await warming;
    assert.deepEqual(log, ["released", ...WARMED.wave]);
  } finally {
    await s.close();
  }
});

Deno.test("prewarm stops at its next step once its signal aborts, and leaves no scratch directory", async () => {
  const s = await session("wave");
  try {
    const stop = new AbortController();
    const made = await s.core.calls.prewarm({
      signal: stop.signal,
      onCall: () => stop.abort(),
    });
    assert.deepEqual(made.map((call) => call.tool), ["Read"]);
    assert.equal(
      await Deno.stat(warmupDirOf(s.config)).catch(() => null),
      null,
    );
  } finally {
    await s.close();
  }
});

Deno.test("prewarm without a scratch directory (a file is in its place) makes no warm-up call, still starts the workers, and does not fail", async () => {
  const s = await session("wave", [], undefined, (config) => {
    Deno.mkdirSync(dirname(warmupDirOf(config)), { recursive: true });
    Deno.writeTextFileSync(warmupDirOf(config), "not a directory");
  });
  try {
    assert.deepEqual(await s.core.calls.prewarm(), []);
    assert.equal(
      Deno.readTextFileSync(warmupDirOf(s.config)),
      "not a directory",
    );
    const read = s.core.calls.prepare("Read", { file_path: "notes.txt" });
    if ("error" in read) throw new Error(read.error);
    const result = await s.core.calls.run(read, new AbortController().signal);
    assert.equal(result.is_error, false, JSON.stringify(result));
  } finally {
    await s.close();
  }
});

Deno.test("WARMUP_FILES: every path is relative and inside the scratch workspace", () => {
  for (const path of Object.keys(WARMUP_FILES)) {
    assert.ok(!path.startsWith("/") && !path.split("/").includes(".."), path);
  }
});

Deno.test("prewarm sweeps the warm-up directories killed sessions left (older than STALE_WARMUP_MS), and nothing else", async () => {
  const s = await session("wave");
  const outside = await tempDir({ prefix: "wave-warmup-outside-" });
  try {
    const warmups = dirname(warmupDirOf(s.config));
    const old = new Date(Date.now() - STALE_WARMUP_MS - 60_000);
    const leftover = (id: string, stale: boolean) => {
      Deno.mkdirSync(`${warmups}/${id}/workspace`, { recursive: true });
      Deno.writeTextFileSync(`${warmups}/${id}/workspace/notes.txt`, "x");
      if (stale) Deno.utimeSync(`${warmups}/${id}`, old, old);
    };
    leftover("killed", true);
    leftover("running", false);
    // A session's spill files are elsewhere, and stay.
    const spill = `${s.config.waveHome}/spill/killed`;
    Deno.mkdirSync(spill, { recursive: true });
    Deno.writeTextFileSync(`${spill}/toolu_1.log`, "kept");
    Deno.utimeSync(spill, old, old);
    // A link is no warm-up directory, however old: it and what it
    // points at stay.
    Deno.writeTextFileSync(`${outside}/keep.txt`, "kept");
    Deno.utimeSync(outside, old, old);
    Deno.symlinkSync(outside, `${warmups}/linked`);
    lutimesSync(`${warmups}/linked`, old, old);

    await s.core.calls.prewarm();

    const exists = (path: string) => {
      try {
        Deno.lstatSync(path);
        return true;
      } catch {
        return false;
      }
    };
    assert.equal(exists(`${warmups}/killed`), false);
    assert.equal(
      Deno.readTextFileSync(`${warmups}/running/workspace/notes.txt`),
      "x",
    );
    assert.equal(Deno.readTextFileSync(`${spill}/toolu_1.log`), "kept");
    assert.equal(Deno.lstatSync(`${warmups}/linked`).isSymlink, true);
    assert.equal(Deno.readTextFileSync(`${outside}/keep.txt`), "kept");
  } finally {
    await s.close();
    await Deno.remove(outside, { recursive: true });
  }
});
