/**
 * End-to-end: a file tool that never answers is stopped at its deadline
 * (the hidden `--tool-deadline`, 60 s by default), the call answers with
 * an error saying what happened and what to try, and the next call runs on
 * a fresh worker. A call whose tool never starts (its module hangs as it
 * loads) is answered too, after the deadline and the start allowance, and
 * one whose tool ends its worker at once.
 */

import assert from "node:assert/strict";
import { runWave, withWave } from "../_wave.ts";

const hung = (deadline: string) =>
  `Hang did not finish within its deadline of ${deadline}, so it was stopped and its sandbox worker replaced. Try a smaller request: a narrower range (offset and limit), a more specific path or pattern.`;

Deno.test("deadline: a tool spinning its worker's thread answers with an error at its deadline, and wave goes on", async () => {
  await withWave({
    args: ["--tool-deadline", "500ms"],
    fixtureTools: ["hang.ts", "echo.ts"],
  }, async (wave) => {
    const hang = await wave.callTool("Hang", { how: "busy" });
    assert.deepEqual(hang, {
      tool_use_id: hang.tool_use_id,
      content: hung("500 ms"),
      is_error: true,
      structured: { type: "deadline_exceeded", deadline_ms: 500 },
    });
    const echo = await wave.callTool("Echo", { text: "after" });
    assert.equal(echo.content, "after");
    assert.equal(echo.is_error, false);
    const status = await wave.finish();
    assert.equal(status.code, 0);
  });
});

Deno.test("deadline: a tool awaiting forever, deaf to its abort, is stopped too; a call beside it is answered", async () => {
  await withWave({
    args: ["--tool-deadline", "1s"],
    fixtureTools: ["hang.ts", "echo.ts"],
  }, async (wave) => {
    const [hang, echo] = await Promise.all([
      wave.callTool("Hang", { how: "wait" }),
      wave.callTool("Echo", { text: "beside it" }),
    ]);
    assert.equal(hang.content, hung("1 s"));
    assert.equal(echo.content, "beside it");
    assert.equal(
      (await wave.callTool("Echo", { text: "then" })).content,
      "then",
    );
  });
});

Deno.test("deadline: a call whose tool's module never loads in its worker is answered with an error after the deadline and the start allowance, and wave goes on", async () => {
  await withWave({
    args: ["--tool-deadline", "500ms"],
    fixtureTools: ["hang_on_load.ts", "echo.ts"],
  }, async (wave) => {
    const started = Date.now();
    const hang = await wave.callTool("HangOnLoad", {});
    assert.deepEqual(hang, {
      tool_use_id: hang.tool_use_id,
      content:
        "HangOnLoad did not start within 10.5 s: its sandbox worker did not finish loading the tool's code (a module that hangs as it loads, or holds its worker's thread), so the call was stopped and the worker replaced.",
      is_error: true,
      structured: { type: "deadline_exceeded", deadline_ms: 10_500 },
    });
    assert.ok(Date.now() - started >= 10_500);
    const echo = await wave.callTool("Echo", { text: "after" });
    assert.equal(echo.content, "after");
    assert.equal(echo.is_error, false);
    const status = await wave.finish();
    assert.equal(status.code, 0);
  });
});

Deno.test("deadline: a tool that ends its own worker (self.close, Deno.exit, process.exit) is answered at once, not at its deadline, and wave goes on", async () => {
  await withWave({
    fixtureTools: ["end_worker.ts", "echo.ts"],
  }, async (wave) => {
    for (
      const [how, said] of [
        ["close", "self.close()"],
        ["exit", "Deno.exit(3)"],
        ["process_exit", "Deno.exit(4)"],
      ]
    ) {
      const ended = await wave.callTool("EndWorker", { how });
      assert.deepEqual(ended, {
        tool_use_id: ended.tool_use_id,
        content:
          `the tool ended its sandbox worker (${said}), so the call was not answered`,
        is_error: true,
        structured: { type: "sandbox_failure" },
      });
      const echo = await wave.callTool("Echo", { text: how });
      assert.equal(echo.content, how);
    }
    const status = await wave.finish();
    assert.equal(status.code, 0);
  });
});

Deno.test("deadline: --tool-deadline is a flag for tests, left out of --help", async () => {
  const help = await runWave(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--tool-module FILE/);
  assert.doesNotMatch(help.stdout, /tool-deadline/);
});
