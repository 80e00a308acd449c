import assert from "node:assert/strict";
import * as node from "node:path";
import * as ours from "../../../tools/kernel/posix_path.ts";

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
  // Park-Miller (exact in doubles), its high bits: an LCG's low bits cycle
  // with a short period, and picked one separator at the same place always.
  const next = (n: number) =>
    Math.floor((seed = (seed * 48271) % 2147483647) / 2147483647 * n);
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
  const paths = samplePaths();
  // The samples have slash runs inside a path, not only at its ends.
  assert.ok(paths.some((p) => /[^/]\/\/+[^/]/.test(p)));
  for (const p of paths) {
    assert.equal(
      ours.normalize(p),
      node.normalize(p),
      `normalize(${JSON.stringify(p)})`,
    );
    assert.equal(
      ours.isAbsolute(p),
      node.isAbsolute(p),
      `isAbsolute(${JSON.stringify(p)})`,
    );
    assert.equal(
      ours.dirname(p),
      node.dirname(p),
      `dirname(${JSON.stringify(p)})`,
    );
    assert.equal(
      ours.basename(p),
      node.basename(p),
      `basename(${JSON.stringify(p)})`,
    );
    // node:path's suffix quirks: all of a path ("" back), a root of slashes.
    if (p !== ".c" && /[^/]/.test(p)) {
      assert.equal(
        ours.basename(p, ".c"),
        node.basename(p, ".c"),
        `basename(${JSON.stringify(p)}, ".c")`,
      );
    }
    assert.equal(
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
    assert.equal(
      ours.join(a, b, c),
      node.join(a, b, c),
      `join(${JSON.stringify([a, b, c])})`,
    );
    assert.equal(ours.join(a), node.join(a), `join(${JSON.stringify(a)})`);
    assert.equal(
      ours.resolve(a, b),
      node.resolve(a, b),
      `resolve(${JSON.stringify([a, b])})`,
    );
    assert.equal(
      ours.resolve(a),
      node.resolve(a),
      `resolve(${JSON.stringify(a)})`,
    );
    assert.equal(
      ours.relative(a, b),
      node.relative(a, b),
      `relative(${JSON.stringify([a, b])})`,
    );
  }
  assert.equal(ours.join(), node.join());
  assert.equal(ours.resolve(), node.resolve());
  assert.equal(ours.relative("/srv/ws/a", "/srv/ws/a/b/c"), "b/c");
  assert.equal(ours.relative("/srv/ws/a/b", "/srv/other"), "../../../other");
  assert.equal(ours.sep, node.sep);
  assert.equal(ours.dirname("/a//b"), "/a/");
  assert.equal(ours.basename(".c", ".c"), ".c");
});
