/** Spec 004 find_files, on the tool module in-process. */
import assert from "node:assert/strict";
import FindFiles, {
  DEFAULT_SEARCH_LIMIT,
  MAX_LISTING_BYTES,
} from "../../../tools/files/find_files.ts";
import { TestSession, text } from "../../_context.ts";

async function tree(s: TestSession) {
  await s.write(".gitignore", "build/\n");
  await s.write("src/b.ts", "export const needle = 1;\n");
  await s.write("src/a.ts", "// nothing\nneedle();\n");
  await s.write("src/notes.md", "a needle in markdown\n");
  await s.write("build/gen.ts", "needle\n");
  await s.write(".git/config", "needle\n");
  await s.write("Z.md", "top\n");
}

async function setMtime(s: TestSession, path: string, secondsAgo: number) {
  const t = new Date(Date.now() - secondsAgo * 1000);
  await Deno.utime(`${s.workspace}/${path}`, t, t);
}

type Structured = Record<string, unknown>;

Deno.test("004 find_files: queries take dir, pattern, file_pattern and recursive", () => {
  const schema = FindFiles.input as unknown as {
    safeParse(v: unknown): { success: boolean };
  };
  assert.ok(
    schema.safeParse({
      queries: [{
        dir: "src",
        pattern: "x",
        file_pattern: "*.ts",
        recursive: true,
      }],
    }).success,
  );
  assert.ok(!schema.safeParse({ queries: [] }).success);
  assert.ok(!schema.safeParse({ queries: [{ path: "src" }] }).success);
});

Deno.test("004 find_files: with neither pattern nor file_pattern, mode list: the directory's entries in alphabetical order", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, { queries: [{}] });
  assert.equal(r.isError, undefined);
  assert.equal(text(r), ".git/\n.gitignore\nZ.md\nbuild/\nsrc/");
  assert.equal((r.structured as Structured).mode, "list");
  const deep = await s.call(FindFiles, {
    queries: [{ dir: "src", recursive: true }],
    mode: "list",
  });
  assert.equal(text(deep), "src/a.ts\nsrc/b.ts\nsrc/notes.md");
});

Deno.test("004 find_files: list shows a directory's entries as they are (ignored ones too) and never inside .git/", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, { queries: [{ recursive: true }] });
  assert.equal(
    text(r),
    ".git/\n.gitignore\nZ.md\nbuild/\nbuild/gen.ts\nsrc/\nsrc/a.ts\nsrc/b.ts\nsrc/notes.md",
  );
  for (const dir of [".git", ".git/objects", "src/../.git"]) {
    await s.write(".git/objects/x", "x");
    const inside = await s.call(FindFiles, { queries: [{ dir }] });
    assert.equal(inside.isError, true);
    assert.equal(
      text(inside),
      `find_files never lists or searches inside .git/ (${
        dir === "src/../.git" ? ".git" : dir
      } is in it): those are git's own files. Use a directory of the work tree.`,
    );
  }
});

Deno.test("004 find_files: with pattern only, mode glob: paths matched by the file-name pattern, newest modification first", async () => {
  const s = await TestSession.create();
  await tree(s);
  await setMtime(s, "src/a.ts", 30);
  await setMtime(s, "src/b.ts", 10);
  await setMtime(s, "build/gen.ts", 20);
  const r = await s.call(FindFiles, { queries: [{ pattern: "**/*.ts" }] });
  assert.equal(text(r), "src/b.ts\nbuild/gen.ts\nsrc/a.ts");
  const st = r.structured as Structured;
  assert.equal(st.mode, "glob");
  assert.deepEqual(st.files, ["src/b.ts", "build/gen.ts", "src/a.ts"]);
});

Deno.test("004 find_files: glob, like Glob, includes ignored files; never .git/", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, { queries: [{ pattern: "*config*" }] });
  assert.match(text(r), /^No files match \*config\*\./);
  const gen = await s.call(FindFiles, { queries: [{ pattern: "gen.ts" }] });
  assert.equal(text(gen), "build/gen.ts");
  const git = await s.call(FindFiles, { queries: [{ pattern: ".git/**" }] });
  assert.match(text(git), /^No files match/);
});

Deno.test("004 find_files: glob recursive: false looks only at the directory's own files", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "*.md", recursive: false }],
  });
  assert.equal(text(r), "Z.md");
});

Deno.test("004 find_files: an all-wildcard glob is refused, saying why and what to pass instead", async () => {
  const s = await TestSession.create();
  await tree(s);
  for (const pattern of ["**/*", "*", "?*"]) {
    const r = await s.call(FindFiles, { queries: [{ pattern }] });
    assert.equal(r.isError, true);
    assert.equal(
      text(r),
      `The glob pattern ${
        JSON.stringify(pattern)
      } has no literal character, so it would match every file: all-wildcard globs are refused. Put part of the names in it (e.g. "**/*.ts", "src/**/test_*"), or use mode list (recursive: true) to see a directory's entries.`,
    );
  }
});

Deno.test("004 find_files: list and glob stop at 128 KiB of output, and the end says how many entries were dropped", async () => {
  const s = await TestSession.create();
  const name = (k: number) => `${String(k).padStart(96, "0")}.txt`;
  await Deno.mkdir(`${s.workspace}/d`);
  for (let k = 0; k < 1400; k++) {
    await Deno.writeTextFile(`${s.workspace}/d/${name(k)}`, "");
  }
  // Each line: "d/" + 100 characters + "\n" = 103 bytes.
  const fit = Math.floor(MAX_LISTING_BYTES / 103);
  assert.equal(fit, 1272);
  const listed = await s.call(FindFiles, { queries: [{ dir: "d" }] });
  const lines = text(listed).split("\n");
  assert.equal(lines.length, fit + 1);
  assert.equal(lines[0], `d/${name(0)}`);
  assert.equal(
    lines.at(-1),
    "[output limit of 128 KiB reached: 128 more entries dropped; narrow dir or pattern to see them]",
  );
  assert.equal((listed.structured as Structured).dropped, 128);
  const globbed = await s.call(FindFiles, {
    queries: [{ pattern: "*.txt", dir: "d" }],
  });
  assert.equal(
    text(globbed).split("\n").at(-1),
    "[output limit of 128 KiB reached: 128 more files dropped; narrow dir or pattern to see them]",
  );
  assert.ok(
    new TextEncoder().encode(text(globbed)).length < MAX_LISTING_BYTES + 200,
  );
  // Together: two queries share the one limit.
  const both = await s.call(FindFiles, {
    queries: [{ pattern: "0000*.txt", dir: "d" }, {
      pattern: "*1.txt",
      dir: "d",
    }],
  });
  assert.equal((both.structured as Structured).dropped, 128);
});

Deno.test("004 find_files: with pattern and file_pattern, mode search; output files by default, {path, count, lines}", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "needle", file_pattern: "*.ts" }],
  });
  assert.equal(
    text(r),
    '{"path":"src/a.ts","count":1,"lines":[2]}\n{"path":"src/b.ts","count":1,"lines":[1]}\n[files 1-2 of 2; last page]',
  );
  const st = r.structured as Structured;
  assert.equal(st.mode, "search");
  assert.equal(st.output, "files");
  assert.equal(st.limit, DEFAULT_SEARCH_LIMIT);
  assert.equal(DEFAULT_SEARCH_LIMIT, 256);
});

Deno.test("004 find_files: search respects .gitignore like Grep (and never .git/)", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "needle" }],
    mode: "search",
  });
  assert.deepEqual(
    ((r.structured as Structured).rows as { path: string }[]).map((x) =>
      x.path
    ),
    ["src/a.ts", "src/b.ts", "src/notes.md"],
  );
});

Deno.test("004 find_files search: output content gives matching lines with their numbers; context lines are marked", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "needle", file_pattern: "a.ts" }],
    output: "content",
    context: 1,
  });
  assert.equal(
    text(r),
    '{"path":"src/a.ts","line":1,"text":"// nothing","context":true}\n{"path":"src/a.ts","line":2,"text":"needle();"}\n[lines 1-1 of 1; last page]',
  );
});

Deno.test("004 find_files search: multiline lets . cross line ends and reports every line a match covers", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "start\nx\nstop\n");
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "start.stop|start.x.stop", file_pattern: "*.txt" }],
    multiline: true,
  });
  assert.equal(
    text(r),
    '{"path":"a.txt","count":3,"lines":[1,2,3]}\n[files 1-1 of 1; last page]',
  );
});

Deno.test("004 find_files search: pages end with the next offset and search_id; the last says so; a changed search is refused past offset 0", async () => {
  const s = await TestSession.create();
  for (let k = 0; k < 5; k++) await s.write(`f${k}.txt`, "needle\n");
  const queries = [{ pattern: "needle", file_pattern: "*.txt" }];
  const first = await s.call(FindFiles, { queries, limit: 2 });
  const id = (first.structured as Structured).search_id as string;
  assert.match(id, /^[0-9a-f]{8}$/);
  assert.equal(
    text(first).split("\n").at(-1),
    `[files 1-2 of 5; next offset=2, search_id=${id}]`,
  );
  const second = await s.call(FindFiles, {
    queries,
    limit: 2,
    offset: 2,
    search_id: id,
  });
  assert.deepEqual(
    text(second).split("\n"),
    [
      '{"path":"f2.txt","count":1,"lines":[1]}',
      '{"path":"f3.txt","count":1,"lines":[1]}',
      `[files 3-4 of 5; next offset=4, search_id=${id}]`,
    ],
  );
  const last = await s.call(FindFiles, {
    queries,
    limit: 2,
    offset: 4,
    search_id: id,
  });
  assert.equal(text(last).split("\n").at(-1), "[files 5-5 of 5; last page]");
  // The query differs: refused, start again from 0.
  const changed = await s.call(FindFiles, {
    queries: [{ pattern: "need", file_pattern: "*.txt" }],
    offset: 2,
    search_id: id,
  });
  assert.equal(changed.isError, true);
  assert.equal(
    text(changed),
    `offset 2 continues the search ${id}, but this call's queries or output differ from it, so that offset does not count this search's rows. Start again from offset 0 with these queries and output, and follow the page footers from there.`,
  );
  // The output differs: refused too.
  const otherOutput = await s.call(FindFiles, {
    queries,
    output: "content",
    offset: 2,
    search_id: id,
  });
  assert.equal(otherOutput.isError, true);
  assert.match(text(otherOutput), /Start again from offset 0/);
  // No search_id: refused, saying what to pass.
  const bare = await s.call(FindFiles, { queries, offset: 2 });
  assert.equal(
    text(bare),
    "offset 2 continues a search, but no search_id says which. Pass the search_id from the footer of the page before (with the same queries and output), or start again from offset 0.",
  );
  const past = await s.call(FindFiles, {
    queries,
    offset: 5,
    search_id: id,
  });
  assert.equal(
    text(past),
    "offset 5 is past the end: the search has 5 files. Use an offset below 5.",
  );
});

Deno.test("004 find_files search: lines pages count matching lines only", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "needle\nx\nneedle\nx\nneedle\n");
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "needle", file_pattern: "*.txt" }],
    output: "content",
    context: 1,
    limit: 2,
  });
  const lines = text(r).split("\n");
  assert.equal(lines.length, 5); // 2 matches, 2 context lines, the footer
  assert.match(lines.at(-1)!, /^\[lines 1-2 of 3; next offset=2, search_id=/);
});

Deno.test("004 find_files: several queries' results are merged and de-duplicated, in every mode", async () => {
  const s = await TestSession.create();
  await tree(s);
  const listed = await s.call(FindFiles, {
    queries: [{ dir: "src" }, { dir: "src" }, {}],
  });
  assert.equal(
    text(listed),
    ".git/\n.gitignore\nZ.md\nbuild/\nsrc/\nsrc/a.ts\nsrc/b.ts\nsrc/notes.md",
  );
  await setMtime(s, "src/a.ts", 30);
  await setMtime(s, "src/b.ts", 10);
  await setMtime(s, "Z.md", 20);
  const globbed = await s.call(FindFiles, {
    queries: [{ pattern: "*.ts", dir: "src" }, { pattern: "src/*" }, {
      pattern: "Z.md",
    }],
  });
  // Merged newest first: b (10 s ago), Z.md (20), a (30); notes.md is newest of all.
  assert.equal(text(globbed), "src/notes.md\nsrc/b.ts\nZ.md\nsrc/a.ts");
  const searched = await s.call(FindFiles, {
    queries: [
      { pattern: "needle", file_pattern: "*.ts" },
      { pattern: "needle", file_pattern: "src/*", dir: "." },
    ],
  });
  assert.equal(
    text(searched),
    '{"path":"src/a.ts","count":1,"lines":[2]}\n{"path":"src/b.ts","count":1,"lines":[1]}\n{"path":"src/notes.md","count":1,"lines":[1]}\n[files 1-3 of 3; last page]',
  );
});

Deno.test("004 find_files: queries of one call share a mode; fields of another mode are refused", async () => {
  const s = await TestSession.create();
  await tree(s);
  const mixed = await s.call(FindFiles, {
    queries: [{ pattern: "*.ts" }, { pattern: "x", file_pattern: "*.ts" }],
  });
  assert.equal(
    text(mixed),
    "queries[0] means glob but queries[1] means search (pattern and file_pattern → search, pattern only → glob, neither → list). Queries of one call share a mode: give mode, or make separate calls.",
  );
  const stray = await s.call(FindFiles, { queries: [{}], offset: 3 });
  assert.equal(
    text(stray),
    "offset is for mode search only; mode list gives every entry, up to 128 KiB of output. Leave it out, or narrow dir or pattern.",
  );
  const listWithPattern = await s.call(FindFiles, {
    queries: [{ pattern: "x" }],
    mode: "list",
  });
  assert.equal(
    text(listWithPattern),
    "queries[0]: mode list takes dir and recursive only; to match names use mode glob, to search contents mode search.",
  );
  const searchWithout = await s.call(FindFiles, {
    queries: [{ file_pattern: "*.ts" }],
    mode: "search",
  });
  assert.equal(
    text(searchWithout),
    "queries[0]: mode search needs pattern, the RE2 regex to search for.",
  );
});

Deno.test("004 find_files search: no match says so, and that it is the last page", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "absent", file_pattern: "*.ts", dir: "src" }],
  });
  assert.equal(
    text(r),
    'No matches for "absent" in src (files matching *.ts). (search respects .gitignore and never looks in .git/ or sensitive files; glob mode lists ignored files.)\n[0 files; last page]',
  );
});

Deno.test("004 find_files: list and glob need a directory; search may name a file", async () => {
  const s = await TestSession.create();
  await tree(s);
  for (const q of [{ dir: "Z.md" }, { dir: "Z.md", pattern: "*.md" }]) {
    const r = await s.call(FindFiles, { queries: [q] });
    assert.equal(
      text(r),
      "Z.md is a file, not a directory; dir must be a directory. To read the file, use read_files.",
    );
  }
  const missing = await s.call(FindFiles, { queries: [{ dir: "nope" }] });
  assert.equal(text(missing), "Path does not exist: nope.");
  const one = await s.call(FindFiles, {
    queries: [{ dir: "src/a.ts", pattern: "needle" }],
    mode: "search",
  });
  assert.equal(
    text(one),
    '{"path":"src/a.ts","count":1,"lines":[2]}\n[files 1-1 of 1; last page]',
  );
});

Deno.test("004 find_files: search recursive: false searches only the directory's own files", async () => {
  const s = await TestSession.create();
  await s.write("top.txt", "needle\n");
  await s.write("sub/deep.txt", "needle\n");
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "needle", file_pattern: "*.txt", recursive: false }],
  });
  assert.equal(
    text(r),
    '{"path":"top.txt","count":1,"lines":[1]}\n[files 1-1 of 1; last page]',
  );
});

Deno.test("004 find_files search: never shows a hard link to a sensitive file (as Grep and read_files do not)", async () => {
  const s = await TestSession.create();
  await s.write(".env", "SECRET_ENV=topsecret\n");
  await s.write(".ssh/id_rsa", "SECRET_KEY\n");
  await s.write("sub/plain.txt", "no secret here\n");
  await Deno.link(`${s.workspace}/.env`, `${s.workspace}/sub/hl.txt`);
  await Deno.link(`${s.workspace}/.ssh/id_rsa`, `${s.workspace}/top_hl.txt`);
  const r = await s.call(FindFiles, {
    queries: [{ pattern: "SECRET" }],
    mode: "search",
    output: "content",
  });
  assert.ok(!text(r).includes("topsecret"), text(r));
  assert.ok(!text(r).includes("SECRET_KEY"), text(r));
  assert.ok(!text(r).includes("hl.txt"), text(r));
});
