/**
 * `wave acp` with what the client offers (issue 17): the editor's buffers
 * through `fs/read_text_file` and `fs/write_text_file`, the disk without
 * them, and commands shown as terminals the client renders but never runs.
 * The official ACP SDK's client spawns the real CLI; the agent loop runs
 * against the mock model server.
 */

import assert from "node:assert/strict";
import {
  acp,
  type AcpSession,
  finished,
  newSession,
  updatesOf,
  withAcp,
} from "../_acp.ts";
import { callStep, textStep } from "../_mock_model.ts";
import { historyDir } from "../../tools/_core/history_dir.ts";
import {
  contentHash,
  loadContentHash,
} from "../../tools/_core/content_hash.ts";
import { tempDir } from "../_temp.ts";

// The tools hash content; a worker loads the hasher as it starts.
await loadContentHash();

async function prompt(wave: AcpSession, sessionId: string, text: string) {
  assert.deepEqual(
    await wave.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    }),
    { stopReason: "end_turn" },
  );
}

const call = callStep;
const done = textStep("Done.");

/** The update that ended call `id`, which must have come. */
function ended(wave: AcpSession, id: string) {
  const update = finished(wave, id);
  assert.ok(update, `${id} finished`);
  return update;
}

function textOf(update: { content?: acp.ToolCallContent[] | null }): string {
  return (update.content ?? []).map((c) =>
    c.type === "content" && c.content.type === "text" ? c.content.text : ""
  ).join("");
}

const FS = { fs: { readTextFile: true, writeTextFile: true } };

Deno.test("wave acp with fs: Read sees the editor's buffer, Edit and Write go to the editor (exact text, disk untouched), freshness follows the buffer, an outside path is still asked", async () => {
  const outsideDir = await Deno.realPath(
    await tempDir({ prefix: "wave-outside-" }),
  );
  const outside = `${outsideDir}/notes.txt`;
  await Deno.writeTextFile(outside, "outside notes\n");
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-ws-" }),
  );
  const a = `${workspace}/a.txt`;
  const b = `${workspace}/b.txt`;
  await Deno.writeTextFile(a, "hello disk\n");
  await Deno.writeTextFile(b, "old b\n");
  // a.txt is open with unsaved changes; b.txt is not open (the client
  // answers from the disk, as an editor does).
  const buffers = new Map([[a, "hello buffer\r\nsecond line\r\n"]]);
  const newB = "new b\r\nwith ünïcode and a tab\t\n";
  await withAcp({ workspace, buffers }, async (wave, mock) => {
    mock.script(
      call("read_a", "Read", { file_path: "a.txt" }),
      call("edit_a", "Edit", {
        file_path: "a.txt",
        old_string: "hello buffer",
        new_string: "hello there",
      }),
      call("read_b", "Read", { file_path: "b.txt" }),
      call("write_b", "Write", { file_path: "b.txt", content: newB }),
      call("read_out", "Read", { file_path: outside }),
      done,
      // Second turn: the person typed in a.txt meanwhile.
      call("edit_stale", "Edit", {
        file_path: "a.txt",
        old_string: "hello there",
        new_string: "hello again",
      }),
      call("read_again", "Read", { file_path: "a.txt" }),
      call("edit_fresh", "Edit", {
        file_path: "a.txt",
        old_string: "typed",
        new_string: "TYPED",
      }),
      done,
    );
    const sessionId = await newSession(wave, FS);
    await prompt(wave, sessionId, "fix the greeting");

    assert.equal(
      textOf(ended(wave, "read_a")),
      "     1\thello buffer\n     2\tsecond line",
    );
    const edit = ended(wave, "edit_a");
    assert.equal(edit.status, "completed");
    assert.deepEqual(edit.content![0], {
      type: "diff",
      path: a,
      oldText: "hello buffer\nsecond line",
      newText: "hello there\nsecond line",
    });
    assert.equal(textOf(ended(wave, "read_b")), "     1\told b");
    assert.equal(ended(wave, "write_b").status, "completed");
    // The editor got exactly the new text; the disk kept its own.
    assert.deepEqual(
      wave.fsRequests.filter((r) => r.method === "write").map((r) => r.params),
      [
        {
          sessionId,
          path: a,
          content: "hello there\r\nsecond line\r\n",
        },
        { sessionId, path: b, content: newB },
      ],
    );
    assert.equal(buffers.get(a), "hello there\r\nsecond line\r\n");
    assert.equal(buffers.get(b), newB);
    assert.equal(await Deno.readTextFile(a), "hello disk\n");
    assert.equal(await Deno.readTextFile(b), "old b\n");
    // The buffer's old text is in file history, as a disk file's would be.
    const blobs = `${
      historyDir({ workspace, waveHome: await Deno.realPath(wave.waveHome) })
    }/blobs`;
    const old = new TextEncoder().encode("hello buffer\r\nsecond line\r\n");
    assert.deepEqual(await Deno.readFile(`${blobs}/${contentHash(old)}`), old);

    // A path outside the workspace is still asked (and refused here),
    // and the editor is never asked for it.
    assert.deepEqual(
      wave.permissions.map((p) => p.toolCall.toolCallId),
      ["read_out"],
    );
    assert.equal(ended(wave, "read_out").status, "failed");
    assert.ok(!wave.fsRequests.some((r) => r.params.path === outside));

    // The person types in the buffer: Edit is refused as stale until the
    // buffer is read again, whatever the disk says.
    buffers.set(a, "hello there\r\ntyped\r\n");
    await prompt(wave, sessionId, "again");
    const stale = ended(wave, "edit_stale");
    assert.equal(stale.status, "failed");
    assert.equal(
      textOf(stale),
      "a.txt has changed in the editor since it was last read (the person typed, or another tool changed the buffer). Call Read on it again, then edit it.",
    );
    assert.equal(ended(wave, "edit_fresh").status, "completed");
    assert.equal(buffers.get(a), "hello there\r\nTYPED\r\n");
    assert.equal(await Deno.readTextFile(a), "hello disk\n");
    assert.deepEqual(wave.terminalCreates, []);
  });
});

Deno.test("wave acp without fs (or with only one half): the disk is the truth and the client is never asked", async () => {
  for (
    const capabilities of [{}, { fs: { readTextFile: true } }] as const
  ) {
    const workspace = await Deno.realPath(
      await tempDir({ prefix: "wave-ws-" }),
    );
    const a = `${workspace}/a.txt`;
    await Deno.writeTextFile(a, "hello disk\n");
    const buffers = new Map([[a, "hello buffer\n"]]);
    await withAcp({ workspace, buffers }, async (wave, mock) => {
      mock.script(
        call("read_a", "Read", { file_path: "a.txt" }),
        call("edit_a", "Edit", {
          file_path: "a.txt",
          old_string: "disk",
          new_string: "there",
        }),
        done,
      );
      const sessionId = await newSession(wave, capabilities);
      await prompt(wave, sessionId, "fix the greeting");
      assert.equal(textOf(ended(wave, "read_a")), "     1\thello disk");
      assert.equal(ended(wave, "edit_a").status, "completed");
      assert.equal(await Deno.readTextFile(a), "hello there\n");
      assert.deepEqual(wave.fsRequests, []);
      assert.equal(buffers.get(a), "hello buffer\n");
    });
  }
});

Deno.test("wave acp terminals: a client that renders agent-run terminals sees the command wave runs in its sandbox; terminal/create is never asked", async () => {
  await withAcp({}, async (wave, mock) => {
    mock.script(
      call("bash_1", "Bash", { command: "echo one; echo two >&2; exit 3" }),
      done,
    );
    const sessionId = await newSession(wave, {
      terminal: true,
      _meta: { terminal_output: true },
    });
    await prompt(wave, sessionId, "run it");
    const started = updatesOf(wave, "tool_call").find((u) =>
      u.toolCallId === "bash_1"
    )!;
    assert.equal(started.kind, "execute");
    assert.deepEqual(started.content, [{
      type: "terminal",
      terminalId: "bash_1",
    }]);
    assert.deepEqual(started._meta, {
      terminal_info: { terminal_id: "bash_1", cwd: wave.workspace },
    });
    const output = updatesOf(wave, "tool_call_update").filter((u) =>
      u.toolCallId === "bash_1" && u.status === "in_progress"
    );
    assert.ok(output.length >= 1);
    for (const u of output) assert.equal(u.content, undefined);
    const data = output.map((
      u,
    ) => (u._meta?.terminal_output as { terminal_id: string; data: string }));
    assert.ok(data.every((d) => d.terminal_id === "bash_1"));
    assert.deepEqual(
      data.map((d) => d.data).join("").split("\n").sort(),
      ["", "one", "two"],
    );
    const end = ended(wave, "bash_1");
    assert.equal(end.status, "failed");
    assert.deepEqual(end.content, [{ type: "terminal", terminalId: "bash_1" }]);
    assert.deepEqual(end._meta, {
      terminal_exit: { terminal_id: "bash_1", exit_code: 3, signal: null },
    });
    assert.deepEqual(wave.terminalCreates, []);
  });
});

Deno.test("wave acp terminals: a client offering only terminal/* gets the output as text content, and is never asked to run the command", async () => {
  await withAcp({}, async (wave, mock) => {
    mock.script(call("bash_1", "Bash", { command: "echo hi" }), done);
    const sessionId = await newSession(wave, { terminal: true });
    await prompt(wave, sessionId, "run it");
    const started = updatesOf(wave, "tool_call").find((u) =>
      u.toolCallId === "bash_1"
    )!;
    assert.equal(started._meta, undefined);
    const running = updatesOf(wave, "tool_call_update").filter((u) =>
      u.toolCallId === "bash_1" && u.status === "in_progress"
    );
    assert.ok(running.length >= 1);
    assert.equal(textOf(running.at(-1)!), "hi\n");
    const end = ended(wave, "bash_1");
    assert.equal(end.status, "completed");
    assert.equal(textOf(end), "hi");
    assert.deepEqual(wave.terminalCreates, []);
  });
});
