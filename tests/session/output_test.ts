import assert from "node:assert/strict";
import { ProtocolWriter } from "../../session/output.ts";

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
      role: "assistant",
      content: [{ type: "text", text: "é\u2028" }],
      model: "m",
      stop_reason: "end_turn",
      usage: { input_tokens: 1, output_tokens: 2 },
    },
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
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"é\u2028"}],"model":"m","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}},"session_id":"s1"}`,
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
