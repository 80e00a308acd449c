import assert from "node:assert/strict";
import { abortsAfter, assertToolError, read, withTempDir } from "./_helpers.ts";

Deno.test("csv: rows as written, a quoted comma and a newline inside a field kept; the header apart", async () => {
  assert.deepEqual(await read("quoted.csv", "csv"), {
    unit: "row",
    total: 3,
    first: 1,
    header: "name,quote,notes",
    parts: [
      'Ana,"Hello, world",plain',
      'Ben,"Line one\nLine two",two lines',
      '"Cy ""the"" Third",x,y',
    ],
  });
});

Deno.test("csv: offset/limit count rows after the header, and the header comes with every page", async () => {
  assert.deepEqual(await read("quoted.csv", "csv", { offset: 2, limit: 1 }), {
    unit: "row",
    total: 3,
    first: 2,
    header: "name,quote,notes",
    parts: ['Ben,"Line one\nLine two",two lines'],
  });
  assert.deepEqual(await read("quoted.csv", "csv", { offset: 4, limit: 1 }), {
    unit: "row",
    total: 3,
    first: 4,
    header: "name,quote,notes",
    parts: [],
  });
});

Deno.test("tsv: rows split by tabs", async () => {
  assert.deepEqual(await read("people.tsv", "tsv", { offset: 3, limit: 5 }), {
    unit: "row",
    total: 3,
    first: 3,
    header: "id\tname",
    parts: ["3\tCy"],
  });
});

Deno.test("csv: a byte order mark, blank lines, ragged rows; an empty file; a header alone", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.csv`, "\uFEFFa,b\n\n1,2,3\n4\n");
    assert.deepEqual(await read(`${dir}/a.csv`, "csv"), {
      unit: "row",
      total: 2,
      first: 1,
      header: "a,b",
      parts: ["1,2,3", "4"],
    });
    await Deno.writeTextFile(`${dir}/empty.csv`, "");
    assert.deepEqual(await read(`${dir}/empty.csv`, "csv"), {
      unit: "row",
      total: 0,
      first: 1,
      parts: [],
    });
    await Deno.writeTextFile(`${dir}/head.csv`, "a,b");
    assert.deepEqual(await read(`${dir}/head.csv`, "csv"), {
      unit: "row",
      total: 0,
      first: 1,
      header: "a,b",
      parts: [],
    });
  });
});

Deno.test("csv: a quote never closed is a clear error, and so is a row that would swallow the file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/open.csv`, 'a,b\n1,"open\n2,3\n');
    await assertToolError(
      read(`${dir}/open.csv`, "csv"),
      "open.csv is not a readable CSV file (Quote Not Closed: the parsing is finished with an opening quote at line 3); the file may be corrupt or truncated.",
      "corrupt_document",
    );
    await Deno.writeTextFile(
      `${dir}/swallow.csv`,
      'a,b\n"' + "x,y\n".repeat(300_000),
    );
    await assertToolError(
      read(`${dir}/swallow.csv`, "csv", { offset: 1, limit: 10 }),
      "swallow.csv is not a readable CSV file (a row runs past 1 MiB by line 262146: a quote may be left open); the file may be corrupt or truncated.",
      "corrupt_document",
    );
  });
});

Deno.test("csv: a large file is read in windows, every row counted; an abort stops it between chunks", async () => {
  await withTempDir(async (dir) => {
    const rows = Array.from(
      { length: 50_000 },
      (_, i) => `${i + 1},row ${i + 1}`,
    );
    await Deno.writeTextFile(`${dir}/big.csv`, `n,text\n${rows.join("\n")}\n`);
    assert.deepEqual(
      await read(`${dir}/big.csv`, "csv", { offset: 49_999, limit: 5 }),
      {
        unit: "row",
        total: 50_000,
        first: 49_999,
        header: "n,text",
        parts: ["49999,row 49999", "50000,row 50000"],
      },
    );
    await assertToolError(
      read(`${dir}/big.csv`, "csv", { offset: 1, limit: 1 }, abortsAfter(2)),
      "Reading big.csv was interrupted.",
      "interrupted",
    );
  });
});
