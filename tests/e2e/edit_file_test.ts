/**
 * End-to-end: spec 004's edit_file through `call_tool` against the real
 * CLI (`--toolset files`): one test per sentence of its row and of
 * issue #15.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type WaveProcess, withWave } from "../_wave.ts";
import { listVersions } from "../../tools/_core/history.ts";
import { ROW_REFUSAL } from "../../tools/files/edit_file.ts";
import { tempDirSync } from "../_temp.ts";
import { loadContentHash } from "../../tools/_core/content_hash.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

const files = (
  fn: (wave: WaveProcess) => Promise<void>,
  args: string[] = [],
  options: { workspace?: string; waveHome?: string } = {},
) => withWave({ args: ["--toolset", "files", ...args], ...options }, fn);

const read = (wave: WaveProcess, ...paths: string[]) =>
  wave.callTool("read_files", { files: paths.map((path) => ({ path })) });
const edit = (wave: WaveProcess, input: Record<string, unknown>) =>
  wave.callTool("edit_file", input);
const text = (wave: WaveProcess, path: string) =>
  Deno.readTextFileSync(join(wave.workspace, path));
const exists = (wave: WaveProcess, path: string) => {
  try {
    Deno.statSync(join(wave.workspace, path));
    return true;
  } catch {
    return false;
  }
};

Deno.test("e2e 004 edit_file: mode write creates a first version (parents made); an overwrite needs a read_files read, then replaces the whole file", () =>
  files(async (wave) => {
    const created = await edit(wave, {
      mode: "write",
      path: "docs/new.md",
      content: "# Title\n",
    });
    assert.equal(created.is_error, false);
    assert.equal(created.content, "Created docs/new.md (1 line, 8 B).");
    assert.equal(created.structured.created, true);
    assert.equal(text(wave, "docs/new.md"), "# Title\n");
    wave.put("old.txt", "old\n");
    const blind = await edit(wave, { path: "old.txt", content: "new\n" });
    assert.equal(blind.is_error, true);
    assert.equal(
      blind.content,
      "old.txt has not been read in this session. Call read_files on it first, then overwrite it.",
    );
    assert.equal(text(wave, "old.txt"), "old\n");
    await read(wave, "old.txt");
    const over = await edit(wave, { path: "old.txt", content: "new\n" });
    assert.equal(over.is_error, false);
    assert.match(
      over.content,
      /^Overwrote old\.txt \(1 line, 4 B\)\.\n--- old\.txt/,
    );
    assert.equal(text(wave, "old.txt"), "new\n");
  }));

Deno.test("e2e 004 edit_file: without mode, content means write and targets mean patch; remove and restore are never inferred", () =>
  files(async (wave) => {
    const w = await edit(wave, { path: "a.txt", content: "one two\n" });
    assert.equal(w.structured.mode, "write");
    const p = await edit(wave, {
      path: "a.txt",
      targets: [{ old_string: "two", new_string: "three" }],
    });
    assert.equal(p.structured.mode, "patch");
    assert.equal(text(wave, "a.txt"), "one three\n");
    const none = await edit(wave, { path: "a.txt" });
    assert.equal(none.is_error, true);
    assert.equal(
      none.content,
      'Nothing to do: give content (mode "write") or targets (mode "patch"). Remove and restore are never assumed: set mode "remove" or "restore".',
    );
    assert.ok(exists(wave, "a.txt"));
    const both = await edit(wave, {
      path: "a.txt",
      content: "x",
      targets: [{ old_string: "one", new_string: "1" }],
    });
    assert.equal(both.is_error, true);
    assert.equal(text(wave, "a.txt"), "one three\n");
  }));

Deno.test("e2e 004 edit_file: patch locates every anchor in the original before any change; replace_all changes every occurrence", () =>
  files(async (wave) => {
    wave.put("p.txt", "alpha\nbeta\ngamma\nbeta\nend\n");
    await read(wave, "p.txt");
    const r = await edit(wave, {
      path: "p.txt",
      targets: [
        { old_string: "alpha\n", new_string: "alpha\nnew 1\nnew 2\n" },
        { old_string: "gamma", new_string: "GAMMA" },
        { old_string: "beta", new_string: "BETA", replace_all: true },
      ],
    });
    assert.equal(r.is_error, false, r.content);
    assert.equal(
      text(wave, "p.txt"),
      "alpha\nnew 1\nnew 2\nBETA\nGAMMA\nBETA\nend\n",
    );
    assert.equal(r.structured.replacements, 4);
    assert.equal(r.structured.firstChangedLine, 2);
    assert.match(
      r.content,
      /^Patched p\.txt: 3 targets, 4 replacements, first change at line 2\.\n--- p\.txt\n\+\+\+ p\.txt\n@@ -1,5 \+1,7 @@\n/,
    );
  }));

Deno.test("e2e 004 edit_file: two targets covering the same region reject the whole call; the file stays byte-identical", () =>
  files(async (wave) => {
    const bytes = "keep this line\nand this one\n";
    wave.put("o.txt", bytes);
    await read(wave, "o.txt");
    const before = Deno.statSync(join(wave.workspace, "o.txt")).mtime;
    const r = await edit(wave, {
      path: "o.txt",
      targets: [
        { old_string: "keep this", new_string: "changed" },
        { old_string: "this line", new_string: "other" },
      ],
    });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      "targets[0] and targets[1] cover the same region of o.txt (line 1); nothing was written. Give each region one target.",
    );
    assert.equal(text(wave, "o.txt"), bytes);
    assert.deepEqual(
      Deno.statSync(join(wave.workspace, "o.txt")).mtime,
      before,
    );
    assert.deepEqual(
      await listVersions({
        workspace: Deno.realPathSync(wave.workspace),
        waveHome: wave.waveHome,
      }),
      [],
    );
  }));

Deno.test("e2e 004 edit_file: a target whose old_string occurs inside an earlier target's new_string rejects the whole call; byte-identical", () =>
  files(async (wave) => {
    const bytes = "one\ntwo\nthree\n";
    wave.put("n.txt", bytes);
    await read(wave, "n.txt");
    const r = await edit(wave, {
      path: "n.txt",
      targets: [
        { old_string: "one", new_string: "one and three" },
        { old_string: "three", new_string: "3" },
      ],
    });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      "targets[1].old_string occurs inside targets[0].new_string. Every anchor is found in the file as it is before the call, so a target cannot edit what an earlier target writes; nothing was written. Merge the two targets into one.",
    );
    assert.equal(text(wave, "n.txt"), bytes);
  }));

Deno.test("e2e 004 edit_file: an empty new_string deletes; an insertion repeats old_string at the start of new_string", () =>
  files(async (wave) => {
    wave.put("d.txt", "first\nremove me\nlast\n");
    await read(wave, "d.txt");
    const r = await edit(wave, {
      path: "d.txt",
      targets: [
        { old_string: "remove me\n", new_string: "" },
        { old_string: "last\n", new_string: "last\ninserted\n" },
      ],
    });
    assert.equal(r.is_error, false, r.content);
    assert.equal(text(wave, "d.txt"), "first\nlast\ninserted\n");
  }));

Deno.test("e2e 004 edit_file: the removed row / insert_string forms are refused, saying how to write the change; nothing written", () =>
  files(async (wave) => {
    wave.put("r.txt", "a\nb\n");
    await read(wave, "r.txt");
    for (
      const input of [
        { path: "r.txt", row: 2, insert_string: "x\n" },
        {
          path: "r.txt",
          targets: [{ row: 1, old_string: "a", new_string: "b" }],
        },
        { path: "r.txt", mode: "patch", insert_string: "x" },
      ]
    ) {
      const r = await edit(wave, input);
      assert.equal(r.is_error, true);
      assert.equal(r.content, ROW_REFUSAL);
      assert.match(
        r.content,
        /set old_string to that line \(copied without its row number and tab\) and new_string to the same line followed by the new lines/,
      );
      assert.equal(r.structured.type, "row_removed");
    }
    assert.equal(text(wave, "r.txt"), "a\nb\n");
  }));

Deno.test("e2e 004 edit_file: an anchor differing only in curly vs straight quotes matches, and the replacement takes the file's quote style", () =>
  files(async (wave) => {
    wave.put(
      "q.txt",
      'She said \u201Chello\u201D and it\u2019s fine.\nplain "x" here\n',
    );
    await read(wave, "q.txt");
    const r = await edit(wave, {
      path: "q.txt",
      targets: [
        {
          old_string: 'said "hello" and it\'s',
          new_string: 'said "goodbye" and it\'s',
        },
        {
          old_string: "plain \u201Cx\u201D",
          new_string: "plain \u201Cy\u201D",
        },
      ],
    });
    assert.equal(r.is_error, false, r.content);
    assert.equal(
      text(wave, "q.txt"),
      'She said \u201Cgoodbye\u201D and it\u2019s fine.\nplain "y" here\n',
    );
  }));

Deno.test("e2e 004 edit_file: freshness: a patch needs a read_files read, a file changed on disk since is refused with a call for a fresh read, and a successful write counts as one", () =>
  files(async (wave) => {
    wave.put("f.txt", "v1\n");
    const unread = await edit(wave, {
      path: "f.txt",
      targets: [{ old_string: "v1", new_string: "v2" }],
    });
    assert.equal(unread.is_error, true);
    assert.equal(
      unread.content,
      "f.txt has not been read in this session. Call read_files on it first, then edit it.",
    );
    await read(wave, "f.txt");
    await new Promise((r) => setTimeout(r, 20));
    wave.put("f.txt", "formatted v1\n"); // a formatter, the user
    const stale = await edit(wave, {
      path: "f.txt",
      targets: [{ old_string: "v1", new_string: "v2" }],
    });
    assert.equal(stale.is_error, true);
    assert.equal(
      stale.content,
      "f.txt has changed on disk since it was last read (by the user, a formatter or another process). Call read_files on it again, then edit it.",
    );
    assert.equal(text(wave, "f.txt"), "formatted v1\n");
    const staleWrite = await edit(wave, { path: "f.txt", content: "x" });
    assert.equal(staleWrite.is_error, true);
    await read(wave, "f.txt");
    const w = await edit(wave, { path: "f.txt", content: "written\n" });
    assert.equal(w.is_error, false);
    const p = await edit(wave, {
      path: "f.txt",
      targets: [{ old_string: "written", new_string: "patched" }],
    });
    assert.equal(p.is_error, false, p.content);
    const p2 = await edit(wave, {
      path: "f.txt",
      targets: [{ old_string: "patched", new_string: "again" }],
    });
    assert.equal(p2.is_error, false, p2.content);
    assert.equal(text(wave, "f.txt"), "again\n");
  }));

Deno.test("e2e 004 edit_file: remove moves the file aside into file history; restore by its version_id brings it back", () =>
  files(async (wave) => {
    wave.put("gone.txt", "precious\n");
    const r = await edit(wave, { mode: "remove", path: "gone.txt" });
    assert.equal(r.is_error, false, r.content);
    assert.ok(!exists(wave, "gone.txt"));
    const id = r.structured.version_id;
    assert.match(id, /^[0-9a-z]+-[0-9a-f]{8}$/);
    assert.equal(
      r.content,
      `Removed gone.txt (9 B). It is kept in file history as version ${id}: edit_file mode "restore" with that version_id brings it back.`,
    );
    const back = await edit(wave, { mode: "restore", version_id: id });
    assert.equal(back.is_error, false, back.content);
    assert.equal(text(wave, "gone.txt"), "precious\n");
    // Restored content counts as read: a patch can follow.
    const p = await edit(wave, {
      path: "gone.txt",
      targets: [{ old_string: "precious", new_string: "kept" }],
    });
    assert.equal(p.is_error, false, p.content);
  }));

Deno.test("e2e 004 edit_file: restore by version_id puts back one file as it was before that change", () =>
  files(async (wave) => {
    await edit(wave, { path: "v.txt", content: "1\n" });
    await edit(wave, { path: "v.txt", content: "2\n" });
    await edit(wave, { path: "v.txt", content: "3\n" });
    const versions = await listVersions({
      workspace: Deno.realPathSync(wave.workspace),
      waveHome: wave.waveHome,
    });
    assert.deepEqual(versions.map((v) => v.existed), [false, true, true]);
    const r = await edit(wave, {
      mode: "restore",
      path: "v.txt",
      version_id: versions[1].id,
    });
    assert.equal(r.is_error, false, r.content);
    assert.equal(text(wave, "v.txt"), "1\n");
    const missing = await edit(wave, { mode: "restore", version_id: "nope" });
    assert.equal(
      missing.content,
      "There is no version nope in this workspace's file history; file_history lists them.",
    );
  }));

Deno.test("e2e 004 edit_file: restore by task_id rolls back three files: a changed one, one the task created (removed), one it removed (back); current = the running task", () =>
  files(async (wave) => {
    wave.put("changed.txt", "before\n");
    wave.put("removed.txt", "keep me\n");
    wave.put("untouched.txt", "same\n");
    await wave.request({
      subtype: "set_task",
      task_id: "T1",
      goal: "refactor",
    });
    await read(wave, "changed.txt");
    await edit(wave, {
      path: "changed.txt",
      targets: [{ old_string: "before", new_string: "after" }],
    });
    await edit(wave, { path: "created.txt", content: "new\n" });
    await edit(wave, { mode: "remove", path: "removed.txt" });
    await edit(wave, {
      path: "changed.txt",
      targets: [{ old_string: "after", new_string: "after again" }],
    });
    const r = await edit(wave, { mode: "restore", task_id: "current" });
    assert.equal(r.is_error, false, r.content);
    assert.equal(
      r.content,
      'Restored 3 files to their state before task T1 ("refactor"):\n- changed.txt: 7 B\n- created.txt: removed (it did not exist then)\n- removed.txt: 8 B\n',
    );
    assert.equal(text(wave, "changed.txt"), "before\n");
    assert.ok(!exists(wave, "created.txt"));
    assert.equal(text(wave, "removed.txt"), "keep me\n");
    assert.equal(text(wave, "untouched.txt"), "same\n");
    // By id, from another task, the same.
    await wave.request({ subtype: "set_task", task_id: "T2", goal: "" });
    await edit(wave, { path: "created.txt", content: "again\n" });
    const byId = await edit(wave, { mode: "restore", task_id: "T2" });
    assert.equal(byId.is_error, false);
    assert.ok(!exists(wave, "created.txt"));
    const none = await edit(wave, { mode: "restore", task_id: "T9" });
    assert.equal(
      none.content,
      "Task T9 changed no file in this workspace's file history; nothing to restore.",
    );
  }));

Deno.test("e2e 004 edit_file: a task restore that fails part-way leaves every file as it was", () =>
  files(async (wave) => {
    wave.put("a.txt", "a0\n");
    wave.put("dir/b.txt", "b0\n");
    await wave.request({ subtype: "set_task", task_id: "T", goal: "" });
    await read(wave, "a.txt", "dir/b.txt");
    await edit(wave, { path: "a.txt", content: "a1\n" });
    await edit(wave, { path: "dir/b.txt", content: "b1\n" });
    // Someone replaces the directory with a file: b.txt cannot go back.
    Deno.removeSync(join(wave.workspace, "dir"), { recursive: true });
    wave.put("dir", "a file now\n");
    const r = await edit(wave, { mode: "restore", task_id: "T" });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      "Could not restore: a parent of dir/b.txt is not a directory. Nothing was restored: every file is as it was before this call.",
    );
    assert.equal(text(wave, "a.txt"), "a1\n");
    assert.equal(text(wave, "dir"), "a file now\n");
  }));

Deno.test("e2e 004 edit_file: a rollback cut short by a crash is finished backwards (every file as it was) by the next edit_file call", async () => {
  const workspace = Deno.realPathSync(tempDirSync());
  const waveHome = tempDirSync();
  Deno.writeTextFileSync(`${workspace}/a.txt`, "a now\n");
  Deno.writeTextFileSync(`${workspace}/b.txt`, "b now\n");
  const module = new URL("../../tools/_core/history.ts", import.meta.url).href;
  const hashModule =
    new URL("../../tools/_core/content_hash.ts", import.meta.url).href;
  const ctx = {
    workspace,
    waveHome: Deno.realPathSync(waveHome),
    sessionId: "crashed",
  };
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `
      import { restoreFiles } from ${JSON.stringify(module)};
      import { loadContentHash } from ${JSON.stringify(hashModule)};
      await loadContentHash();
      const enc = new TextEncoder();
      await restoreFiles(${JSON.stringify(ctx)}, [
        { real: ${
        JSON.stringify(`${workspace}/a.txt`)
      }, bytes: enc.encode("a old\\n") },
        { real: ${JSON.stringify(`${workspace}/b.txt`)}, bytes: null },
      ], { tool: "edit_file", beforeStep: (i) => { if (i === 1) Deno.exit(9); } });`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 9, new TextDecoder().decode(out.stderr));
  assert.equal(Deno.readTextFileSync(`${workspace}/a.txt`), "a old\n");
  await files(
    async (wave) => {
      const r = await edit(wave, { path: "c.txt", content: "c\n" });
      assert.equal(r.is_error, false, r.content);
      assert.equal(
        r.content,
        "(An earlier restore was cut short; it was undone first: a.txt, b.txt.)\nCreated c.txt (1 line, 2 B).",
      );
      assert.equal(text(wave, "a.txt"), "a now\n");
      assert.equal(text(wave, "b.txt"), "b now\n");
    },
    [],
    { workspace, waveHome },
  );
});

Deno.test("e2e 004 edit_file: history is shared by two sessions on one workspace: a later session restores what an earlier one changed", async () => {
  const workspace = tempDirSync();
  const waveHome = tempDirSync();
  let id = "";
  await files(
    async (wave) => {
      await edit(wave, { path: "s.txt", content: "session one\n" });
      await read(wave, "s.txt");
      await edit(wave, { path: "s.txt", content: "session one, later\n" });
      id = (await listVersions({
        workspace: Deno.realPathSync(workspace),
        waveHome: Deno.realPathSync(waveHome),
      }))[1].id;
    },
    [],
    { workspace, waveHome },
  );
  await files(
    async (wave) => {
      const r = await edit(wave, { mode: "restore", version_id: id });
      assert.equal(r.is_error, false, r.content);
      assert.equal(text(wave, "s.txt"), "session one\n");
    },
    [],
    { workspace, waveHome },
  );
});

Deno.test("e2e 004 edit_file: retention (--history-max-bytes) deletes the oldest versions and their blobs", () =>
  files(async (wave) => {
    await edit(wave, { path: "r.txt", content: "x".repeat(60) });
    await read(wave, "r.txt");
    await edit(wave, { path: "r.txt", content: "y".repeat(60) });
    await read(wave, "r.txt");
    await edit(wave, { path: "r.txt", content: "z".repeat(60) });
    await read(wave, "r.txt");
    await edit(wave, { path: "r.txt", content: "w".repeat(60) });
    const ctx = {
      workspace: Deno.realPathSync(wave.workspace),
      waveHome: wave.waveHome,
    };
    const versions = await listVersions(ctx);
    // Budget 100 bytes: of x, y, z (60 bytes each) only z's fits; the first (nothing) and x, y went.
    assert.deepEqual(versions.map((v) => v.size), [60]);
    const blobs = [...Deno.readDirSync(`${wave.waveHome}/history`)].flatMap((
      d,
    ) =>
      [...Deno.readDirSync(`${wave.waveHome}/history/${d.name}/blobs`)].map((
        b,
      ) => b.name)
    );
    assert.deepEqual(blobs, [versions[0].hash]);
  }, ["--history-max-bytes", "100"]));

Deno.test("e2e 004 edit_file: the description names the output directory, output/ by default and --output-dir's otherwise", async () => {
  for (
    const [args, shown] of [[[], "output/"], [
      ["--output-dir", "made/for/you"],
      "made/for/you/",
    ]] as const
  ) {
    await files(async (wave) => {
      const tools =
        (await wave.request({ subtype: "list_tools" })).response.tools;
      const d = tools.find((t: { name: string }) =>
        t.name === "edit_file"
      ).description;
      assert.ok(
        d.includes(
          `- Files you make for the user (reports, exports, images, documents) go in the output directory, ${shown}, unless the user names a place.`,
        ),
        d,
      );
    }, [...args]);
  }
});

Deno.test("e2e 004 edit_file: approvals and the sandbox as for every writing tool: outside the workspace is denied under --approvals deny; bound only in agent mode", () =>
  files(async (wave) => {
    const outside = join(tempDirSync(), "x.txt");
    const r = await edit(wave, { path: outside, content: "no" });
    assert.equal(r.is_error, true);
    assert.equal(r.structured.type, "permission_denied");
    assert.throws(() => Deno.statSync(outside));
    await wave.request({ subtype: "set_permission_mode", mode: "ask" });
    const asked = await wave.request({
      subtype: "call_tool",
      tool_name: "edit_file",
      input: { path: "a", content: "b" },
    });
    assert.equal(asked.subtype, "error");
    assert.equal(
      asked.error,
      "edit_file is not available in ask mode; it needs agent mode or wider (set_permission_mode)",
    );
  }));

Deno.test("e2e 004 edit_file: a 10 MB file with CRLF line ends is patched in place of its anchors, keeping CRLF", () =>
  files(async (wave) => {
    const line = "x".repeat(99) + "\r\n";
    const body = line.repeat(50_000) + "anchor line\r\nnext\r\n" +
      line.repeat(50_000);
    wave.put("big.txt", body);
    await read(wave, "big.txt");
    const r = await edit(wave, {
      path: "big.txt",
      targets: [{
        old_string: "anchor line\nnext",
        new_string: "changed\nnext",
      }],
    });
    assert.equal(r.is_error, false, r.content);
    assert.equal(r.structured.firstChangedLine, 50_001);
    const after = text(wave, "big.txt");
    assert.equal(after, body.replace("anchor line\r\n", "changed\r\n"));
  }));

Deno.test("e2e 004 edit_file: the write queue runs concurrent patches of one file one after another, each seeing the last one's write as a fresh read; no temp file is left", () =>
  files(async (wave) => {
    wave.put("q.txt", "a\nb\nc\n");
    await read(wave, "q.txt");
    await Promise.all([
      wave.sendCall("p1", "edit_file", {
        path: "q.txt",
        targets: [{ old_string: "a\n", new_string: "A\n" }],
      }),
      wave.sendCall("p2", "edit_file", {
        path: "q.txt",
        targets: [{ old_string: "c\n", new_string: "C\n" }],
      }),
    ]);
    for (const id of ["p1", "p2"]) {
      const answer = await wave.waitFor((m) =>
        m.type === "control_response" && m.response.request_id === id
      );
      assert.equal(answer.response.response.is_error, false, id);
    }
    assert.equal(text(wave, "q.txt"), "A\nb\nC\n");
    assert.deepEqual(
      [...Deno.readDirSync(wave.workspace)].map((e) => e.name).sort(),
      ["q.txt"],
    );
  }));
