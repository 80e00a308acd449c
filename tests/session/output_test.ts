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
    writer.send({ type: "system", subtype: "x", n: i });
  }
  writer.send({ type: "result", text: "é\u2028" });
  await writer.drain();
  const lines = sink.chunks.join("").split("\n");
  assert.equal(lines.pop(), "");
  assert.equal(lines.length, 51);
  lines.slice(0, 50).forEach((line, i) => {
    assert.equal(
      line,
      `{"type":"system","subtype":"x","n":${i},"session_id":"s1"}`,
    );
  });
  assert.deepEqual(JSON.parse(lines[50]), {
    type: "result",
    text: "é\u2028",
    session_id: "s1",
  });
});

Deno.test("a broken pipe drops later lines and calls onClosed once", async () => {
  const sink = new Sink();
  sink.fail = true;
  const writer = new ProtocolWriter(sink, "s1");
  let closed = 0;
  writer.onClosed = () => closed++;
  writer.send({ type: "a" });
  await writer.drain();
  writer.send({ type: "b" });
  await writer.drain();
  assert.equal(closed, 1);
});
