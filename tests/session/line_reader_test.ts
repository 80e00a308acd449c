import assert from "node:assert/strict";
import {
  type InputLine,
  readLines,
  warmLineReader,
} from "../../session/line_reader.ts";
import { tempDir } from "../_temp.ts";

function streamOf(chunks: (string | number[])[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return ReadableStream.from(
    chunks.map((c) =>
      typeof c === "string" ? enc.encode(c) : new Uint8Array(c)
    ),
  );
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  max = 100,
): Promise<InputLine[]> {
  const out: InputLine[] = [];
  for await (const line of readLines(stream, max)) out.push(line);
  return out;
}

Deno.test("lines split across chunks, \\r dropped, blank lines skipped but counted", async () => {
  const lines = await collect(streamOf(['{"a"', ":1}\r\n\n", "x\ny", "z"]));
  assert.deepEqual(lines, [
    { line: 1, text: '{"a":1}' },
    { line: 3, text: "x" },
    { line: 4, text: "yz" },
  ]);
});

Deno.test("a multi-byte character split across chunks decodes", async () => {
  const bytes = [...new TextEncoder().encode("é✓\n")];
  const lines = await collect(
    streamOf([bytes.slice(0, 1), bytes.slice(1, 3), bytes.slice(3)]),
  );
  assert.deepEqual(lines, [{ line: 1, text: "é✓" }]);
});

Deno.test("invalid UTF-8 is invalid_json", async () => {
  const [line] = await collect(streamOf([[0xc3, 0x28, 10]]));
  assert.equal("error" in line && line.error, "invalid_json");
});

Deno.test("an over-long line is dropped without being held whole, and the next is read", async () => {
  const long = "x".repeat(60);
  const lines = await collect(
    streamOf([long, long, long, "\nok\n", long + long]),
    100,
  );
  assert.equal(lines.length, 3);
  assert.equal("error" in lines[0] && lines[0].error, "line_too_long");
  assert.deepEqual(lines[1], { line: 2, text: "ok" });
  assert.equal("error" in lines[2] && lines[2].error, "line_too_long");
  assert.equal(lines[2].line, 3);
});

Deno.test("a line of exactly the limit is accepted", async () => {
  const lines = await collect(streamOf(["y".repeat(100) + "\n"]), 100);
  assert.deepEqual(lines, [{ line: 1, text: "y".repeat(100) }]);
});

Deno.test("warmLineReader reads its sample through a file and removes it; without its directory it does nothing, and does not fail", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/kept.txt`, "x");
  await warmLineReader(dir);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [
    "kept.txt",
  ]);
  await warmLineReader(`${dir}/missing`);
  assert.equal(await Deno.stat(`${dir}/missing`).catch(() => null), null);
  await Deno.remove(dir, { recursive: true });
});
