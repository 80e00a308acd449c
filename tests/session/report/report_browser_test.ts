/**
 * The session report in a real browser (Debian's chromium, headless,
 * through playwright-core): pages of sessions the real CLI ran show what
 * happened, their folds open and close, nothing leaves the page and
 * nothing logs an error; a hostile transcript stays text; a 2,000-call
 * transcript makes a page under 10 MB (its times are printed, not asserted).
 */

import assert from "node:assert/strict";
import type { Page } from "../../_browser.ts";
import {
  findChromium,
  inPage,
  isShown,
  openReport,
  waitInPage,
  withBrowser,
} from "../../_browser.ts";
import { ROOT, runWave, startWave } from "../../_wave.ts";
import { renderReport } from "../../../session/report/report.ts";
import { tempDir, tempFile } from "../../_temp.ts";

const chromium = findChromium();
if ("skip" in chromium) console.error(`skipping: ${chromium.skip}`);
const ignore = "skip" in chromium;
const browserPath = "path" in chromium ? chromium.path : "";

const STATS_JS = await Deno.readTextFile(
  `${ROOT}examples/demo-workspace/src/stats.js`,
);

async function text(page: Page): Promise<string> {
  return await inPage<string>(page, "document.body.innerText");
}

/** Clicks a fold's summary and says whether its body is shown after. */
async function toggle(page: Page, fold: string): Promise<boolean> {
  await page.click(`${fold} > summary`);
  // The body is in place once the toggle event has run.
  await waitInPage(
    page,
    `(() => { const el = document.querySelector(${
      JSON.stringify(fold)
    }); return !el.open || el.querySelector(":scope > template") === null; })()`,
  );
  return await isShown(page, `${fold} > .body`);
}

async function screenshot(page: Page): Promise<void> {
  const file = await tempFile({ suffix: ".png" });
  try {
    await page.screenshot({ path: file as `${string}.png`, fullPage: true });
    const png = await Deno.readFile(file);
    assert.deepEqual([...png.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.ok(png.length > 10_000, `a screenshot of ${png.length} bytes`);
  } finally {
    await Deno.remove(file);
  }
}

Deno.test({
  name:
    "report: the demo's session, written by --report, shows its prompt, diff and commands; a fold opens and closes; nothing leaves the page",
  ignore,
  fn: async () => {
    const workspace = await tempDir({ prefix: "wave-report-ws-" });
    await new Deno.Command("cp", {
      args: ["-R", `${ROOT}examples/demo-workspace/.`, workspace],
    }).output();
    const out = `${await tempDir()}/demo.html`;
    const wave = await startWave({
      workspace,
      args: [
        "--model",
        `replay:${ROOT}examples/demo-replay.json`,
        "--report",
        out,
      ],
    });
    await wave.send({
      type: "user",
      message: {
        role: "user",
        content: "The tests fail. Find the bug and fix it.",
      },
    });
    await wave.waitFor((m) => m.type === "result", 60_000);
    assert.equal((await wave.finish()).code, 0);

    await withBrowser(browserPath, async (browser) => {
      const { page, requests, errors } = await openReport(browser, out);
      const shown = await text(page);
      for (
        const expected of [
          "The tests fail. Find the bug and fix it.",
          "mean() divides by length - 1",
          `${workspace}/src/stats.js`,
          "+  return sum(values) / values.length;",
          "-  return sum(values) / (values.length - 1);",
          "2 ran, 0 failed.",
          "1 changed, 1 read.",
          "success",
          "6 model",
          "replay:",
        ]
      ) assert.ok(shown.includes(expected), `the page shows ${expected}`);
      // The first Bash call: folded, its output rendered when opened.
      assert.equal(await isShown(page, "#call-1 > .body"), false);
      assert.equal(await page.$("#call-1 > template") !== null, true);
      assert.equal(await toggle(page, "#call-1"), true);
      assert.match(await text(page), /not ok 2 - mean is the average/);
      assert.match(await text(page), /exit code 0/);
      assert.equal(await toggle(page, "#call-1"), false);
      assert.equal(await toggle(page, "#call-1"), true);
      // The waterfall: one bar of model time per turn.
      assert.equal((await page.$$("svg.waterfall rect.model")).length, 6);
      await screenshot(page);
      assert.deepEqual(requests, []);
      assert.deepEqual(errors, []);
    });
  },
});

Deno.test({
  name:
    "report: a session with edits, a failing command, a refused approval, a task list and an interrupt shows each",
  ignore,
  fn: async () => {
    const workspace = await tempDir({ prefix: "wave-report-ws-" });
    await Deno.mkdir(`${workspace}/src`);
    await Deno.writeTextFile(`${workspace}/src/stats.js`, STATS_JS);
    const dir = await tempDir();
    const script = `${dir}/replay.json`;
    const out = `${dir}/report.html`;
    await Deno.writeTextFile(
      script,
      JSON.stringify({
        model: "replay-report",
        replies: [
          {
            content: [
              { type: "text", text: "I'll **plan** the work first." },
              {
                type: "tool_use",
                name: "TaskCreate",
                input: { subject: "Fix mean()", description: "divide by n" },
              },
              {
                type: "tool_use",
                name: "TaskCreate",
                input: { subject: "Write notes", description: "notes.md" },
              },
            ],
          },
          {
            content: [
              {
                type: "tool_use",
                name: "TaskUpdate",
                input: { taskId: "1", status: "in_progress" },
              },
              {
                type: "tool_use",
                name: "Bash",
                input: {
                  command: "echo 'not ok 2 - mean is the average'; exit 3",
                  description: "Run the tests",
                },
              },
            ],
          },
          {
            content: [{
              type: "tool_use",
              name: "Read",
              input: { file_path: "src/stats.js" },
            }],
          },
          {
            content: [
              {
                type: "tool_use",
                name: "Edit",
                input: {
                  file_path: "src/stats.js",
                  old_string: "  return sum(values) / (values.length - 1);",
                  new_string: "  return sum(values) / values.length;",
                },
              },
              {
                type: "tool_use",
                name: "Write",
                input: {
                  file_path: "notes.md",
                  content: "# Notes\n\nmean() divided by n - 1.\n",
                },
              },
            ],
          },
          {
            content: [{
              type: "tool_use",
              name: "Read",
              input: { file_path: "/etc/hosts" },
            }],
          },
          {
            content: [{
              type: "tool_use",
              name: "Read",
              input: { file_path: "/etc/hosts" },
            }],
          },
          {
            content: [
              {
                type: "tool_use",
                name: "TaskUpdate",
                input: { taskId: "1", status: "completed" },
              },
              {
                type: "tool_use",
                name: "TaskUpdate",
                input: { taskId: "2", status: "completed" },
              },
            ],
          },
          { content: [{ type: "text", text: "Fixed mean(); notes written." }] },
          {
            content: [{
              type: "tool_use",
              name: "Bash",
              input: { command: "sleep 30", description: "A slow job" },
            }],
          },
        ],
      }),
    );
    const wave = await startWave({
      workspace,
      args: [
        "--model",
        `replay:${script}`,
        "--approvals",
        "parent",
        "--report",
        out,
      ],
    });
    await wave.send({
      type: "user",
      message: { role: "user", content: "Fix mean() and keep notes." },
    });
    const ask = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "can_use_tool"
    );
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask.request_id,
        response: { behavior: "deny", message: "not outside the workspace" },
      },
    });
    const ask2 = await wave.waitFor((m) =>
      m.type === "control_request" && m.request.subtype === "can_use_tool" &&
      m !== ask
    );
    await wave.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask2.request_id,
        response: { behavior: "allow" },
      },
    });
    const first = await wave.waitFor((m) => m.type === "result", 60_000);
    assert.equal(first.subtype, "success");
    await wave.send({
      type: "user",
      message: { role: "user", content: "Now run the slow job." },
    });
    await wave.waitFor((m) =>
      m.type === "assistant" &&
      m.message.content.some((
        b: { name?: string; input?: { command?: string } },
      ) => b.input?.command === "sleep 30")
    );
    await new Promise((r) => setTimeout(r, 500));
    await wave.request({ subtype: "interrupt" });
    const second = await wave.waitFor(
      (m) => m.type === "result" && m !== first,
      60_000,
    );
    assert.equal(second.subtype, "error_interrupted");
    assert.equal((await wave.finish()).code, 0);

    await withBrowser(browserPath, async (browser) => {
      const { page, requests, errors } = await openReport(browser, out);
      const shown = await text(page);
      for (
        const expected of [
          "Fix mean() and keep notes.",
          "Now run the slow job.",
          "2 user, 9 model",
          "error_interrupted",
          "2 asked, 1 refused.",
          "allowed",
          "the parent",
          "path outside the workspace: /etc/hosts",
          "not outside the workspace",
          "2 ran, 2 failed.",
          "exit 3",
          "interrupted",
          `${workspace}/notes.md`,
          "2 changed, 2 read.",
          "+3 −0",
          "#1 → in_progress",
          "+  return sum(values) / values.length;",
          "+# Notes",
          "Fix mean()",
          "✓ completed",
          "Fixed mean(); notes written.",
        ]
      ) assert.ok(shown.includes(expected), `the page shows ${expected}`);
      // Markdown: the model's bold is bold.
      assert.equal(
        await page.$eval("#timeline strong", (el) => el.textContent),
        "plan",
      );
      // The failing command: output and exit code in its fold.
      const failing = await page.$$eval(
        "details.call.error",
        (els) => els.map((el) => el.id),
      );
      assert.deepEqual(failing, ["call-4"]);
      assert.deepEqual(
        await page.$$eval(
          "details.call.interrupted",
          (els) => els.map((el) => el.id),
        ),
        ["call-12"],
      );
      assert.deepEqual(
        await page.$$eval(
          "details.call.denied",
          (els) => els.map((el) => el.id),
        ),
        ["call-8"],
      );
      assert.equal(await toggle(page, "#call-4"), true);
      assert.match(await text(page), /exit code 3/);
      assert.equal(await toggle(page, "#call-4"), false);
      // The task list: every change, folded.
      assert.equal(await page.$$eval("#tasks tr", (rows) => rows.length), 2);
      // open all / close all.
      await page.click('button[data-folds="open"]');
      await waitInPage(
        page,
        `document.querySelectorAll("#timeline details.call > template").length === 0`,
      );
      assert.match(await text(page), /sleep 30/);
      await page.click('button[data-folds="close"]');
      assert.equal(
        await page.$$eval("#timeline details.call[open]", (els) => els.length),
        0,
      );
      await screenshot(page);
      assert.deepEqual(requests, []);
      assert.deepEqual(errors, []);
    });
  },
});

Deno.test({
  name:
    "report: --report writes the page after SIGTERM, from what the transcript holds",
  ignore,
  fn: async () => {
    const dir = await tempDir();
    const script = `${dir}/replay.json`;
    const out = `${dir}/report.html`;
    await Deno.writeTextFile(
      script,
      JSON.stringify({
        replies: [{
          content: [{
            type: "tool_use",
            name: "Bash",
            input: { command: "sleep 30 # the long one" },
          }],
        }],
      }),
    );
    const wave = await startWave({
      args: ["--model", `replay:${script}`, "--report", out],
    });
    await wave.send({
      type: "user",
      message: { role: "user", content: "wait for it" },
    });
    await wave.waitFor((m) => m.type === "assistant");
    await new Promise((r) => setTimeout(r, 500));
    wave.child.kill("SIGTERM");
    assert.equal((await wave.wait()).code, 143);
    await withBrowser(browserPath, async (browser) => {
      const { page, requests, errors } = await openReport(browser, out);
      const shown = await text(page);
      assert.ok(shown.includes("wait for it"));
      assert.ok(shown.includes("sleep 30 # the long one"));
      assert.ok(shown.includes("error_interrupted"));
      assert.deepEqual(requests, []);
      assert.deepEqual(errors, []);
    });
  },
});

/** Every payload a hostile transcript carries, each setting `window.__pwned`. */
const PAYLOADS = [
  "<script>window.__pwned = 1</script>",
  '<img src="x" onerror="window.__pwned = 2">',
  "[click me](javascript:window.__pwned=3)",
  "</style><script>window.__pwned = 4</script>",
  "</template><img src=x onerror=window.__pwned=5>",
  '"><svg onload="window.__pwned=6">',
];

Deno.test({
  name:
    "report: a hostile transcript's <script>, onerror, javascript: links and </style> show as text and run nothing; a torn line is noted",
  ignore,
  fn: async () => {
    const dir = await tempDir();
    const transcript = `${dir}/hostile.jsonl`;
    const all = PAYLOADS.join("\n\n");
    const t = (s: number) =>
      new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const lines = [
      {
        type: "session",
        session_id: "hostile",
        cwd: `/work/${PAYLOADS[0]}`,
        model: `replay:${PAYLOADS[1]}`,
        toolset: "wave",
        mode: "agent",
        approvals: "deny",
        wave_version: "0.1.0",
        timestamp: t(0),
      },
      {
        type: "user",
        message: { role: "user", content: `please ${all}` },
        timestamp: t(1),
      },
      {
        type: "assistant",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: `Here: ${all}` },
            {
              type: "tool_use",
              id: "w1",
              name: "Write",
              input: { file_path: `x${PAYLOADS[3]}.html`, content: all },
            },
            {
              type: "tool_use",
              id: "b1",
              name: "Bash",
              input: { command: `echo '${PAYLOADS[0]}'` },
            },
          ],
        },
        model: PAYLOADS[1],
        usage: { input_tokens: PAYLOADS[1], output_tokens: PAYLOADS[0] },
        durationMs: PAYLOADS[5],
        timestamp: t(2),
      },
      {
        type: "user",
        message: {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "w1", content: all },
            { type: "tool_result", tool_use_id: "b1", content: all },
          ],
        },
        toolUseResults: {
          w1: {
            type: "create",
            path: `/work/x${PAYLOADS[3]}.html`,
            diff: `--- x.html\n+++ x.html\n@@ -0,0 +1,${PAYLOADS.length} @@\n${
              PAYLOADS.map((p) => `+${p}`).join("\n")
            }\n`,
          },
          b1: {
            type: "bash",
            command: `echo '${PAYLOADS[0]}'`,
            exitCode: 0,
            output: `${all}\n`.repeat(20),
            fullPath: `/spill/${PAYLOADS[4]}`,
          },
        },
        durationsMs: { w1: PAYLOADS[1], b1: PAYLOADS[0] },
        approvals: {
          w1: { reason: PAYLOADS[1], allowed: PAYLOADS[0], by: PAYLOADS[5] },
        },
        timestamp: t(3),
      },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        // Numbers that are not: shown as 0, never as markup.
        num_turns: PAYLOADS[1],
        duration_ms: PAYLOADS[0],
        usage: { input_tokens: PAYLOADS[5], output_tokens: 2 },
        result: all,
        timestamp: t(4),
      },
    ];
    await Deno.writeTextFile(
      transcript,
      lines.map((l) => JSON.stringify(l)).join("\n") +
        '\n{"type":"assistant","message":{"role":"assi',
    );
    const out = `${dir}/hostile.html`;
    const run = await runWave(["report", transcript, "-o", out]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      `wrote ${out} (2 tool calls; 1 incomplete transcript lines skipped)\n`,
    );
    const html = await Deno.readTextFile(out);
    assert.equal(
      html.match(/<script\b/gi)?.length,
      1,
      "only the page's script",
    );

    await withBrowser(browserPath, async (browser) => {
      const { page, requests, errors } = await openReport(browser, out);
      await page.click('button[data-folds="open"]');
      await waitInPage(
        page,
        `document.querySelectorAll("#timeline details.call > template").length === 0`,
      );
      await inPage(
        page,
        `document.querySelectorAll("details.more").forEach((d) => d.open = true)`,
      );
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await page.evaluate(() => "__pwned" in window), false);
      assert.equal(
        await page.$$eval(
          'a[href^="javascript:" i], img, iframe, svg[onload]',
          (els) => els.length,
        ),
        0,
      );
      const shown = await text(page);
      for (const payload of PAYLOADS) {
        assert.ok(
          shown.includes(payload.replace(/^\[click me\]/, "")) ||
            shown.includes(payload),
          `shows ${payload}`,
        );
      }
      assert.ok(shown.includes(`/work/${PAYLOADS[0]}`));
      assert.ok(shown.includes(`+${PAYLOADS[3]}`));
      assert.ok(shown.includes(`/spill/${PAYLOADS[4]}`));
      assert.match(
        shown,
        /hostile\.jsonl: line 6 is not a complete message \(a write cut short, most likely\); it was skipped/,
      );
      // The style survived: the page's own CSS still applies.
      assert.equal(
        await inPage(
          page,
          `getComputedStyle(document.querySelector("h1")).fontSize`,
        ),
        "22px",
      );
      assert.deepEqual(requests, []);
      assert.deepEqual(errors, []);
    });
  },
});

Deno.test({
  name:
    "report: a 2,000-call transcript makes a page under 10 MB whose folds render when opened (size and times printed)",
  ignore,
  fn: async () => {
    const dir = await tempDir();
    const transcript = `${dir}/big.jsonl`;
    await Deno.writeTextFile(transcript, bigTranscript(2000));
    const started = performance.now();
    const report = await renderReport(transcript);
    const renderMs = performance.now() - started;
    const out = `${dir}/big.html`;
    await Deno.writeTextFile(out, report.html);
    const bytes = (await Deno.stat(out)).size;
    assert.equal(report.calls, 2000);
    assert.ok(bytes < 10 * 1024 * 1024, `${bytes} bytes`);
    await withBrowser(browserPath, async (browser) => {
      const { page, requests, errors, loadMs } = await openReport(browser, out);
      assert.equal(
        await page.$$eval("details.call", (els) => els.length),
        2000,
      );
      assert.equal(await isShown(page, "#call-2000 > .body"), false);
      assert.equal(await toggle(page, "#call-2000"), true);
      console.error(
        `2,000-call report: ${
          (bytes / 1024 / 1024).toFixed(2)
        } MB, rendered in ${
          renderMs.toFixed(0)
        } ms, Chromium's load event after ${loadMs.toFixed(0)} ms`,
      );
      assert.deepEqual(requests, []);
      assert.deepEqual(errors, []);
    });
  },
});

/** A transcript of `calls` tool calls: commands with long output, edits, reads. */
export function bigTranscript(calls: number): string {
  const lines: string[] = [];
  let s = 0;
  const at = () => new Date(Date.UTC(2026, 0, 1) + 700 * s++).toISOString();
  lines.push(JSON.stringify({
    type: "session",
    session_id: "big",
    cwd: "/work",
    model: "anthropic:claude",
    toolset: "wave",
    mode: "agent",
    approvals: "deny",
    wave_version: "0.1.0",
    timestamp: at(),
  }));
  lines.push(JSON.stringify({
    type: "user",
    message: { role: "user", content: "Refactor everything." },
    timestamp: at(),
  }));
  const source = Array.from(
    { length: 120 },
    (_, i) => `export const value${i} = compute(${i}, "line ${i}");`,
  ).join("\n");
  for (let i = 1; i <= calls; i++) {
    const kind = i % 3;
    const id = `t${i}`;
    const use = kind === 0
      ? { name: "Bash", input: { command: `npm test -- --shard ${i}` } }
      : kind === 1
      ? {
        name: "Edit",
        input: {
          file_path: `src/m${i % 50}.ts`,
          old_string: `value${i % 120}`,
          new_string: `renamed${i % 120}`,
        },
      }
      : { name: "Read", input: { file_path: `src/m${i % 50}.ts` } };
    lines.push(JSON.stringify({
      type: "assistant",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `Step ${i}: **${use.name}** next.` },
          { type: "tool_use", id, ...use },
        ],
      },
      model: "claude",
      usage: { input_tokens: 1000 + i, output_tokens: 50 },
      durationMs: 400,
      timestamp: at(),
    }));
    const output = Array.from(
      { length: 200 },
      (_, n) => `ok ${n} - shard ${i} test ${n}`,
    ).join("\n");
    const structured = kind === 0
      ? {
        type: "bash",
        command: use.input.command,
        exitCode: i % 30 === 0 ? 1 : 0,
        durationMs: 250,
        output,
        fullPath: null,
      }
      : kind === 1
      ? {
        type: "edit",
        path: `/work/src/m${i % 50}.ts`,
        diff: `--- src/m${i % 50}.ts\n+++ src/m${
          i % 50
        }.ts\n@@ -1,5 +1,5 @@\n ${
          source.split("\n").slice(0, 2).join("\n ")
        }\n-export const value${i % 120} = 1;\n+export const renamed${
          i % 120
        } = 1;\n ${source.split("\n").slice(3, 5).join("\n ")}\n`,
      }
      : { type: "text", path: `/work/src/m${i % 50}.ts` };
    lines.push(JSON.stringify({
      type: "user",
      message: {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: id,
          content: kind === 2 ? source : kind === 0 ? output : "Edited.",
          is_error: false,
        }],
      },
      toolUseResults: { [id]: structured },
      durationsMs: { [id]: 250 },
      timestamp: at(),
    }));
  }
  lines.push(JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    num_turns: calls,
    duration_ms: 700 * calls,
    usage: { input_tokens: 1, output_tokens: 1 },
    result: "done",
    timestamp: at(),
  }));
  return lines.join("\n") + "\n";
}

Deno.test("report: `wave report` names what is wrong with its arguments", async () => {
  const home = await tempDir();
  const env = { WAVE_HOME: home };
  assert.deepEqual(await runWave(["report"], "", env), {
    code: 2,
    stdout: "",
    stderr:
      "wave report: name a session id or a transcript file: wave report <session-id | transcript.jsonl> [-o FILE]\n",
  });
  assert.deepEqual(await runWave(["report", "nope"], "", env), {
    code: 1,
    stdout: "",
    stderr: `wave report: there is no session nope in ${home}/sessions\n`,
  });
  assert.deepEqual(await runWave(["report", "a", "b"], "", env), {
    code: 2,
    stdout: "",
    stderr: "wave report: one session at a time: a and b were given\n",
  });
  assert.deepEqual(await runWave(["report", "--bogus"], "", env), {
    code: 2,
    stdout: "",
    stderr: "wave report: unknown option --bogus; see wave report --help\n",
  });
});

Deno.test("report: `wave report ID` writes wave-report-ID.html in the caller's directory", async () => {
  const home = await tempDir();
  const cwd = await tempDir();
  await Deno.mkdir(`${home}/sessions`);
  // A session killed mid-turn: a session line and a prompt, no result.
  await Deno.writeTextFile(
    `${home}/sessions/s1.jsonl`,
    [{
      type: "session",
      session_id: "s1",
      cwd: "/w",
      model: "replay:x",
      toolset: "wave",
      mode: "agent",
      approvals: "deny",
      wave_version: "0.1.0",
      timestamp: new Date().toISOString(),
    }, {
      type: "user",
      message: { role: "user", content: "hello" },
      timestamp: new Date().toISOString(),
    }].map((l) => JSON.stringify(l) + "\n").join(""),
  );
  const run = await runWave(["report", "s1"], "", {
    WAVE_HOME: home,
    WAVE_CALLER_CWD: cwd,
  });
  assert.deepEqual(run, {
    code: 0,
    stdout: `wrote ${cwd}/wave-report-s1.html (0 tool calls)\n`,
    stderr: "",
  });
  const html = await Deno.readTextFile(`${cwd}/wave-report-s1.html`);
  assert.match(html, /<p>hello<\/p>/);
  assert.match(html, /the last turn recorded no end \(wave stopped mid-turn\)/);
  assert.match(
    html,
    /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;sha256-[A-Za-z0-9+/=]{44}&#39;; style-src &#39;sha256-[A-Za-z0-9+/=]{44}&#39;;/,
  );
});

Deno.test("report: --report on a session that ran no user turn writes a page that says so", async () => {
  const out = `${await tempDir()}/empty.html`;
  const wave = await startWave({ args: ["--report", out] });
  assert.equal((await wave.finish()).code, 0);
  const html = await Deno.readTextFile(out);
  assert.match(
    html,
    /\.jsonl does not exist: the session ran no user turn, so it recorded nothing/,
  );
  assert.match(html, /No model turns were recorded\./);
});
