/** The ripgrep driver: a file searched on its own is opened by wave and fed to rg, never opened by rg. */
import assert from "node:assert/strict";
import {
  ripgrepScope,
  runRipgrep,
  STDIN_TARGET,
} from "../../../tools/_core/ripgrep.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { TestSession } from "../../_context.ts";

const ARGS = ["--no-config", "--line-number", "--with-filename", "--null"];

Deno.test("ripgrep: a file searched on its own is read from rg's stdin and named by its path in the workspace", async () => {
  const s = await TestSession.create();
  await s.write("src/notes.txt", "alpha\nbeta\nbeta again\n");
  const ctx = s.context();
  const scope = await ripgrepScope(ctx, `${s.workspace}/src/notes.txt`);
  assert.deepEqual(scope, {
    cwd: s.workspace,
    target: STDIN_TARGET,
    input: { path: `${s.workspace}/src/notes.txt`, label: "src/notes.txt" },
    prefix: "",
  });
  const records: string[] = [];
  const run = await runRipgrep(
    ctx,
    [...ARGS, "--regexp=beta", "--", STDIN_TARGET],
    scope,
    "path-lines",
    (record) => void records.push(record),
  );
  assert.equal(run.code, 0);
  assert.deepEqual(records, [
    "src/notes.txt\x002:beta",
    "src/notes.txt\x003:beta again",
  ]);
  // A run stopped early ends without an error, whether the file was
  // copied into rg (up to 1 MiB) or handed over as its stdin.
  for (const lines of [150_000, 400_000]) {
    const first: string[] = [];
    await s.write(`big${lines}.txt`, "beta\n".repeat(lines));
    const stopped = await runRipgrep(
      ctx,
      [...ARGS, "--regexp=beta", "--", STDIN_TARGET],
      await ripgrepScope(ctx, `${s.workspace}/big${lines}.txt`),
      "path-lines",
      (record) => {
        first.push(record);
        return false;
      },
    );
    assert.equal(stopped.stopped, true);
    assert.deepEqual(first, [`big${lines}.txt\x001:beta`]);
    // Searched to its end, a large file's last line is found too.
    const last: string[] = [];
    await runRipgrep(
      ctx,
      [...ARGS, "--count", "--regexp=beta", "--", STDIN_TARGET],
      await ripgrepScope(ctx, `${s.workspace}/big${lines}.txt`),
      "path-lines",
      (record) => void last.push(record),
    );
    assert.deepEqual(last, [`big${lines}.txt\x00${lines}`]);
  }
  assert.deepEqual(s.groups.size, 0, "no rg left running");
});

Deno.test("ripgrep: a named pipe in place of the file is refused before rg starts, at once", async () => {
  const s = await TestSession.create();
  await s.write("f", "beta\n");
  const ctx = s.context();
  const scope = await ripgrepScope(ctx, `${s.workspace}/f`);
  // Swapped in after the scope was taken, as a racing process would.
  await Deno.remove(`${s.workspace}/f`);
  const made = await new Deno.Command("mkfifo", { args: [`${s.workspace}/f`] })
    .output();
  assert.equal(made.code, 0);
  let started = 0;
  const counting = {
    ...ctx,
    processes: { ...ctx.processes, started: () => void started++ },
  };
  await assert.rejects(
    runRipgrep(
      counting,
      [...ARGS, "--regexp=beta", "--", STDIN_TARGET],
      scope,
      "path-lines",
      () => {},
    ),
    (error: unknown) =>
      error instanceof ToolError &&
      (error.structured as { type?: string }).type === "not_regular_file" &&
      error.message.startsWith("f is a named pipe (FIFO), not a regular file"),
  );
  assert.equal(started, 0);
});

Deno.test("ripgrep: a file that leads to a sensitive file the check did not judge is left out, before rg starts; one the parent approved is searched", async () => {
  const s = await TestSession.create();
  await s.write(".env", "SECRET=1\n");
  await s.write("f", "fine\n");
  const ctx = s.context();
  const scope = await ripgrepScope(ctx, `${s.workspace}/f`);
  // Swapped for a hard link to .env after the scope was taken.
  await Deno.remove(`${s.workspace}/f`);
  await Deno.link(`${s.workspace}/.env`, `${s.workspace}/f`);
  let started = 0;
  const search = async (context: typeof ctx) => {
    const records: string[] = [];
    const run = await runRipgrep(
      {
        ...context,
        processes: { ...context.processes, started: () => void started++ },
      },
      [...ARGS, "--regexp=SECRET", "--", STDIN_TARGET],
      scope,
      "path-lines",
      (record) => void records.push(record),
    );
    return { code: run.code, records };
  };
  assert.deepEqual(await search(ctx), { code: 1, records: [] });
  assert.equal(started, 0, "rg never saw it");
  const approved = {
    ...ctx,
    approvedFor: (real: string) => real === `${s.workspace}/f`,
  };
  assert.deepEqual(await search(approved), {
    code: 0,
    records: ["f\x001:SECRET=1"],
  });
});
