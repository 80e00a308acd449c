import assert from "node:assert/strict";
import * as node from "node:path";
import * as ours from "../../../tools/kernel/posix_path.ts";

const assertEquals = (a: unknown, b: unknown, message = "") =>
  assert.deepEqual(a, b, message);

/** Paths made of every kind of segment, slash run and ending. */
function samplePaths(): string[] {
  const segments = [
    "",
    ".",
    "..",
    "...",
    "a",
    "b.c",
    ".c",
    ".d",
    "e.",
    "f..g",
    "..h",
  ];
  const paths = new Set<string>(["", "/", "//", "///", ".", "..", "./", "../"]);
  let seed = 7;
  const next = (n: number) =>
    (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let i = 0; i < 3000; i++) {
    const parts = Array.from(
      { length: 1 + next(4) },
      () => segments[next(segments.length)],
    );
    const lead = ["", "/", "//"][next(3)];
    const tail = ["", "/", "//"][next(3)];
    paths.add(lead + parts.join(["/", "//"][next(2)]) + tail);
  }
  return [...paths];
}

Deno.test("posix_path: normalize, isAbsolute, dirname, basename, extname give what node:path gives", () => {
  for (const p of samplePaths()) {
    assertEquals(
      ours.normalize(p),
      node.normalize(p),
      `normalize(${JSON.stringify(p)})`,
    );
    assertEquals(
      ours.isAbsolute(p),
      node.isAbsolute(p),
      `isAbsolute(${JSON.stringify(p)})`,
    );
    // node:path keeps a leading `//` in a dirname; wave's paths never start so.
    if (!p.startsWith("//")) {
      assertEquals(
        ours.dirname(p),
        node.dirname(p),
        `dirname(${JSON.stringify(p)})`,
      );
    }
    assertEquals(
      ours.basename(p),
      node.basename(p),
      `basename(${JSON.stringify(p)})`,
    );
    // node:path's suffix quirks: all of a path ("" back), a root of slashes.
    if (p !== ".c" && /[^/]/.test(p)) {
      assertEquals(
        ours.basename(p, ".c"),
        node.basename(p, ".c"),
        `basename(${JSON.stringify(p)}, ".c")`,
      );
    }
    assertEquals(
      ours.extname(p),
      node.extname(p),
      `extname(${JSON.stringify(p)})`,
    );
  }
});

Deno.test("posix_path: join, resolve and relative give what node:path gives", () => {
  const paths = samplePaths();
  for (let i = 0; i < paths.length; i++) {
    const [a, b, c] = [
      paths[i],
      paths[(i * 7 + 3) % paths.length],
      paths[(i * 13 + 5) % paths.length],
    ];
    assertEquals(
      ours.join(a, b, c),
      node.join(a, b, c),
      `join(${JSON.stringify([a, b, c])})`,
    );
    assertEquals(ours.join(a), node.join(a), `join(${JSON.stringify(a)})`);
    assertEquals(
      ours.resolve(a, b),
      node.resolve(a, b),
      `resolve(${JSON.stringify([a, b])})`,
    );
    assertEquals(
      ours.resolve(a),
      node.resolve(a),
      `resolve(${JSON.stringify(a)})`,
    );
    assertEquals(
      ours.relative(a, b),
      node.relative(a, b),
      `relative(${JSON.stringify([a, b])})`,
    );
  }
  assertEquals(ours.join(), node.join());
  assertEquals(ours.resolve(), node.resolve());
  assertEquals(ours.relative("/srv/ws/a", "/srv/ws/a/b/c"), "b/c");
  assertEquals(ours.relative("/srv/ws/a/b", "/srv/other"), "../../../other");
  assertEquals(ours.sep, node.sep);
  assertEquals(ours.dirname("//a"), "/");
  assertEquals(ours.basename(".c", ".c"), ".c");
});
