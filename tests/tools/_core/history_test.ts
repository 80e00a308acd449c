/** File history (tools/_core/history.ts): one snapshot layer per workspace, blobs by hash, torn lines, retention, all-or-nothing restores. */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type HistoryContext,
  listVersions,
  prune,
  recordVersion,
  recoverRollbacks,
  restoreFiles,
  taskStart,
  versionBytes,
} from "../../../tools/_core/history.ts";
import {
  contentHash,
  loadContentHash,
} from "../../../tools/_core/content_hash.ts";
import { historyDir } from "../../../tools/_core/history_dir.ts";
import { tempDir } from "../../_temp.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const enc = new TextEncoder();
const dec = new TextDecoder();

async function setup(): Promise<HistoryContext> {
  const workspace = await Deno.realPath(await tempDir());
  const waveHome = await tempDir();
  return {
    workspace,
    waveHome,
    sessionId: "s1",
    task: { id: "t1", goal: "fix the bug" },
  };
}

async function blobs(ctx: HistoryContext): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(join(historyDir(ctx), "blobs"))) {
    names.push(e.name);
  }
  return names.sort();
}

Deno.test("history: a version records id, real path, time, tool, task, session, existence, size and hash; equal bytes share one blob", async () => {
  const ctx = await setup();
  const path = join(ctx.workspace, "a.txt");
  const v1 = await recordVersion(ctx, path, "Edit", enc.encode("same\n"));
  const v2 = await recordVersion(ctx, path, "write", enc.encode("same\n"));
  const v3 = await recordVersion(
    ctx,
    join(ctx.workspace, "new"),
    "Write",
    null,
  );
  assert.deepEqual(Object.keys(v1).sort(), [
    "at",
    "existed",
    "hash",
    "id",
    "path",
    "session",
    "size",
    "task",
    "tool",
  ]);
  assert.equal(v1.path, path);
  assert.equal(v1.tool, "Edit");
  assert.deepEqual(v1.task, { id: "t1", goal: "fix the bug" });
  assert.equal(v1.session, "s1");
  assert.equal(v1.size, 5);
  assert.equal(v1.hash, contentHash(enc.encode("same\n")));
  assert.ok(!Number.isNaN(Date.parse(v1.at)));
  assert.notEqual(v1.id, v2.id);
  assert.deepEqual(await blobs(ctx), [v1.hash]);
  assert.equal(v3.existed, false);
  assert.equal(v3.hash, null);
  assert.equal(await versionBytes(ctx, v3), null);
  assert.equal(dec.decode((await versionBytes(ctx, v2))!), "same\n");
  assert.deepEqual((await listVersions(ctx)).map((v) => v.id), [
    v1.id,
    v2.id,
    v3.id,
  ]);
});

Deno.test("history: a blob is shared only by equal bytes: bytes whose hash names a blob holding other bytes (a collision) go to <hash>-1, and the blob there is left as it was", async () => {
  const ctx = await setup();
  const path = join(ctx.workspace, "a.txt");
  const mine = enc.encode("mine\n");
  const hash = contentHash(mine);
  // What a collision would leave: the blob of this hash holds other bytes,
  // of the same size and of another.
  await Deno.mkdir(join(historyDir(ctx), "blobs"), { recursive: true });
  await Deno.writeTextFile(join(historyDir(ctx), "blobs", hash), "them\n");
  await Deno.writeTextFile(join(historyDir(ctx), "blobs", `${hash}-1`), "x");
  const v1 = await recordVersion(ctx, path, "Edit", mine);
  assert.equal(v1.hash, `${hash}-2`);
  assert.deepEqual(await versionBytes(ctx, v1), mine);
  assert.equal(
    await Deno.readTextFile(join(historyDir(ctx), "blobs", hash)),
    "them\n",
  );
  // The same bytes again share the blob they are in.
  const v2 = await recordVersion(ctx, path, "Edit", mine);
  assert.equal(v2.hash, `${hash}-2`);
  assert.deepEqual(await blobs(ctx), [hash, `${hash}-1`, `${hash}-2`]);
});

Deno.test("history: kept per workspace, so two sessions on one workspace share it and another workspace has its own", async () => {
  const ctx = await setup();
  const other = { ...ctx, sessionId: "s2", task: { id: "t2", goal: "" } };
  await recordVersion(ctx, join(ctx.workspace, "a"), "Edit", enc.encode("1"));
  await recordVersion(other, join(ctx.workspace, "a"), "Edit", enc.encode("2"));
  assert.deepEqual((await listVersions(ctx)).map((v) => v.session), [
    "s1",
    "s2",
  ]);
  const elsewhere = { ...ctx, workspace: await tempDir() };
  assert.deepEqual(await listVersions(elsewhere), []);
});

Deno.test("history: an index line cut short by a crash is skipped, and the next version starts on a line of its own", async () => {
  const ctx = await setup();
  const v1 = await recordVersion(ctx, "/w/a", "Edit", enc.encode("x"));
  const index = join(historyDir(ctx), "index.jsonl");
  await Deno.writeTextFile(index, '{"id":"torn","path":"/w/', { append: true });
  const v2 = await recordVersion(ctx, "/w/b", "Edit", enc.encode("y"));
  assert.deepEqual((await listVersions(ctx)).map((v) => v.id), [v1.id, v2.id]);
  const lines = (await Deno.readTextFile(index)).split("\n");
  assert.equal(lines[1], '{"id":"torn","path":"/w/');
});

Deno.test("history: retention drops the oldest versions past the size budget and deletes the blobs no version names", async () => {
  const ctx = await setup();
  const limited = { ...ctx, historyLimits: { maxAgeMs: 1e12, maxBytes: 25 } };
  const a = await recordVersion(
    limited,
    "/w/a",
    "Edit",
    enc.encode("a".repeat(10)),
  );
  const b = await recordVersion(
    limited,
    "/w/b",
    "Edit",
    enc.encode("b".repeat(10)),
  );
  // 30 bytes > 25: the oldest (a) goes, with its blob.
  const c = await recordVersion(
    limited,
    "/w/c",
    "Edit",
    enc.encode("c".repeat(10)),
  );
  assert.deepEqual((await listVersions(ctx)).map((v) => v.id), [b.id, c.id]);
  assert.deepEqual(await blobs(ctx), [b.hash, c.hash].sort());
  assert.ok(!(await blobs(ctx)).includes(a.hash!));
});

Deno.test("history: retention drops versions older than the age budget", async () => {
  const ctx = await setup();
  const old = await recordVersion(ctx, "/w/a", "Edit", enc.encode("old"));
  const index = join(historyDir(ctx), "index.jsonl");
  const text = await Deno.readTextFile(index);
  await Deno.writeTextFile(
    index,
    text.replace(old.at, new Date(Date.now() - 40 * 86400_000).toISOString()),
  );
  const fresh = await recordVersion(ctx, "/w/b", "Edit", enc.encode("new"));
  // Retention runs at most once a minute unless much was recorded: run it now.
  assert.deepEqual(await prune(ctx), [old.id]);
  assert.deepEqual((await listVersions(ctx)).map((v) => v.id), [fresh.id]);
  assert.deepEqual(await blobs(ctx), [fresh.hash]);
  assert.deepEqual(await prune(ctx), []);
});

Deno.test("history: restoreFiles changes every file or, when one step fails, puts back the ones already changed", async () => {
  const ctx = await setup();
  const a = join(ctx.workspace, "a.txt");
  const b = join(ctx.workspace, "b.txt");
  await Deno.writeTextFile(a, "a now\n");
  await Deno.writeTextFile(b, "b now\n");
  await assert.rejects(
    restoreFiles(ctx, [
      { real: a, bytes: enc.encode("a before\n") },
      { real: b, bytes: null },
    ], {
      tool: "edit_file",
      beforeStep: (i) => {
        if (i === 1) throw new Error("disk full");
      },
    }),
    /disk full/,
  );
  assert.equal(await Deno.readTextFile(a), "a now\n");
  assert.equal(await Deno.readTextFile(b), "b now\n");
  const recorded = await restoreFiles(ctx, [
    { real: a, bytes: enc.encode("a before\n") },
    { real: b, bytes: null },
  ], { tool: "edit_file" });
  assert.equal(await Deno.readTextFile(a), "a before\n");
  await assert.rejects(Deno.stat(b), Deno.errors.NotFound);
  assert.deepEqual(recorded.map((v) => [v.path, v.existed]), [[a, true], [
    b,
    true,
  ]]);
  assert.deepEqual(
    [...Deno.readDirSync(join(historyDir(ctx), "rollbacks"))],
    [],
  );
});

Deno.test("history: a restore cut short by a crash (the process exits mid-way) is undone by recoverRollbacks", async () => {
  const ctx = await setup();
  const a = join(ctx.workspace, "a.txt");
  const b = join(ctx.workspace, "b.txt");
  await Deno.writeTextFile(a, "a now\n");
  await Deno.writeTextFile(b, "b now\n");
  const module =
    new URL("../../../tools/_core/history.ts", import.meta.url).href;
  const hashModule =
    new URL("../../../tools/_core/content_hash.ts", import.meta.url).href;
  const script = `
    import { restoreFiles } from ${JSON.stringify(module)};
    import { loadContentHash } from ${JSON.stringify(hashModule)};
    await loadContentHash();
    const ctx = ${JSON.stringify(ctx)};
    await restoreFiles(ctx, [
      { real: ${
    JSON.stringify(a)
  }, bytes: new TextEncoder().encode("a before\\n") },
      { real: ${
    JSON.stringify(b)
  }, bytes: new TextEncoder().encode("b before\\n") },
    ], { tool: "edit_file", beforeStep: (i) => { if (i === 1) Deno.exit(9); } });
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 9, dec.decode(out.stderr));
  assert.equal(await Deno.readTextFile(a), "a before\n"); // half done
  assert.deepEqual(await recoverRollbacks(ctx), [a, b]);
  assert.equal(await Deno.readTextFile(a), "a now\n");
  assert.equal(await Deno.readTextFile(b), "b now\n");
  assert.deepEqual(await recoverRollbacks(ctx), []);
});

Deno.test("history: taskStart gives, per file, the earliest version of the task", async () => {
  const ctx = await setup();
  const v1 = await recordVersion(ctx, "/w/a", "Edit", enc.encode("1"));
  await recordVersion(ctx, "/w/a", "Edit", enc.encode("2"));
  const v3 = await recordVersion(ctx, "/w/b", "Write", null);
  await recordVersion(
    { ...ctx, task: { id: "t2", goal: "" } },
    "/w/c",
    "Edit",
    enc.encode("3"),
  );
  assert.deepEqual(
    taskStart(await listVersions(ctx), "t1").map((v) => v.id),
    [v1.id, v3.id],
  );
});
