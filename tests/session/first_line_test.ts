import assert from "node:assert/strict";
import { peekFirstLine } from "../../session/_first_line.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

async function all(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

Deno.test("peekFirstLine: the first line across chunks, and every byte handed on", async () => {
  const { line, stream } = await peekFirstLine(
    ReadableStream.from([bytes('{"a":'), bytes('1}\n{"b"'), bytes(":2}\n")]),
    1000,
  );
  assert.equal(line, '{"a":1}');
  assert.equal(await all(stream), '{"a":1}\n{"b":2}\n');
});

Deno.test("peekFirstLine: no line when the stream ends first, the limit passes, or it is not UTF-8; nothing is lost", async () => {
  const ended = await peekFirstLine(
    ReadableStream.from([bytes("no newline")]),
    1000,
  );
  assert.equal(ended.line, null);
  assert.equal(await all(ended.stream), "no newline");
  const long = await peekFirstLine(
    ReadableStream.from([
      bytes("x".repeat(10)),
      bytes("y".repeat(10)),
      bytes("\n"),
    ]),
    15,
  );
  assert.equal(long.line, null);
  assert.equal(await all(long.stream), "x".repeat(10) + "y".repeat(10) + "\n");
  const bad = await peekFirstLine(
    ReadableStream.from([Uint8Array.of(0xff, 0xfe, 10, 0x41)]),
    100,
  );
  assert.equal(bad.line, null);
  assert.deepEqual(
    new Uint8Array(await new Response(bad.stream).arrayBuffer()),
    Uint8Array.of(0xff, 0xfe, 10, 0x41),
  );
});
