import assert from "node:assert/strict";
import { ProtocolWriter, WRITE_CHUNK_BYTES } from "../../session/output.ts";
import { toolEventRenderer } from "../../session/tool_events.ts";
import type { TaskListAnnouncer } from "../../session/task_list_announcer.ts";

class Sink {
  chunks: string[] = [];
  fail = false;
  async write(bytes: Uint8Array): Promise<number> {
    await Promise.resolve();
    if (this.fail) throw new Deno.errors.BrokenPipe("gone");
    // Accept at most 7 bytes a write, to exercise partial writes.
    const n = Math.min(7, bytes.length);
    this.chunks.push(new TextDecoder().decode(bytes.subarray(0, n)));
    return n;
  }
}

Deno.test("lines are whole, in order, JSON, with session_id after type and subtype", async () => {
  const sink = new Sink();
  const writer = new ProtocolWriter(sink, "s1");
  for (let i = 0; i < 50; i++) {
    writer.send({ type: "system", subtype: "warning", message: `${i}` });
  }
  writer.send({
    type: "assistant",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "é\u2028" }],
      model: "m",
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 1,
        output_tokens: 2,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
    parent_tool_use_id: null,
    uuid: "6f1c4a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b",
  });
  await writer.drain();
  const lines = sink.chunks.join("").split("\n");
  assert.equal(lines.pop(), "");
  assert.equal(lines.length, 51);
  lines.slice(0, 50).forEach((line, i) => {
    assert.equal(
      line,
      `{"type":"system","subtype":"warning","message":"${i}","session_id":"s1"}`,
    );
  });
  assert.equal(
    lines[50],
    `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"é\u2028"}],"model":"m","stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"parent_tool_use_id":null,"uuid":"6f1c4a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b","session_id":"s1"}`,
  );
});

Deno.test("a broken pipe drops later lines and calls onClosed once", async () => {
  const sink = new Sink();
  sink.fail = true;
  const writer = new ProtocolWriter(sink, "s1");
  let closed = 0;
  writer.onClosed = () => closed++;
  writer.send({ type: "system", subtype: "warning", message: "a" });
  await writer.drain();
  writer.send({ type: "system", subtype: "warning", message: "b" });
  await writer.drain();
  assert.equal(closed, 1);
});

Deno.test("a broken pipe reported as EPIPE also ends the session, and nothing stays queued", async () => {
  const writer = new ProtocolWriter(
    {
      write: () =>
        Promise.reject(Object.assign(new Error("x"), { code: "EPIPE" })),
    },
    "s1",
    { highWaterBytes: 10, lowWaterBytes: 5 },
  );
  let closed = 0;
  writer.onClosed = () => closed++;
  writer.send({ type: "system", subtype: "warning", message: "a" });
  assert.ok(writer.congested);
  await writer.drain();
  assert.equal(closed, 1);
  assert.equal(writer.queuedBytes, 0);
  assert.ok(!writer.congested, "nothing waits for a pipe that is gone");
});

Deno.test("a write that fails without a broken pipe is reported and tried again: no line is dropped", async () => {
  const out: string[] = [];
  let failures = 2;
  const writer = new ProtocolWriter({
    write(bytes) {
      if (failures > 0) {
        failures--;
        return Promise.reject(new RangeError("Invalid string length"));
      }
      out.push(new TextDecoder().decode(bytes));
      return Promise.resolve(bytes.length);
    },
  }, "s1");
  let closed = 0;
  const reported: unknown[] = [];
  writer.onClosed = () => closed++;
  writer.onWriteError = (error) => reported.push(error);
  for (let i = 0; i < 3; i++) {
    writer.send({ type: "system", subtype: "warning", message: `${i}` });
  }
  await writer.drain();
  writer.send({ type: "system", subtype: "warning", message: "3" });
  await writer.drain();
  assert.equal(closed, 0);
  assert.equal(reported.length, 1, "one report for one run of failures");
  assert.deepEqual(
    out.join("").trimEnd().split("\n").map((l) => JSON.parse(l).message),
    ["0", "1", "2", "3"],
  );
  assert.equal(writer.queuedBytes, 0);
});

Deno.test("the queue is written in bounded chunks, never joined whole; a longer line goes alone", async () => {
  const sizes: number[] = [];
  const out: string[] = [];
  const decoder = new TextDecoder();
  const writer = new ProtocolWriter({
    write(bytes) {
      sizes.push(bytes.length);
      out.push(decoder.decode(bytes, { stream: true }));
      return Promise.resolve(bytes.length);
    },
  }, "s1");
  const big = "x".repeat(100_000);
  for (let i = 0; i < 40; i++) {
    writer.send({ type: "system", subtype: "warning", message: big });
  }
  const huge = "y".repeat(WRITE_CHUNK_BYTES * 2);
  writer.send({ type: "system", subtype: "warning", message: huge });
  writer.send({ type: "system", subtype: "warning", message: "end" });
  await writer.drain();
  const lines = out.join("").trimEnd().split("\n");
  assert.equal(lines.length, 42);
  assert.equal(JSON.parse(lines[40]).message, huge);
  assert.equal(JSON.parse(lines[41]).message, "end");
  const hugeLine = lines[40].length + 1;
  assert.ok(sizes.length > 4, `${sizes.length} writes`);
  for (const size of sizes) {
    assert.ok(size <= WRITE_CHUNK_BYTES || size === hugeLine, `${size}`);
  }
});

/** A sink whose writes wait until `open()`; then it takes everything. */
function gatedSink() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const out: string[] = [];
  return {
    out,
    open: () => open(),
    async write(bytes: Uint8Array) {
      await gate;
      out.push(new TextDecoder().decode(bytes));
      return bytes.length;
    },
  };
}

Deno.test("congested above the high-water mark until below the low-water mark; the queued bytes are counted", async () => {
  const sink = gatedSink();
  const writer = new ProtocolWriter(sink, "s1", {
    highWaterBytes: 1000,
    lowWaterBytes: 500,
  });
  writer.send({ type: "system", subtype: "warning", message: "a" });
  const one = writer.queuedBytes;
  assert.ok(one > 0 && !writer.congested);
  for (let i = 0; writer.queuedBytes <= 1000; i++) {
    writer.send({ type: "system", subtype: "warning", message: `${i}` });
  }
  assert.ok(writer.congested);
  let relieved = false;
  const uncongested = writer.uncongested().then(() => relieved = true);
  await Promise.resolve();
  assert.ok(!relieved);
  const queued = writer.queuedBytes;
  assert.equal(writer.peakQueuedBytes, queued);
  sink.open();
  await uncongested;
  await writer.drain();
  assert.equal(writer.queuedBytes, 0);
  assert.equal(writer.peakQueuedBytes, queued);
  assert.ok(!writer.congested);
  assert.equal(sink.out.join("").length, queued);
});

Deno.test("progress is dropped while the writer is congested, with one notice per call, and flows again after", async () => {
  const sink = gatedSink();
  const writer = new ProtocolWriter(sink, "s1", {
    highWaterBytes: 100,
    lowWaterBytes: 50,
  });
  const render = toolEventRenderer(writer, {} as TaskListAnnouncer);
  const output = (text: string) => ({
    type: "output" as const,
    stream: "stdout" as const,
    text,
  });
  render("a", output("x".repeat(200)), "s");
  assert.ok(writer.congested);
  for (let i = 0; i < 5; i++) {
    render("a", output(`a${i}`), "s");
    render("b", output(`b${i}`), "s");
  }
  writer.send({ type: "system", subtype: "warning", message: "kept" });
  sink.open();
  await writer.drain();
  render("a", output("after"), "s");
  await writer.drain();
  const lines = sink.out.join("").trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  );
  const texts = lines.map((m) =>
    `${m.tool_use_id ?? "-"}:${m.text ?? m.message}`
  );
  assert.equal(texts.length, 5);
  assert.equal(texts[0], `a:${"x".repeat(200)}`);
  assert.match(texts[1], /^a:\n\[wave: the parent has not read \d+ bytes/);
  assert.match(texts[2], /^b:\n\[wave: the parent has not read \d+ bytes/);
  assert.deepEqual(texts.slice(3), ["-:kept", "a:after"]);
});

// A type test: `deno test` type-checks this file first and fails on an
// unused @ts-expect-error, that is, when the writer takes one of these.
Deno.test("the writer takes only declared messages", () => {
  const writer = new ProtocolWriter(new Sink(), "s1");
  const _undeclared = () => {
    // @ts-expect-error: no outbound message has subtype "x"
    writer.send({ type: "system", subtype: "x" });
    // @ts-expect-error: a result has no "text" field
    writer.send({ type: "result", text: "t" });
    // @ts-expect-error: tool_progress needs tool_use_id, stream and text
    writer.send({ type: "system", subtype: "tool_progress", text: "t" });
  };
});

Deno.test("a task after the next write runs once the lines queued after it are written, not before", async () => {
  const sink = new Sink();
  // However slow the machine, the task waits for the line (not for the time).
  const writer = new ProtocolWriter(sink, "s1", { afterWriteWaitMs: 600_000 });
  const seen: string[] = [];
  // A line being written when the task is set is not the one it waits for.
  writer.send({ type: "system", subtype: "warning", message: "before" });
  writer.afterNextWrite(() => seen.push(sink.chunks.join("")));
  await writer.drain();
  assert.deepEqual(seen, []);
  writer.send({ type: "system", subtype: "warning", message: "answer" });
  await writer.drain();
  assert.deepEqual(seen, [
    '{"type":"system","subtype":"warning","message":"before","session_id":"s1"}\n' +
    '{"type":"system","subtype":"warning","message":"answer","session_id":"s1"}\n',
  ]);
  // Once only.
  writer.send({ type: "system", subtype: "warning", message: "later" });
  await writer.drain();
  assert.equal(seen.length, 1);
});

Deno.test("a task after the next write runs on its own when nothing is written, and one that throws does not stop the next", async () => {
  const writer = new ProtocolWriter(new Sink(), "s1");
  const errors: unknown[] = [];
  const log = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    const ran = await new Promise<string>((resolve) => {
      writer.afterNextWrite(() => {
        throw new Error("boom");
      });
      writer.afterNextWrite(() => resolve("ran"));
    });
    assert.equal(ran, "ran");
    assert.equal(errors.length, 1);
  } finally {
    console.error = log;
  }
});
