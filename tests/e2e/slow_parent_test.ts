/**
 * A parent that does not read stdout for a while (docs/protocol.md
 * "Transport"): wave keeps every answer, holds at most the high-water mark
 * of progress, stops reading input while it is behind, and exits 0 at EOF.
 *
 * In-process `serve()` with a stdout whose writes resolve only when the
 * test lets them, and a stdin that hands out lines only when wave asks.
 */
import assert from "node:assert/strict";
import { parseFlags } from "../../session/config.ts";
import { checkOutboundLine } from "../../session/outbound.ts";
import {
  HIGH_WATER_BYTES,
  type OutputQueueView,
} from "../../session/output.ts";
import { serve } from "../../session/server.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "../../tools/toolsets.ts";
import { waitUntil } from "../_waiting.ts";
import { tempDir } from "../_temp.ts";

const CALLS = 150;
const LATE = 10;

Deno.test("a parent that does not read stdout while 150 calls print 1 MB each: every request answered once, the queue bounded, input paused, exit 0", async () => {
  const workspace = await tempDir({ prefix: "wave-ws-" });
  const home = await tempDir({ prefix: "wave-home-" });
  const parsed = parseFlags(
    ["--workspace", workspace, "--session-id", "s-slow"],
    { get: (name) => name === "WAVE_HOME" ? home : undefined },
    TOOLSET_NAMES,
  );
  if (parsed.kind !== "run") throw new Error(parsed.stderr);
  const { config } = parsed;

  const encoder = new TextEncoder();
  const request = (id: string, body: Record<string, unknown>) =>
    JSON.stringify({ type: "control_request", request_id: id, request: body }) +
    "\n";
  const bash = (command: string) => ({
    subtype: "call_tool",
    tool_name: "Bash",
    input: { command },
  });
  // Each command marks the end of its output in .done, so the test knows
  // when all of it was produced without reading stdout.
  const calls = Array.from(
    { length: CALLS },
    (_, i) =>
      request(
        `r${i}`,
        bash("head -c 1000000 /dev/zero | tr '\\0' a; echo >> .done"),
      ),
  ).join("");
  const late = (i: number) => request(`late${i}`, { subtype: "list_tools" });

  let queue: OutputQueueView | undefined;
  // stdin: the calls; once wave is behind, one more line; the rest (then
  // EOF) only when wave asks for more.
  let pulls = 0;
  const stdin = new ReadableStream<Uint8Array>({
    async pull(controller) {
      pulls++;
      if (pulls === 1) return controller.enqueue(encoder.encode(calls));
      if (pulls === 2) {
        await waitUntil(() => queue?.congested, "wave's output to back up", {
          timeoutMs: 120_000,
        });
        return controller.enqueue(encoder.encode(late(0)));
      }
      for (let i = 1; i < LATE; i++) {
        controller.enqueue(encoder.encode(late(i)));
      }
      controller.close();
    },
  }, { highWaterMark: 0 });

  // stdout: nothing is taken until the gate opens.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const stdout = {
    async write(bytes: Uint8Array) {
      await gate;
      chunks.push(decoder.decode(bytes, { stream: true }));
      return bytes.length;
    },
  };

  const served = serve(config, { stdin, stdout }, {
    modules: TOOLSETS[config.toolset].map(builtinRef),
    onOutputQueue: (q) => queue = q,
  });

  const done = `${workspace}/.done`;
  const finished = () => {
    try {
      return Deno.readTextFileSync(done).length;
    } catch {
      return 0;
    }
  };
  await waitUntil(() => finished() === CALLS, "every command to finish", {
    timeoutMs: 120_000,
    detail: () => `${finished()} of ${CALLS} finished`,
  });
  // Every call's output is produced, and the parent has read nothing.
  assert.ok(queue!.congested, "wave is behind");
  assert.equal(pulls, 2, "wave read no input while it was behind");

  open();
  const code = await served;
  assert.equal(code, 0);

  const text = chunks.join("");
  assert.ok(text.endsWith("\n"), "the last line is whole");
  const lines = text.slice(0, -1).split("\n");
  const answers = new Map<string, number>();
  let progressBytes = 0;
  let largestProgress = 0;
  let otherBytes = 0;
  let notices = 0;
  for (const line of lines) {
    assert.equal(checkOutboundLine(line), null, line.slice(0, 200));
    const message = JSON.parse(line);
    const bytes = encoder.encode(line).length + 1;
    if (message.subtype === "tool_progress") {
      if (message.text.includes("not streamed until it catches up")) {
        notices++;
        otherBytes += bytes;
      } else {
        progressBytes += bytes;
        largestProgress = Math.max(largestProgress, bytes);
      }
    } else otherBytes += bytes;
    if (message.type === "control_response") {
      const id = message.response.request_id;
      assert.equal(message.response.subtype, "success", line.slice(0, 300));
      answers.set(id, (answers.get(id) ?? 0) + 1);
    }
  }
  const expected = [
    ...Array.from({ length: CALLS }, (_, i) => `r${i}`),
    ...Array.from({ length: LATE }, (_, i) => `late${i}`),
  ];
  assert.deepEqual([...answers.keys()].sort(), expected.sort());
  assert.ok([...answers.values()].every((n) => n === 1), "one answer each");
  assert.ok(notices > 0, "dropped progress was noticed");
  assert.ok(progressBytes < CALLS * 1_000_000, "progress was dropped");
  // Progress is queued only below the high-water mark; answers and
  // notices are always kept.
  const peak = queue!.peakQueuedBytes;
  assert.ok(
    peak <= HIGH_WATER_BYTES + largestProgress + otherBytes,
    `peak ${peak} > ${HIGH_WATER_BYTES} + ${largestProgress} + ${otherBytes}`,
  );
  assert.equal(queue!.queuedBytes, 0);
});
