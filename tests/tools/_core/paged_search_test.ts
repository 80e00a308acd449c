/** The paged search core (spec 004 find_files search): totals, pages, merging, cut lines, RE2 errors. */
import assert from "node:assert/strict";
import {
  cutMatchLine,
  FIRST_LINES,
  MAX_MATCH_LINE_BYTES,
  type PagedSearch,
  pagedSearch,
  searchId,
} from "../../../tools/_core/paged_search.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { TestSession } from "../../_context.ts";

function search(
  s: TestSession,
  overrides: Partial<PagedSearch> & { pattern?: string } = {},
): PagedSearch {
  const { pattern = "needle", ...rest } = overrides;
  return {
    queries: [{ root: s.workspace, pattern }],
    output: "files",
    offset: 0,
    limit: 256,
    ...rest,
  };
}

Deno.test("004 find_files search: files output counts every matching line and carries the first five line numbers", async () => {
  const s = await TestSession.create();
  await s.write(
    "a.txt",
    Array.from({ length: 9 }, (_, k) => k % 2 ? "x" : "needle").join("\n"),
  );
  await s.write("b/c.txt", "x\nneedle\n");
  const page = await pagedSearch(s.context(), search(s));
  assert.deepEqual(page.rows, [
    { path: "a.txt", count: 5, lines: [1, 3, 5, 7, 9] },
    { path: "b/c.txt", count: 1, lines: [2] },
  ]);
  assert.equal(FIRST_LINES, 5);
  await s.write("a.txt", "needle\n".repeat(8));
  const more = await pagedSearch(s.context(), search(s));
  assert.deepEqual(more.rows[0], {
    path: "a.txt",
    count: 8,
    lines: [1, 2, 3, 4, 5],
  });
  assert.equal(more.total, 2);
  assert.equal(more.next, undefined);
});

Deno.test("004 find_files search: pages of files and of lines know the total and the next offset", async () => {
  const s = await TestSession.create();
  for (let k = 0; k < 5; k++) await s.write(`f${k}.txt`, "needle\nneedle\n");
  const files = await pagedSearch(
    s.context(),
    search(s, { offset: 1, limit: 2 }),
  );
  assert.deepEqual(files.rows.map((r) => r.path), ["f1.txt", "f2.txt"]);
  assert.deepEqual([files.total, files.count, files.next], [5, 2, 3]);
  const lines = await pagedSearch(
    s.context(),
    search(s, { output: "content", offset: 3, limit: 4 }),
  );
  assert.deepEqual(
    lines.rows.map((r) => `${r.path}:${"line" in r ? r.line : ""}`),
    ["f1.txt:2", "f2.txt:1", "f2.txt:2", "f3.txt:1"],
  );
  assert.deepEqual([lines.total, lines.count, lines.next], [10, 4, 7]);
  const last = await pagedSearch(
    s.context(),
    search(s, { output: "content", offset: 7, limit: 4 }),
  );
  assert.deepEqual([last.count, last.next], [3, undefined]);
});

Deno.test("004 find_files search: context lines are marked and not counted; a match of another page is not shown as context", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "one\nneedle A\ntwo\nthree\nneedle B\nfour\n");
  const page = await pagedSearch(
    s.context(),
    search(s, { output: "content", context: 1, limit: 1 }),
  );
  assert.deepEqual(page.rows, [
    { path: "a.txt", line: 1, text: "one", context: true },
    { path: "a.txt", line: 2, text: "needle A" },
    { path: "a.txt", line: 3, text: "two", context: true },
  ]);
  assert.deepEqual([page.total, page.count, page.next], [2, 1, 1]);
  const touching = await pagedSearch(
    s.context(),
    search(s, { output: "content", context: 3, limit: 1 }),
  );
  // Line 5 is within 3 lines of line 2, but it is a match of the next page.
  assert.deepEqual(
    touching.rows.map((r) => "line" in r && r.line),
    [1, 2, 3, 4],
  );
});

Deno.test("004 find_files search: multiline matches across line ends and reports every line a match covers", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "begin\nmiddle\nend\nbegin\n");
  const page = await pagedSearch(
    s.context(),
    search(s, { pattern: "begin.*?end", output: "content", multiline: true }),
  );
  assert.deepEqual(
    page.rows.map((r) => "line" in r && [r.line, r.text]),
    [[1, "begin"], [2, "middle"], [3, "end"]],
  );
  const single = await pagedSearch(
    s.context(),
    search(s, { pattern: "begin.*?end" }),
  );
  assert.equal(single.total, 0);
});

Deno.test("004 find_files: several queries are merged, each file and line once", async () => {
  const s = await TestSession.create();
  await s.write("src/a.txt", "needle\nhay\nneedle hay\n");
  await s.write("b.txt", "hay\n");
  const page = await pagedSearch(s.context(), {
    queries: [
      { root: s.workspace, pattern: "needle" },
      { root: `${s.workspace}/src`, pattern: "needle" },
      { root: s.workspace, pattern: "hay" },
    ],
    output: "files",
    offset: 0,
    limit: 10,
  });
  assert.deepEqual(page.rows, [
    { path: "b.txt", count: 1, lines: [1] },
    { path: "src/a.txt", count: 3, lines: [1, 2, 3] },
  ]);
  const lines = await pagedSearch(s.context(), {
    queries: [
      { root: s.workspace, pattern: "needle" },
      { root: s.workspace, pattern: "hay", filePattern: "src/**" },
    ],
    output: "content",
    offset: 0,
    limit: 10,
  });
  assert.deepEqual(
    lines.rows.map((r) => "line" in r && `${r.path}:${r.line}`),
    ["src/a.txt:1", "src/a.txt:2", "src/a.txt:3"],
  );
});

Deno.test("004 find_files search: paged, never cut: past the text cap a page is the same, its files searched again", async () => {
  const s = await TestSession.create();
  for (let k = 0; k < 6; k++) {
    await s.write(`d${k}/f.txt`, `a\nneedle ${k}\nb\nneedle ${k}!\nc\n`);
  }
  for (const offset of [0, 3, 9]) {
    const request = {
      queries: [
        { root: s.workspace, pattern: "needle" },
        { root: `${s.workspace}/d2`, pattern: "b" },
      ],
      output: "content" as const,
      context: 1,
      offset,
      limit: 4,
    };
    const held = await pagedSearch(s.context(), request);
    const refetched = await pagedSearch(s.context(), {
      ...request,
      textCap: 3,
    });
    assert.deepEqual(refetched, held, `offset ${offset}`);
    assert.equal(held.total, 13);
  }
});

Deno.test("004 find_files search: a matching line over 512 bytes is cut, on a character boundary", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", `${"é".repeat(400)}needle\nshort needle\n`);
  const page = await pagedSearch(s.context(), search(s, { output: "content" }));
  const [long, short] = page.rows as { text: string; cut?: true }[];
  assert.equal(long.cut, true);
  assert.equal(long.text, "é".repeat(256));
  assert.deepEqual(short, { path: "a.txt", line: 2, text: "short needle" });
  assert.equal(MAX_MATCH_LINE_BYTES, 512);
  assert.deepEqual(cutMatchLine("x".repeat(512)), {
    text: "x".repeat(512),
    cut: false,
  });
  assert.deepEqual(cutMatchLine("x".repeat(513)), {
    text: "x".repeat(512),
    cut: true,
  });
  // A short line that happens to end like ripgrep's marker is left alone.
  const odd = "x [... omitted end of long line]";
  assert.deepEqual(cutMatchLine(odd), { text: odd, cut: false });
});

Deno.test("004 find_files search: a backreference or look-around is a tool error saying RE2 syntax is expected", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "aa\n");
  for (
    const [pattern, why] of [
      ["(a)\\1", "backreferences are not supported"],
      [
        "a(?=a)",
        "look-around, including look-ahead and look-behind, is not supported",
      ],
      [
        "(?<!b)a",
        "look-around, including look-ahead and look-behind, is not supported",
      ],
    ]
  ) {
    await assert.rejects(
      pagedSearch(s.context(), search(s, { pattern })),
      (e: Error) => {
        assert.ok(e instanceof ToolError);
        assert.equal(
          e.message,
          `The pattern ${
            JSON.stringify(pattern)
          } is not valid RE2 syntax: ${why}. The search expects RE2 syntax (ripgrep's default regex engine, which runs in linear time): no backreferences (\\1) and no look-around ((?=…), (?!…), (?<=…), (?<!…)). Rewrite the pattern without them, for example by matching a wider line and reading around it.`,
        );
        return true;
      },
    );
  }
});

Deno.test("004 find_files search: respects .gitignore, never .git/ or sensitive files", async () => {
  const s = await TestSession.create();
  await s.write(".gitignore", "build/\n");
  await s.write("build/out.txt", "needle\n");
  await s.write(".git/config", "needle\n");
  await s.write(".env", "needle\n");
  await s.write("src/a.txt", "needle\n");
  const page = await pagedSearch(s.context(), search(s));
  assert.deepEqual(page.rows.map((r) => r.path), ["src/a.txt"]);
});

Deno.test("004 find_files search: a query whose globs leave no file is said to have searched nothing", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "needle\n");
  const page = await pagedSearch(s.context(), {
    queries: [
      { root: s.workspace, pattern: "needle", filePattern: "*.nothing" },
      { root: s.workspace, pattern: "absent" },
    ],
    output: "files",
    offset: 0,
    limit: 10,
  });
  assert.deepEqual([page.total, page.nothingSearched], [0, [0]]);
});

Deno.test("004 find_files search: the search id names the rows (queries, output, multiline), not the page", async () => {
  const s = await TestSession.create();
  const base = search(s);
  const id = searchId(base);
  assert.match(id, /^[0-9a-f]{8}$/);
  assert.equal(searchId({ ...base, offset: 256, limit: 10, context: 3 }), id);
  assert.notEqual(searchId({ ...base, output: "content" }), id);
  assert.notEqual(searchId({ ...base, multiline: true }), id);
  assert.notEqual(searchId(search(s, { pattern: "other" })), id);
  assert.notEqual(
    searchId({
      ...base,
      queries: [{ ...base.queries[0], filePattern: "*.ts" }],
    }),
    id,
  );
});

Deno.test("004 find_files search: a file pattern never brings back what .gitignore, .git/ or the sensitive rules leave out", async () => {
  const s = await TestSession.create();
  await s.write(".gitignore", "out/\n");
  await s.write("out/y.ts", "needle\n");
  await s.write("src/out/z.ts", "needle\n");
  await s.write(".git/HEAD", "needle\n");
  await s.write(".env", "needle\n");
  await s.write("src/a.ts", "needle\n");
  for (const filePattern of ["*", "out*", "**", "src/**", "**/*", "{*,.env}"]) {
    const page = await pagedSearch(s.context(), {
      ...search(s),
      queries: [{ root: s.workspace, pattern: "needle", filePattern }],
    });
    assert.deepEqual(
      page.rows.map((r) => r.path),
      filePattern === "out*" ? [] : ["src/a.ts"],
      filePattern,
    );
  }
  const named = await pagedSearch(s.context(), {
    ...search(s),
    queries: [{
      root: s.workspace,
      pattern: "needle",
      filePattern: "src/*.ts",
    }],
  });
  assert.deepEqual(named.rows.map((r) => r.path), ["src/a.ts"]);
});

Deno.test("004 find_files search: hard links to sensitive files are left out, in files and content output", async () => {
  const s = await TestSession.create();
  await s.write(".env", "SECRET_ENV=topsecret\n");
  await s.write(".ssh/id_rsa", "SECRET_KEY\n");
  await s.write("sub/plain.txt", "SECRET is a word\n");
  await Deno.mkdir(`${s.workspace}/sub`, { recursive: true });
  await Deno.link(`${s.workspace}/.env`, `${s.workspace}/sub/hl.txt`);
  await Deno.link(`${s.workspace}/.ssh/id_rsa`, `${s.workspace}/top_hl.txt`);
  for (const output of ["files", "content"] as const) {
    const page = await pagedSearch(
      s.context(),
      search(s, { pattern: "SECRET", output }),
    );
    assert.deepEqual(page.rows.map((r) => r.path), ["sub/plain.txt"]);
    assert.equal(page.total, 1);
    // A query rooted at the link itself finds nothing either.
    const one = await pagedSearch(s.context(), {
      ...search(s, { pattern: "SECRET", output }),
      queries: [{ root: `${s.workspace}/sub/hl.txt`, pattern: "SECRET" }],
    });
    assert.deepEqual(one.rows, []);
  }
});
