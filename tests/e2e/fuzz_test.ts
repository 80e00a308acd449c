/**
 * End-to-end: no input line stops wave (docs/protocol.md "Bad input").
 *
 * 10,000 generated lines (random bytes, invalid UTF-8, JSON that is not an
 * object, prototype names as `type`, `subtype` and tool names, deep
 * nesting, huge numbers, a wrong type in every field) go to the real CLI in
 * one stream. Every non-blank line gets exactly one answer (a
 * `control_response`, a `system/error` or, for a well-formed user turn with
 * no model, a `result`), wave still serves a request after them, and it
 * exits 0 on EOF. The generator is seeded: a failure names its seed, and
 * `WAVE_FUZZ_SEED=<seed>` replays it.
 */

import assert from "node:assert/strict";
import { startWave } from "../_wave.ts";

const LINES = 10_000;

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Names an object inherits: looked up carelessly, they are not "unknown". */
const PROTOTYPE_NAMES = [
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__proto__",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupSetter__",
];

/** Builds the generator's line kinds over one random source. */
function generator(random: () => number) {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const randomString = () =>
    Array.from(
      { length: int(20) },
      () => String.fromCharCode(int(2) ? 32 + int(95) : int(0xffff)),
    ).join("");
  const wrongValues = (): unknown[] => [
    null,
    true,
    0,
    -1,
    1e308,
    -1e308,
    2 ** 53 + 1,
    "",
    randomString(),
    [],
    [1, "a"],
    {},
    { a: { b: [] } },
  ];
  const anyValue = (): unknown => pick(wrongValues());
  const nameLike = (valid: readonly string[]) =>
    pick([...valid, ...PROTOTYPE_NAMES, randomString(), anyValue()]);

  const deep = (depth: number, kind: "array" | "object") =>
    kind === "array"
      ? "[".repeat(depth) + "]".repeat(depth)
      : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

  let nextId = 1;
  const requestId = () =>
    int(4) === 0 ? anyValue() : int(2) ? `fz-${nextId++}` : nextId++;

  const controlBody = (): unknown => {
    if (int(8) === 0) return anyValue();
    const subtype = nameLike([
      "call_tool",
      "interrupt",
      "set_permission_mode",
      "list_tools",
      "get_tasks",
    ]);
    const body: Record<string, unknown> = { subtype };
    if (subtype === "call_tool" || int(3) === 0) {
      body.tool_name = nameLike([
        "Read",
        "Glob",
        "Grep",
        "TaskList",
        "TaskGet",
      ]);
      body.input = pick([
        anyValue(),
        { file_path: "missing.txt" },
        { pattern: "*.none" },
        { pattern: anyValue() },
        { taskId: anyValue() },
        { [pick(PROTOTYPE_NAMES)]: anyValue() },
      ]);
      if (int(4) === 0) body.tool_use_id = anyValue();
    }
    if (subtype === "set_permission_mode" || int(5) === 0) {
      body.mode = pick([
        "ask",
        "plan",
        "agent",
        ...PROTOTYPE_NAMES,
        anyValue(),
      ]);
    }
    return body;
  };

  const kinds: (() => string | Uint8Array)[] = [
    // Random bytes, often not UTF-8; never a newline (that would be two lines).
    () =>
      Uint8Array.from(
        { length: 1 + int(200) },
        () => {
          const b = int(256);
          return b === 10 ? 11 : b;
        },
      ),
    // Invalid UTF-8 inside otherwise good JSON.
    () => {
      const good = new TextEncoder().encode('{"type":"user","x":"??"}');
      good[good.length - 4] = 0xc3;
      good[good.length - 3] = 0x28;
      return good;
    },
    // JSON that is not an object, huge numbers included.
    () =>
      pick([
        "null",
        "true",
        "42",
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        '"text"',
        "[]",
        "[1,2,3]",
      ]),
    // Deep nesting.
    () => deep(1 + int(50_000), pick(["array", "object"] as const)),
    () =>
      `{"type":"control_request","request_id":"d","request":${
        deep(1 + int(20_000), "object")
      }}`,
    // An object of any type, prototype names included, with junk fields.
    () =>
      JSON.stringify({
        type: nameLike(["user", "control_request", "control_response"]),
        [pick(PROTOTYPE_NAMES)]: anyValue(),
      }),
    // A control request with a wrong type somewhere.
    () =>
      JSON.stringify({
        type: "control_request",
        request_id: requestId(),
        request: controlBody(),
      }),
    // A control response to nothing, of any shape.
    () =>
      JSON.stringify({
        type: "control_response",
        response: pick([
          anyValue(),
          { subtype: nameLike(["success", "error"]), request_id: anyValue() },
          {
            subtype: "success",
            request_id: `wave-approval-${int(10)}`,
            response: { behavior: pick(["allow", "deny", anyValue()]) },
          },
        ]),
      }),
    // A user turn: well-formed (no model: a result) or of the wrong shape.
    () =>
      JSON.stringify({
        type: "user",
        message: pick([
          { role: "user", content: "hi" },
          { role: anyValue(), content: "hi" },
          { role: "user", content: anyValue() },
          { role: "user", content: [anyValue()] },
          anyValue(),
        ]),
      }),
  ];
  return () => pick(kinds)();
}

/** Whether wave skips the line: blank once a trailing CR is dropped (docs/protocol.md "Transport"). */
function isBlank(bytes: Uint8Array): boolean {
  const body = bytes.at(-1) === 13 ? bytes.subarray(0, -1) : bytes;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body).trim() ===
      "";
  } catch {
    return false;
  }
}

Deno.test("fuzz: 10,000 hostile lines, every non-blank one answered, wave still serving, exit 0", async () => {
  const seed = Number(Deno.env.get("WAVE_FUZZ_SEED") ?? Date.now() % 2 ** 31);
  const next = generator(prng(seed));
  const encoder = new TextEncoder();
  const lines: Uint8Array[] = [];
  for (let i = 0; i < LINES; i++) {
    const line = next();
    lines.push(typeof line === "string" ? encoder.encode(line) : line);
  }
  const expected = lines.filter((l) => !isBlank(l)).length;

  const wave = await startWave();
  const context = `seed ${seed} (replay: WAVE_FUZZ_SEED=${seed})`;
  try {
    wave.put("a.txt", "a\n");
    for (let i = 0; i < lines.length; i += 500) {
      const batch = lines.slice(i, i + 500);
      const size = batch.reduce((n, l) => n + l.length + 1, 0);
      const chunk = new Uint8Array(size);
      let at = 0;
      for (const line of batch) {
        chunk.set(line, at);
        chunk[at + line.length] = 10;
        at += line.length + 1;
      }
      await wave.writeRaw(chunk).catch(async (error) => {
        const status = await wave.child.status;
        throw new Error(
          `${context}: writing failed (${error}): wave exited with ${status.code}\n${
            wave.stderr.slice(-2000)
          }`,
        );
      });
    }
    // Still serving after all of it: a request with a fresh id is answered.
    await wave.send({
      type: "control_request",
      request_id: "after-fuzz",
      request: { subtype: "list_tools" },
    });
    // A crash ends the wait at once, with what wave said on stderr.
    const after = await Promise.race([
      wave.waitFor(
        (m) =>
          m.type === "control_response" &&
          m.response.request_id === "after-fuzz",
        120_000,
      ),
      wave.child.status.then((status) => {
        throw new Error(
          `${context}: wave exited with ${status.code} mid-stream\n${
            wave.stderr.slice(-2000)
          }`,
        );
      }),
    ]);
    assert.equal(after.response.subtype, "success", context);
    await wave.closeStdin();
    const status = await wave.wait();
    assert.equal(
      status.code,
      0,
      `${context}: exit ${status.code}\n${wave.stderr.slice(-2000)}`,
    );

    const answers = wave.messages.filter((m) =>
      m.type === "control_response" ||
      m.type === "result" ||
      (m.type === "system" && m.subtype === "error")
    );
    // Every non-blank line once, plus the request sent after them.
    assert.equal(answers.length, expected + 1, context);
    const errorLines = answers.filter((m) => m.type === "system").map((m) =>
      m.error.line
    );
    assert.equal(new Set(errorLines).size, errorLines.length, context);
    assert.ok(
      !/fatal|Uncaught/.test(wave.stderr),
      `${context}: ${wave.stderr.slice(-2000)}`,
    );
  } finally {
    await wave.kill();
  }
});
