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

/** A file read directly, as Deno.stdin is: `readSync` first, `readable` (counted) for the rest. */
function byteSource(chunks: Uint8Array[]) {
  let readableTaken = 0;
  return {
    source: {
      readSync(buffer: Uint8Array): number | null {
        const chunk = chunks.shift();
        if (!chunk) return null;
        buffer.set(chunk);
        return chunk.length;
      },
      get readable() {
        readableTaken++;
        return ReadableStream.from(chunks.splice(0));
      },
    },
    readableTaken: () => readableTaken,
  };
}

Deno.test("peekFirstLine of a file read directly: the line from readSync() alone, then every byte handed on through its stream", async () => {
  const { source, readableTaken } = byteSource([
    bytes('{"a":'),
    bytes('1}\n{"b"'),
    bytes(":2}\n"),
    bytes("tail"),
  ]);
  const peeked = await peekFirstLine(source, 1000);
  assert.equal(peeked.line, '{"a":1}');
  assert.equal(readableTaken(), 0);
  assert.equal(await all(peeked.stream), '{"a":1}\n{"b":2}\ntail');
  assert.equal(readableTaken(), 1);

  const ended = await peekFirstLine(
    byteSource([bytes("no newline")]).source,
    1000,
  );
  assert.equal(ended.line, null);
  assert.equal(await all(ended.stream), "no newline");
  const long = await peekFirstLine(
    byteSource([bytes("x".repeat(10)), bytes("y".repeat(10)), bytes("\n")])
      .source,
    15,
  );
  assert.equal(long.line, null);
  assert.equal(await all(long.stream), "x".repeat(10) + "y".repeat(10) + "\n");
});

Deno.test("peekFirstLine of a file that would block a synchronous read: read through its stream, nothing lost", async () => {
  let tries = 0;
  const peeked = await peekFirstLine({
    readSync(): number | null {
      tries++;
      throw new Deno.errors.WouldBlock("Resource temporarily unavailable");
    },
    readable: ReadableStream.from([bytes('{"a":1}\nrest')]),
  }, 1000);
  assert.equal(tries, 1);
  assert.equal(peeked.line, '{"a":1}');
  assert.equal(await all(peeked.stream), '{"a":1}\nrest');
});
