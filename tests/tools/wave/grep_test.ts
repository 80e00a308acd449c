/** Spec 000 Grep, on the tool module in-process. */
import assert from "node:assert/strict";
import Grep from "../../../tools/wave/grep.ts";
import { TestSession, text } from "../../_context.ts";

async function tree(s: TestSession) {
  await s.write(".gitignore", "build/\n");
  await s.write(
    "src/a.ts",
    "import x from 'y';\nconst Needle = 1;\nconst other = 2;\nneedle();\n",
  );
  await s.write("src/b.py", "needle = True\n");
  await s.write("build/gen.ts", "const needle = 'generated';\n");
  await s.write(".git/config", "needle in git\n");
  await s.write(".env", "SECRET_NEEDLE=1\n");
  await s.write("keys/server.pem", "needle\n");
}

Deno.test("000 Grep #1: files_with_matches by default, respecting .gitignore, skipping .git/ and sensitive files", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(Grep, { pattern: "needle" });
  assert.equal(text(r), "Found 2 files\nsrc/a.ts\nsrc/b.py");
  const st = r.structured as Record<string, unknown>;
  assert.equal(st.type, "grep");
  assert.equal(st.mode, "files_with_matches");
  assert.equal(st.files, 2);
  assert.equal(st.matches, 2);
  assert.equal(st.truncated, false);
});

Deno.test("000 Grep #1: content mode gives lines with numbers and match counts", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(Grep, {
    pattern: "needle",
    output_mode: "content",
    "-i": true,
  });
  assert.equal(
    text(r),
    "src/a.ts:2:const Needle = 1;\nsrc/a.ts:4:needle();\nsrc/b.py:1:needle = True",
  );
  assert.equal((r.structured as { matches: number }).matches, 3);
  const noNumbers = await s.call(Grep, {
    pattern: "needle",
    output_mode: "content",
    "-n": false,
    glob: "*.py",
  });
  assert.equal(text(noNumbers), "src/b.py:needle = True");
});

Deno.test("000 Grep: file names with a newline or a colon are one file each, in every mode", async () => {
  const s = await TestSession.create();
  await s.write("new\nline.txt", "needle\n");
  await s.write("a:1:b.txt", "x\nneedle\n");
  await s.write("--\nodd.txt", "needle\n");
  const files = await s.call(Grep, { pattern: "needle" });
  assert.equal((files.structured as { files: number }).files, 3);
  assert.equal(
    text(files),
    "Found 3 files\n--\nodd.txt\na:1:b.txt\nnew\nline.txt",
  );
  const counts = await s.call(Grep, {
    pattern: "needle",
    output_mode: "count",
  });
  assert.equal((counts.structured as { matches: number }).matches, 3);
  assert.equal(
    text(counts),
    "--\nodd.txt:1\na:1:b.txt:1\nnew\nline.txt:1\n\nFound 3 matches in 3 files.",
  );
  const lines = await s.call(Grep, {
    pattern: "needle",
    output_mode: "content",
    glob: "[an]*",
  });
  assert.equal(text(lines), "a:1:b.txt:2:needle\nnew\nline.txt:1:needle");
  assert.equal((lines.structured as { files: number }).files, 2);
});

Deno.test("000 Grep: context lines -A/-B/-C and separators", async () => {
  const s = await TestSession.create();
  await s.write("c.txt", "1\n2\nhit\n4\n5\n6\n7\nhit\n9\n");
  const r = await s.call(Grep, {
    pattern: "hit",
    output_mode: "content",
    "-C": 1,
  });
  assert.equal(
    text(r),
    "c.txt-2-2\nc.txt:3:hit\nc.txt-4-4\n--\nc.txt-7-7\nc.txt:8:hit\nc.txt-9-9",
  );
  assert.equal((r.structured as { matches: number }).matches, 2);
  const after = await s.call(Grep, {
    pattern: "hit",
    output_mode: "content",
    "-A": 1,
    "-B": 0,
  });
  assert.equal(
    text(after),
    "c.txt:3:hit\nc.txt-4-4\n--\nc.txt:8:hit\nc.txt-9-9",
  );
});

Deno.test("000 Grep: count mode", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(Grep, {
    pattern: "needle",
    output_mode: "count",
    "-i": true,
  });
  assert.equal(
    text(r),
    "src/a.ts:2\nsrc/b.py:1\n\nFound 3 matches in 2 files.",
  );
});

Deno.test("000 Grep #3: no match suggests the path field for ignored or other directories", async () => {
  const s = await TestSession.create();
  await tree(s);
  const r = await s.call(Grep, { pattern: "generated" });
  assert.equal(r.isError, undefined);
  assert.match(
    text(r),
    /^No matches found for "generated" in the workspace\. .*set the path field to it\.$/,
  );
  const inIgnored = await s.call(Grep, { pattern: "generated", path: "build" });
  assert.equal(text(inIgnored), "Found 1 file\nbuild/gen.ts");
});

Deno.test("000 Grep: type, glob lists, multiline", async () => {
  const s = await TestSession.create();
  await tree(s);
  assert.equal(
    text(await s.call(Grep, { pattern: "needle", type: "py" })),
    "Found 1 file\nsrc/b.py",
  );
  assert.equal(
    text(
      await s.call(Grep, { pattern: "needle", glob: "*.{py,ts}", "-i": true }),
    ),
    "Found 2 files\nsrc/a.ts\nsrc/b.py",
  );
  const multi = await s.call(Grep, {
    pattern: "Needle = 1;\\nconst other",
    multiline: true,
    output_mode: "content",
  });
  assert.equal(
    text(multi),
    "src/a.ts:2:const Needle = 1;\nsrc/a.ts:3:const other = 2;",
  );
});

Deno.test("000 Grep: head_limit and offset page through results in a stable order", async () => {
  const s = await TestSession.create();
  for (let i = 0; i < 30; i++) {
    await s.write(`p/f${String(i).padStart(2, "0")}.txt`, "hit\n");
  }
  const first = await s.call(Grep, { pattern: "hit", head_limit: 10 });
  assert.equal((first.structured as { truncated: boolean }).truncated, true);
  assert.match(text(first), /Call Grep again with offset 10/);
  const second = await s.call(Grep, {
    pattern: "hit",
    head_limit: 10,
    offset: 10,
  });
  const third = await s.call(Grep, {
    pattern: "hit",
    head_limit: 10,
    offset: 20,
  });
  const all = [first, second, third].flatMap((r) =>
    text(r).split("\n").filter((l) => l.startsWith("p/"))
  );
  assert.deepEqual(
    all,
    Array.from(
      { length: 30 },
      (_, i) => `p/f${String(i).padStart(2, "0")}.txt`,
    ),
  );
  assert.equal((third.structured as { truncated: boolean }).truncated, false);
});

Deno.test("000 Grep: long match lines are cut", async () => {
  const s = await TestSession.create();
  await s.write("min.js", `${"x".repeat(3000)}needle${"y".repeat(3000)}\n`);
  const r = await s.call(Grep, { pattern: "needle", output_mode: "content" });
  assert.ok(text(r).length < 700, `got ${text(r).length} characters`);
  assert.match(
    text(r),
    /^min\.js:1:x{500} \[\.\.\. omitted end of long line\]$/,
  );
});

Deno.test("000 Grep: a bad regex is a clear tool error", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "a\n");
  const r = await s.call(Grep, { pattern: "(unclosed" });
  assert.equal(r.isError, true);
  assert.match(text(r), /^The search failed: regex parse error/);
});

Deno.test('000 Grep: a missing ripgrep is the error "ripgrep is not available"', async () => {
  const s = await TestSession.create();
  s.programs = {};
  await s.write("a.txt", "a\n");
  const r = await s.call(Grep, { pattern: "a" });
  assert.equal(r.isError, true);
  assert.match(text(r), /^ripgrep is not available/);
});

Deno.test("000 Grep: never records a read", async () => {
  const s = await TestSession.create();
  await tree(s);
  await s.call(Grep, { pattern: "needle", output_mode: "content" });
  assert.equal(s.records.size, 0);
});

Deno.test("000 Grep: past the collection cap, pages come from a sorted run that stops early, in the same order", async () => {
  const { COLLECT_CAP } = await import("../../../tools/_core/search.ts");
  const s = await TestSession.create();
  // More matching lines than the cap: one file of many hits, plus small files around it.
  await s.write("a/first.txt", "hit\n");
  await s.write("m/many.txt", "hit\n".repeat(COLLECT_CAP + 50));
  await s.write("z/last.txt", "hit\n");
  const first = await s.call(Grep, {
    pattern: "hit",
    output_mode: "content",
    head_limit: 3,
  });
  assert.equal(
    text(first).split("\n\n")[0],
    "a/first.txt:1:hit\nm/many.txt:1:hit\nm/many.txt:2:hit",
  );
  const deep = await s.call(Grep, {
    pattern: "hit",
    output_mode: "content",
    head_limit: 2,
    offset: COLLECT_CAP + 50,
  });
  assert.equal(
    text(deep).split("\n\n")[0],
    "m/many.txt:10050:hit\nz/last.txt:1:hit",
  );
  assert.equal((deep.structured as { truncated: boolean }).truncated, false);
});

Deno.test("000 Grep: a glob with a slash is relative to path", async () => {
  const s = await TestSession.create();
  await s.write("pkg/src/a.ts", "needle\n");
  await s.write("pkg/b.ts", "needle\n");
  await s.write("src/c.ts", "needle\n");
  const r = await s.call(Grep, {
    pattern: "needle",
    path: "pkg",
    glob: "src/*.ts",
  });
  assert.equal(text(r), "Found 1 file\npkg/src/a.ts");
  const top = await s.call(Grep, { pattern: "needle", glob: "src/*.ts" });
  assert.equal(text(top), "Found 1 file\nsrc/c.ts");
  // One file as the path: its own name in the result.
  const one = await s.call(Grep, {
    pattern: "needle",
    path: "pkg/b.ts",
    output_mode: "content",
  });
  assert.equal(text(one), "pkg/b.ts:1:needle");
});

Deno.test("000 Grep: a glob that leaves nothing to search says so (it cannot reach outside the path)", async () => {
  const s = await TestSession.create();
  await s.write("a.txt", "needle\n");
  const r = await s.call(Grep, { pattern: "needle", glob: "../*" });
  assert.equal(r.isError, true);
  assert.equal(
    text(r),
    "No file was searched: glob ../* left nothing to search. Globs match paths below the search path, and sensitive files (.env*, keys, credentials) are never searched; to search elsewhere, set path.",
  );
});

Deno.test("000 Grep: a glob naming a sensitive file, or matching everything, never lets its contents in", async () => {
  const s = await TestSession.create();
  await s.write(".env", "API_KEY=hunter2\n");
  await s.write("deploy/.env.production", "API_KEY=hunter2\n");
  await s.write("keys/server.pem", "hunter2\n");
  await s.write("notes.txt", "not the key\n");
  for (const glob of [".env*", "**/.env*", "*.pem"]) {
    const r = await s.call(Grep, { pattern: "hunter2", glob });
    assert.equal(r.isError, true, glob);
    assert.match(text(r), /^No file was searched: glob .* left nothing/);
  }
  for (const glob of ["*", "**", "**/*", "{.env,notes.txt}"]) {
    const r = await s.call(Grep, { pattern: "hunter2|key", glob });
    assert.equal(text(r), "Found 1 file\nnotes.txt", glob);
  }
});

Deno.test("000 Grep: files that vanish and reappear while it searches are no error; the result stands", async () => {
  const s = await TestSession.create();
  const names = Array.from({ length: 300 }, (_, i) => `churn/f${i}.txt`);
  for (const name of names) await s.write(name, "needle\n");
  await s.write("stable.txt", "needle\n");
  // Another writer deletes and recreates every file, round after round, until the searches end.
  let searching = true;
  const churn = (async () => {
    for (let round = 0; searching && round < 10_000; round++) {
      for (const name of names) {
        const path = `${s.workspace}/${name}`;
        await Deno.remove(path);
        await Deno.writeTextFile(path, "needle\n");
      }
    }
  })();
  try {
    for (let k = 0; k < 40; k++) {
      const r = await s.call(Grep, { pattern: "needle", head_limit: 1000 });
      assert.equal(r.isError, undefined, text(r));
      assert.match(text(r), /\nstable\.txt$/);
      const counted = await s.call(Grep, {
        pattern: "needle",
        output_mode: "count",
        head_limit: 1000,
      });
      assert.equal(counted.isError, undefined, text(counted));
      assert.match(text(counted), /\nstable\.txt:1\n/);
    }
  } finally {
    searching = false;
    await churn;
  }
});

Deno.test("000 Grep: context separators are the same from the parallel run and the sorted one", async () => {
  const { COLLECT_CAP } = await import("../../../tools/_core/search.ts");
  const s = await TestSession.create();
  // Hits every third line: each with one line of context is a group of its own.
  const body = Array.from(
    { length: 30 },
    (_, i) => i % 3 === 0 ? "hit" : `line ${i}`,
  ).join("\n") + "\n";
  await s.write("a.txt", body);
  await s.write("b.txt", "hit\n");
  const input = {
    pattern: "hit",
    output_mode: "content",
    "-A": 1,
    head_limit: 5,
    offset: 2,
  };
  const parallel = await s.call(Grep, input);
  const expected =
    "a.txt:4:hit\na.txt-5-line 4\n--\na.txt:7:hit\na.txt-8-line 7\n--\na.txt:10:hit";
  assert.equal(text(parallel).split("\n\n")[0], expected);
  // Past the cap, the same page comes from the sorted run.
  await s.write("c.txt", "hit\nx\n".repeat(COLLECT_CAP));
  const sorted = await s.call(Grep, input);
  assert.equal(text(sorted).split("\n\n")[0], expected);
  const across = await s.call(Grep, { ...input, offset: 19, head_limit: 3 });
  assert.equal(
    text(across).split("\n\n")[0],
    "a.txt-29-line 28\n--\nb.txt:1:hit\n--\nc.txt:1:hit",
  );
});

Deno.test("000 Grep: the atomic writer's temp and old files are never searched, whatever the glob", async () => {
  const s = await TestSession.create();
  await s.write("src/a.ts", "needle\n");
  await s.write("src/.a.ts.0123abcd.wave-tmp", "needle, half writ");
  await s.write(".notes.md.89abcdef.wave-old", "needle\n");
  for (const glob of [undefined, "*", ".*", "**/*.wave-tmp"]) {
    const r = await s.call(
      Grep,
      glob ? { pattern: "needle", glob } : {
        pattern: "needle",
      },
    );
    assert.ok(!/0123abcd|89abcdef/.test(text(r)), `${glob}: ${text(r)}`);
  }
  assert.equal(
    text(await s.call(Grep, { pattern: "needle" })),
    "Found 1 file\nsrc/a.ts",
  );
});
