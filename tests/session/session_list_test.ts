/** The list of sessions ACP's `session/list` answers with (session/session_list.ts). */
import assert from "node:assert/strict";
import { SessionList } from "../../session/session_list.ts";
import { TITLE_CHARS } from "../../session/transcript_head.ts";
import { tempDir } from "../_temp.ts";

/** Writes transcript `id` of workspace `cwd` (no session line when undefined), changed at `mtime` seconds. */
async function transcript(
  waveHome: string,
  id: string,
  cwd: string | undefined,
  mtime: number,
  entries: unknown[] = [],
): Promise<void> {
  const path = `${waveHome}/sessions/${id}.jsonl`;
  const lines = [
    ...cwd === undefined ? [] : [{ type: "session", session_id: id, cwd }],
    ...entries,
  ];
  await Deno.writeTextFile(
    path,
    lines.map((l) => JSON.stringify(l) + "\n").join(""),
  );
  await Deno.utime(path, mtime, mtime);
}

const user = (content: unknown, isMeta?: boolean) => ({
  type: "user",
  message: { role: "user", content },
  ...isMeta ? { isMeta } : {},
  timestamp: "2026-12-03T00:00:00.000Z",
});

Deno.test("session list: newest first, each with its workspace, its first prompt's first line as title and when it changed; a transcript without a session line is left out, and so is another workspace's when one is asked for", async () => {
  const home = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  await transcript(home, "old", "/ws/a", 1000, [
    user("fix the bug\nin detail"),
  ]);
  await transcript(home, "new", "/ws/a", 3000, [
    user("a reminder the model gets", true),
    user([{ type: "image" }, { type: "text", text: "\n  look at this  " }]),
  ]);
  await transcript(home, "other", "/ws/b", 2000, [user("x".repeat(300))]);
  await transcript(home, "unstarted", undefined, 4000);
  await transcript(home, "untitled", "/ws/a", 500, [
    user([{ type: "tool_result", tool_use_id: "t", content: "ok" }]),
  ]);
  await Deno.writeTextFile(`${home}/sessions/notes.txt`, "not a transcript");
  // A name session/load would refuse is not offered.
  await transcript(home, "bad id!", "/ws/a", 5000, [user("never listed")]);

  const list = new SessionList(home);
  assert.deepEqual(await list.page(), {
    sessions: [
      {
        id: "new",
        cwd: "/ws/a",
        title: "look at this",
        updatedAt: new Date(3_000_000).toISOString(),
      },
      {
        id: "other",
        cwd: "/ws/b",
        title: `${"x".repeat(TITLE_CHARS - 1)}…`,
        updatedAt: new Date(2_000_000).toISOString(),
      },
      {
        id: "old",
        cwd: "/ws/a",
        title: "fix the bug",
        updatedAt: new Date(1_000_000).toISOString(),
      },
      {
        id: "untitled",
        cwd: "/ws/a",
        updatedAt: new Date(500_000).toISOString(),
      },
    ],
  });
  assert.deepEqual(
    (await list.page({ cwd: "/ws/b" })).sessions.map((s) => s.id),
    ["other"],
  );
  assert.deepEqual(await list.page({ cwd: "/ws/c" }), { sessions: [] });
  assert.deepEqual(await new SessionList(await tempDir()).page(), {
    sessions: [],
  });
});

Deno.test("session list: pages follow each other by cursor, every session once, the last without a cursor; a cursor wave did not make is refused", async () => {
  const home = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  // Two changed in the same second: the cursor still tells them apart.
  const ids = ["s1", "s2", "s3", "s4", "s5"];
  const mtimes = [5000, 4000, 4000, 3000, 2000];
  for (const [i, id] of ids.entries()) {
    await transcript(home, id, "/ws", mtimes[i], [user(`prompt ${id}`)]);
  }
  await transcript(home, "elsewhere", "/other", 3500);
  const seen: string[] = [];
  let cursor: string | undefined;
  const pages: number[] = [];
  const list = new SessionList(home);
  do {
    const page = await list.page({ cwd: "/ws", cursor, perPage: 2 });
    seen.push(...page.sessions.map((s) => s.id));
    pages.push(page.sessions.length);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(seen, ids);
  assert.deepEqual(pages, [2, 2, 1]);
  // Exactly a page's worth left: no cursor to an empty page.
  const full = await list.page({ cwd: "/ws", perPage: 5 });
  assert.equal(full.sessions.length, 5);
  assert.equal(full.nextCursor, undefined);
  await assert.rejects(list.page({ cursor: "page-2" }), {
    message: `not a cursor of wave's session list: "page-2"`,
  });
});

Deno.test("session list: what a head says is kept between pages; one without a title yet is read again once its transcript changed, and a transcript gone is dropped", async () => {
  const home = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  await transcript(home, "s", "/ws", 1000);
  const list = new SessionList(home);
  assert.deepEqual((await list.page()).sessions.map((s) => s.title), [
    undefined,
  ]);
  // Its first prompt came: the file changed, so it is read again.
  await transcript(home, "s", "/ws", 2000, [user("now titled")]);
  assert.deepEqual((await list.page()).sessions.map((s) => s.title), [
    "now titled",
  ]);
  await Deno.remove(`${home}/sessions/s.jsonl`);
  assert.deepEqual(await list.page(), { sessions: [] });
});

Deno.test("session list: a cursor walks the listing its first page was taken from, whatever first pages came meanwhile; a transcript gone since is left out", async () => {
  const home = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  for (const [id, mtime] of [["a", 5000], ["b", 4000], ["c", 3000]] as const) {
    await transcript(home, id, "/ws", mtime, [user(`prompt ${id}`)]);
  }
  await transcript(home, "d", "/ws", 2000, [user("prompt d")]);
  const list = new SessionList(home);
  const first = await list.page({ perPage: 2 });
  assert.deepEqual(first.sessions.map((s) => s.id), ["a", "b"]);
  // c changes (it would move to the top), another view takes a first
  // page, and d goes: the walk still finds c, and d is left out.
  await transcript(home, "c", "/ws", 9000, [user("prompt c")]);
  await list.page({ cwd: "/elsewhere" });
  await Deno.remove(`${home}/sessions/d.jsonl`);
  const second = await list.page({ perPage: 2, cursor: first.nextCursor });
  assert.deepEqual(second, {
    sessions: [{
      id: "c",
      cwd: "/ws",
      title: "prompt c",
      updatedAt: new Date(3_000_000).toISOString(),
    }],
  });
  // A fresh first page sees the change.
  assert.deepEqual((await list.page()).sessions.map((s) => s.id), [
    "c",
    "a",
    "b",
  ]);
});

Deno.test("session list: a head is read again for a transcript made anew under its name, and for one that grew within the same clock tick", async () => {
  const home = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  await transcript(home, "s", "/ws/one", 1000, [user("first life")]);
  const list = new SessionList(home);
  assert.deepEqual(
    (await list.page()).sessions.map((s) => [s.cwd, s.title]),
    [["/ws/one", "first life"]],
  );
  // Removed and written again (a parent reusing --session-id), even with
  // the same time: another file.
  await Deno.remove(`${home}/sessions/s.jsonl`);
  await transcript(home, "s", "/ws/two", 1000, [user("second life")]);
  assert.deepEqual(
    (await list.page()).sessions.map((s) => [s.cwd, s.title]),
    [["/ws/two", "second life"]],
  );
  // No prompt yet, then one appended with the time set back as it was:
  // the size moved.
  await transcript(home, "t", "/ws", 500);
  assert.equal((await list.page({ cwd: "/ws" })).sessions[0].title, undefined);
  const path = `${home}/sessions/t.jsonl`;
  await Deno.writeTextFile(path, JSON.stringify(user("late")) + "\n", {
    append: true,
  });
  await Deno.utime(path, 500, 500);
  assert.equal((await list.page({ cwd: "/ws" })).sessions[0].title, "late");
});
