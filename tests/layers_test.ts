/**
 * The layers import only downward, and no module imports itself round a
 * loop (the model: Deno std's `_tools/check_circular_package_dependencies.ts`).
 *
 * Top to bottom: the entries (`cli.ts`, `mod.ts`, `scripts/`, and the tests'
 * fixtures they load) → the other fronts (`fronts/<front>/`: `wave mcp`,
 * `wave acp`; no front imports another) → the application, its core and
 * the stream-json front (`session/`) → the toolset manifest
 * (`tools/*.ts`) → the dialects (`tools/<dialect>/`) → the shared tool
 * helpers (`tools/_core/`) → the kernel every tool stands on
 * (`tools/kernel/`). Type-only imports count: a loop of types is still a
 * loop for the reader.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Where a module sits: its layer (higher imports lower) and, for a dialect, its name. */
export function layerOf(file: string): { rank: number; name: string } {
  if (
    file === "cli.ts" || file === "mod.ts" || file.startsWith("scripts/") ||
    file.startsWith("tests/")
  ) return { rank: 6, name: "entry" };
  const front = file.match(/^fronts\/([^/]+)\//);
  if (front) return { rank: 5, name: `front ${front[1]}` };
  if (file.startsWith("session/")) return { rank: 4, name: "session" };
  if (file.startsWith("tools/kernel/")) return { rank: 0, name: "kernel" };
  if (file.startsWith("tools/_core/")) return { rank: 1, name: "core" };
  const dialect = file.match(/^tools\/([^/]+)\//);
  if (dialect) return { rank: 2, name: `dialect ${dialect[1]}` };
  if (file.startsWith("tools/")) return { rank: 3, name: "toolsets" };
  throw new Error(`${file} is in no layer`);
}

/** The relative `.ts` modules a source file imports: static, dynamic, re-exports and `new URL(…, import.meta.url)`. */
export function importsOf(file: string, source: string): string[] {
  const specifiers = [
    ...source.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)"/g,
    ),
    ...source.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g),
    ...source.matchAll(/new URL\(\s*"(\.[^"]+\.ts)",\s*import\.meta\.url/g),
  ].map((m) => m[1]).filter((s) => s.endsWith(".ts"));
  return [
    ...new Set(specifiers.map((s) => normalize(join(dirname(file), s)))),
  ];
}

async function sourceFiles(): Promise<string[]> {
  const out: string[] = ["cli.ts", "mod.ts"];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(join(ROOT, dir))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) out.push(path);
    }
  }
  for (const dir of ["fronts", "session", "tools", "scripts"]) await walk(dir);
  return out.sort();
}

async function graph(): Promise<Map<string, string[]>> {
  const edges = new Map<string, string[]>();
  for (const file of await sourceFiles()) {
    const source = await Deno.readTextFile(join(ROOT, file));
    edges.set(file, importsOf(file, source));
  }
  return edges;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
export function cycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) {
        found.push(component.sort());
      }
    }
  };
  for (const v of edges.keys()) if (!indices.has(v)) visit(v);
  return found;
}

Deno.test("layers: every import runs downward, and no dialect or front imports another", async () => {
  const upward: string[] = [];
  for (const [file, targets] of await graph()) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (to.rank > from.rank) {
        upward.push(`${file} (${from.name}) imports ${target} (${to.name})`);
      } else if (
        (from.rank === 2 || from.rank === 5) && to.rank === from.rank &&
        from.name !== to.name
      ) {
        upward.push(`${file} (${from.name}) imports ${target} (${to.name})`);
      }
    }
  }
  assert.deepEqual(upward, []);
});

/**
 * The modules outside `session/report/` that import one inside it: the
 * report's renderers (Markdown, diffs) load only for `wave report` and at
 * the end of a `--report` session, never on a session's way.
 */
export function reportImporters(edges: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [file, targets] of edges) {
    if (file.startsWith("session/report/")) continue;
    for (const target of targets) {
      if (target.startsWith("session/report/")) out.push(`${file} → ${target}`);
    }
  }
  return out.sort();
}

Deno.test("layers: only cli.ts loads the session report (session/report/), and through a computed specifier", async () => {
  assert.deepEqual(reportImporters(await graph()), [
    "cli.ts → session/report/command.ts",
  ]);
  const cli = await Deno.readTextFile(join(ROOT, "cli.ts"));
  assert.ok(
    !/^import (?!type )[^;]*from "\.\/session\/report\//m.test(cli),
    "cli.ts imports the report statically",
  );
  assert.deepEqual(
    reportImporters(new Map([["session/server.ts", ["session/report/x.ts"]]])),
    ["session/server.ts → session/report/x.ts"],
  );
});

Deno.test("layers: no module imports itself round a loop", async () => {
  assert.deepEqual(cycles(await graph()), []);
});

Deno.test("layers: the checks catch an upward import and a loop", () => {
  // The checks themselves, on a made-up graph: a test that cannot fail proves nothing.
  assert.equal(layerOf("tools/kernel/tool.ts").rank, 0);
  assert.ok(layerOf("session/server.ts").rank > layerOf("tools/x/y.ts").rank);
  assert.ok(
    layerOf("fronts/mcp/main.ts").rank > layerOf("session/core.ts").rank,
  );
  assert.ok(layerOf("cli.ts").rank > layerOf("fronts/acp/main.ts").rank);
  assert.notEqual(
    layerOf("fronts/mcp/a.ts").name,
    layerOf("fronts/acp/b.ts").name,
  );
  assert.deepEqual(
    importsOf(
      "tools/kernel/a.ts",
      'import type { X } from "../../session/b.ts";\nexport { y } from "./c.ts";\nconst w = new URL("./d.ts", import.meta.url);\nawait import("./e.ts");',
    ),
    [
      "session/b.ts",
      "tools/kernel/c.ts",
      "tools/kernel/e.ts",
      "tools/kernel/d.ts",
    ],
  );
  const loop = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["a.ts"]],
    ["d.ts", ["a.ts"]],
  ]);
  assert.deepEqual(cycles(loop), [["a.ts", "b.ts", "c.ts"]]);
  assert.equal(relative(ROOT, join(ROOT, "mod.ts")), "mod.ts");
});
