/** The write path (tools/_core/write_path.ts): checks, freshness under each rule, history, the atomic write and its record. */
import assert from "node:assert/strict";
import { listVersions, versionBytes } from "../../../tools/_core/history.ts";
import { fileRef } from "../../../tools/_core/reader.ts";
import {
  contentHash,
  loadContentHash,
} from "../../../tools/_core/content_hash.ts";
import {
  commitWrite,
  currentBytes,
  currentText,
  openForWrite,
  removeFile,
  type WriteRules,
} from "../../../tools/_core/write_path.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { TestSession, touchLater } from "../../_context.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const rules = (
  requireRead: WriteRules["requireRead"],
  history = false,
): WriteRules => ({
  requireRead,
  history,
  readTool: "look",
  directory: (shown) => `${shown} is a folder.`,
  missing: (file) => new ToolError(`no ${file.shown}`, { type: "gone" }),
});

/** The message and structured type of what `run` throws. */
async function refusal(
  run: () => Promise<unknown>,
): Promise<[string, string | undefined]> {
  try {
    await run();
  } catch (error) {
    assert.ok(error instanceof ToolError, String(error));
    return [error.message, (error.structured as { type?: string }).type];
  }
  throw new Error("not refused");
}

/** Records a whole read of `path` in the session, as a dialect's read tool does. */
async function readWhole(s: TestSession, path: string): Promise<void> {
  const real = `${s.workspace}/${path}`;
  const info = await Deno.stat(real);
  s.records.set(real, {
    mtimeMs: info.mtime!.getTime(),
    size: info.size,
    hash: contentHash(await Deno.readFile(real)),
    whole: true,
    reader: "look",
  });
}

Deno.test("write path: an existing file not read is refused only where the dialect requires a read", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "old\n");
  const ctx = s.context();
  assert.deepEqual(
    await refusal(() =>
      openForWrite(ctx, rules("existing"), fileRef(ctx, "a.txt"), {
        action: "overwrite",
      })
    ),
    [
      "a.txt has not been read in this session. Call look on it first, then overwrite it.",
      "not_read",
    ],
  );
  const target = await openForWrite(
    ctx,
    rules("never"),
    fileRef(ctx, "a.txt"),
    {
      action: "overwrite",
    },
  );
  assert.equal(target.info?.size, 4);
  assert.equal(new TextDecoder().decode(await currentBytes(target)), "old\n");
  // A new file needs no read under either rule.
  const fresh = await openForWrite(
    ctx,
    rules("existing"),
    fileRef(ctx, "new.txt"),
    { action: "overwrite" },
  );
  assert.equal(fresh.info, null);
  assert.deepEqual(await currentBytes(fresh), new Uint8Array());
  assert.equal(await currentText(fresh), undefined);
});

Deno.test("write path: a file read and changed on disk since is stale under every rule", async () => {
  for (const rule of ["existing", "never"] as const) {
    const s = await TestSession.create();
    const real = await s.write("a.txt", "one\n");
    await readWhole(s, "a.txt");
    await Deno.writeTextFile(real, "two\n");
    await touchLater(real);
    const ctx = s.context();
    assert.deepEqual(
      await refusal(() =>
        openForWrite(ctx, rules(rule), fileRef(ctx, "a.txt"), {
          action: "edit",
        })
      ),
      [
        "a.txt has changed on disk since it was last read (by the user, a formatter or another process). Call look on it again, then edit it.",
        "stale",
      ],
      rule,
    );
  }
});

Deno.test("write path: after a whole read, a touch with the same content is fresh, and the bytes read for the check are reused", async () => {
  const s = await TestSession.create();
  const real = await s.write("a.txt", "same\n");
  await readWhole(s, "a.txt");
  await touchLater(real);
  const ctx = s.context();
  const target = await openForWrite(
    ctx,
    rules("existing"),
    fileRef(ctx, "a.txt"),
    {
      action: "edit",
    },
  );
  assert.equal(new TextDecoder().decode(target.bytes), "same\n");
});

Deno.test("write path: a directory, a special file and a missing file an edit needs are refused in the dialect's words", async () => {
  const s = await TestSession.create();
  await Deno.mkdir(`${s.workspace}/dir`);
  const ctx = s.context();
  assert.deepEqual(
    await refusal(() =>
      openForWrite(ctx, rules("never"), fileRef(ctx, "dir"), { action: "x" })
    ),
    ["dir is a folder.", "is_directory"],
  );
  assert.deepEqual(
    await refusal(() =>
      openForWrite(ctx, rules("never"), fileRef(ctx, "gone.txt"), {
        action: "edit",
        mustExist: true,
      })
    ),
    ["no gone.txt", "gone"],
  );
  const mkfifo = await new Deno.Command("mkfifo", {
    args: [`${s.workspace}/pipe`],
  }).output();
  assert.equal(mkfifo.code, 0);
  assert.deepEqual(
    await refusal(() =>
      openForWrite(ctx, rules("never"), fileRef(ctx, "pipe"), { action: "x" })
    ),
    [
      "pipe is a named pipe (FIFO), not a regular file; file tools do not open it, since reading it could wait forever. Use a command if you mean to.",
      "not_regular_file",
    ],
  );
});

Deno.test("write path: a commit writes atomically and records the new content as read, whole", async () => {
  const s = await TestSession.create();
  const real = await s.write("a.txt", "old\n");
  const ctx = s.context();
  const target = await openForWrite(
    ctx,
    rules("never"),
    fileRef(ctx, "a.txt"),
    {
      action: "overwrite",
    },
  );
  let flushed = false;
  const outcome = await commitWrite(
    ctx,
    rules("never"),
    target,
    [new TextEncoder().encode("new"), new TextEncoder().encode("er\n")],
    { tool: "w", whileFlushing: () => flushed = true },
  );
  assert.deepEqual(outcome, {
    created: false,
    previousSize: 4,
    bytesWritten: 6,
  });
  assert.equal(flushed, true);
  assert.equal(await Deno.readTextFile(real), "newer\n");
  const info = await Deno.stat(real);
  assert.deepEqual(s.records.get(real), {
    mtimeMs: info.mtime!.getTime(),
    size: 6,
    hash: contentHash(new TextEncoder().encode("newer\n")),
    whole: true,
    reader: "w",
  });
  // Recorded as read: the next change needs no read, even where one is required.
  await openForWrite(ctx, rules("existing"), fileRef(ctx, "a.txt"), {
    action: "edit",
  });
  assert.deepEqual(
    await listVersions(ctx),
    [],
    "no history unless the dialect keeps it",
  );
});

Deno.test("write path: with history, the old content (or its absence) is kept before each change, and a removal forgets the file", async () => {
  const s = await TestSession.create();
  const ctx = s.context();
  const keep = rules("never", true);
  const created = await openForWrite(ctx, keep, fileRef(ctx, "h.txt"), {
    action: "overwrite",
  });
  assert.deepEqual(
    await commitWrite(ctx, keep, created, new TextEncoder().encode("v1\n"), {
      tool: "w",
      createParents: true,
    }),
    { created: true, previousSize: undefined, bytesWritten: 3 },
  );
  const again = await openForWrite(ctx, keep, fileRef(ctx, "h.txt"), {
    action: "overwrite",
  });
  await commitWrite(ctx, keep, again, new TextEncoder().encode("v2\n"), {
    tool: "w",
  });
  const last = await openForWrite(ctx, keep, fileRef(ctx, "h.txt"), {
    action: "restore",
  });
  await removeFile(ctx, keep, last, "r");
  const real = `${s.workspace}/h.txt`;
  assert.equal(s.records.has(real), false);
  assert.equal(await Deno.stat(real).catch(() => null), null);
  const versions = await listVersions(ctx);
  assert.deepEqual(
    versions.map((v) => [v.tool, v.existed, v.size, v.path]),
    [["w", false, 0, real], ["w", true, 3, real], ["r", true, 3, real]],
  );
  const dec = new TextDecoder();
  assert.equal(await versionBytes(ctx, versions[0]), null);
  assert.equal(dec.decode((await versionBytes(ctx, versions[1]))!), "v1\n");
  assert.equal(dec.decode((await versionBytes(ctx, versions[2]))!), "v2\n");
});

Deno.test("write path: currentText decodes text in its encoding and notebooks, not binaries", async () => {
  const s = await TestSession.create();
  await s.write("u16.txt", new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0]));
  await s.write("n.ipynb", '{"cells": []}\n');
  await s.write("b.bin", new Uint8Array([1, 0, 2]));
  const ctx = s.context();
  const textOf = async (path: string) =>
    await currentText(
      await openForWrite(ctx, rules("never"), fileRef(ctx, path), {
        action: "x",
      }),
    );
  assert.equal(await textOf("u16.txt"), "hi");
  assert.equal(await textOf("n.ipynb"), '{"cells": []}\n');
  assert.equal(await textOf("b.bin"), undefined);
});

Deno.test("write path: history names the old content by the hash the read-state has for it (same mtime and size), and hashes it when the file changed after the checks", async () => {
  const s = await TestSession.create();
  const ctx = s.context();
  const keep = rules("existing", true);
  const real = `${s.workspace}/k.txt`;
  const enc = new TextEncoder();
  await Deno.writeTextFile(real, "one\n");
  await readWhole(s, "k.txt");
  const first = await openForWrite(ctx, keep, fileRef(ctx, "k.txt"), {
    action: "edit",
  });
  assert.equal(first.hash, contentHash(enc.encode("one\n")));
  await commitWrite(ctx, keep, first, enc.encode("two\n"), { tool: "e" });
  // The commit's own record: the next change reuses its hash.
  const second = await openForWrite(ctx, keep, fileRef(ctx, "k.txt"), {
    action: "edit",
  });
  assert.equal(second.hash, contentHash(enc.encode("two\n")));
  await commitWrite(ctx, keep, second, enc.encode("three\n"), { tool: "e" });
  // Changed (same size, later mtime) between the checks and the read of its
  // bytes: the known hash is dropped and the bytes are hashed.
  const third = await openForWrite(ctx, keep, fileRef(ctx, "k.txt"), {
    action: "edit",
  });
  assert.ok(third.hash);
  await Deno.writeTextFile(real, "THREE\n");
  await touchLater(real);
  assert.equal(
    new TextDecoder().decode(await currentBytes(third)),
    "THREE\n",
  );
  assert.equal(third.hash, undefined);
  await commitWrite(ctx, keep, third, enc.encode("four\n"), { tool: "e" });
  const versions = await listVersions(ctx);
  const dec = new TextDecoder();
  assert.deepEqual(
    await Promise.all(
      versions.map(async (v) => dec.decode((await versionBytes(ctx, v))!)),
    ),
    ["one\n", "two\n", "THREE\n"],
  );
  assert.deepEqual(
    versions.map((v) => v.hash),
    ["one\n", "two\n", "THREE\n"].map((t) => contentHash(enc.encode(t))),
  );
  // A record whose mtime differs (the hash fallback proved the content) or a
  // partial one: no known hash unless the content was checked.
  await touchLater(real);
  const touched = await openForWrite(ctx, keep, fileRef(ctx, "k.txt"), {
    action: "edit",
  });
  assert.equal(touched.hash, contentHash(enc.encode("four\n")));
  assert.ok(touched.bytes);
});
