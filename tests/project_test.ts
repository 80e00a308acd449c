/** The project's own promises: flags agree everywhere, the manifest matches the modules, the version agrees. */
import assert from "node:assert/strict";
import {
  PERMISSION_FLAGS,
  UNSTABLE_FLAGS,
  V8_FLAGS,
} from "../scripts/flags.ts";
import { VERSION } from "../session/version.ts";
import { loadTool } from "../tools/loaders.ts";
import { TOOLSETS } from "../tools/toolsets.ts";

const denoJson = JSON.parse(
  await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
);

Deno.test("deno.json's start task runs cli.ts with the binary's permission and V8 flags", () => {
  const start: string = denoJson.tasks.start;
  for (const flag of [...PERMISSION_FLAGS, ...V8_FLAGS]) {
    assert.ok(start.includes(flag), flag);
  }
  assert.ok(start.endsWith("cli.ts"));
  assert.deepEqual(
    UNSTABLE_FLAGS,
    denoJson.unstable.map((u: string) => `--unstable-${u}`),
  );
});

Deno.test("the version in deno.json is the one wave reports", () => {
  assert.equal(denoJson.version, VERSION);
});

Deno.test("every toolset entry matches its module's name and mode", async () => {
  for (const [toolset, entries] of Object.entries(TOOLSETS)) {
    const names = new Set<string>();
    for (const entry of entries) {
      const def = await loadTool(`builtin:${entry.module}`);
      assert.equal(def.name, entry.name, `${toolset}: ${entry.module}`);
      assert.equal(def.mode, entry.mode, `${toolset}: ${entry.name}'s mode`);
      assert.ok(!names.has(entry.name), `${toolset}: ${entry.name} twice`);
      names.add(entry.name);
    }
  }
});

Deno.test("README opens with the two commands a newcomer runs", async () => {
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const head = readme.split("\n").slice(0, 40).join("\n");
  assert.ok(head.includes("npx -y deno@2.9.6 task start --workspace"));
  assert.ok(head.includes("npx -y deno@2.9.6 task test"));
});

Deno.test("start-up: the modules run before system/init are exactly these, and the session comes by a computed specifier", async () => {
  // Deno prepares every module a literal import() can reach before a program
  // starts; the session's graph (tools, zod, the SDKs) would double the time
  // to system/init (scripts/_bench/foundation.ts measures it), and each module
  // here costs a little (a new one on this list is a decision, not a drift).
  const preInit = [
    "cli.ts",
    // wave mcp and wave acp answer initialize with these (issue 17).
    "fronts/acp/early.ts",
    "fronts/mcp/early.ts",
    "session/_first_line.ts",
    "session/_flag_parser.ts",
    "session/_sandbox_plan.ts",
    "session/config.ts",
    "session/flags.ts",
    "session/init.ts",
    "session/models/api_key.ts",
    "session/models/model_id.ts",
    // A resumed session is claimed before init: a second --resume exits 2.
    "session/transcript_claim.ts",
    // --continue finds the workspace's newest session before init.
    "session/transcript_head.ts",
    "session/version.ts",
    "tools/kernel/_landlock.js",
    "tools/kernel/_libc.js",
    "tools/kernel/landlock.ts",
    "tools/kernel/modes.ts",
    "tools/kernel/posix_path.ts",
    "tools/toolsets.ts",
  ];
  const root = new URL("../", import.meta.url);
  const reached = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (reached.has(file)) return;
    reached.add(file);
    const source = await Deno.readTextFile(new URL(file, root));
    assert.ok(
      !/(?<!typeof )import\(\s*["'`]/.test(source),
      `${file} has a literal import()`,
    );
    const imports = [
      ...source.matchAll(
        /^(?:import|export) (?!type )[^;]*?from "([^"]+)";/gms,
      ),
    ].map((m) =>
      new URL(m[1], new URL(file, root)).pathname.slice(root.pathname.length)
    );
    for (const target of imports) await visit(target);
  };
  await visit("cli.ts");
  assert.deepEqual([...reached].sort(), [...preInit].sort());
});

/**
 * The files the static, non-type imports of `entries` reach (paths from
 * the project's root), and the imports that leave the project, but for
 * the packages named in `allowed`, as `file: specifier`.
 */
async function staticGraph(
  entries: readonly string[],
  allowed: readonly string[] = [],
): Promise<{ reached: Set<string>; outside: string[] }> {
  const root = new URL("../", import.meta.url);
  const reached = new Set<string>();
  const outside: string[] = [];
  const visit = async (file: string): Promise<void> => {
    if (reached.has(file)) return;
    reached.add(file);
    const source = await Deno.readTextFile(new URL(file, root));
    const specifiers = [
      ...source.matchAll(
        /^(?:import|export) (?!type )[^;]*?from "([^"]+)";/gms,
      ),
    ].map((m) => m[1]);
    for (const specifier of specifiers) {
      if (!specifier.startsWith(".")) {
        if (!allowed.includes(specifier)) {
          outside.push(`${file}: ${specifier}`);
        }
        continue;
      }
      await visit(
        new URL(specifier, new URL(file, root)).pathname.slice(
          root.pathname.length,
        ),
      );
    }
  };
  for (const entry of entries) await visit(entry);
  return { reached, outside };
}

Deno.test("start-up: the core's start (core_start.ts) loads no node: module and no npm package before the readers' worker starts", async () => {
  // Node's compatibility layer and node:crypto cost ~40 ms to load; the
  // worker the first read-only call runs in starts only once this graph
  // has run, so the session loads them afterwards (scripts/_bench, first
  // calls).
  const { reached, outside } = await staticGraph(["session/core_start.ts"]);
  assert.deepEqual(outside, []);
  assert.ok(reached.has("session/executor.ts"));
});

Deno.test("start-up: the session, the sandbox worker's code and every toolset's tools load no node: module and no CommonJS package", async () => {
  // Either loads Deno's Node compatibility layer, 15-25 ms of a thread
  // and a megabyte of its heap: on the main thread right after
  // system/init, in each worker before its first call (kernel/posix_path.ts).
  // The few Node APIs and CommonJS packages the tools need (picomatch:
  // _core/glob_matcher.ts) are taken when first used.
  const { reached, outside } = await staticGraph([
    "session/server.ts",
    "session/_tool_worker.ts",
    ...Object.values(TOOLSETS).flat().map(({ module }) => `tools/${module}`),
  ], ["zod", "diff"]);
  assert.deepEqual(outside, []);
  for (
    const file of [
      "tools/kernel/regular_file.ts",
      "tools/kernel/checked_files.ts",
      "tools/_core/content_hash.ts",
      "tools/wave/edit.ts",
      "tools/sata/find.ts",
      "tools/devflow/search_files.ts",
      "tools/_core/glob_matcher.ts",
    ]
  ) assert.ok(reached.has(file), file);
});

Deno.test("wave's tools build their schemas with tools/kernel/zod.ts's z: nothing under tools/ imports zod itself but for types", async () => {
  // A sandbox worker would load zod (~30 ms, ~4.5 MB of heap) for a
  // schema it never uses (tools/kernel/zod.ts says why).
  const root = new URL("../tools/", import.meta.url);
  const importers: string[] = [];
  const walk = async (dir: URL, prefix: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory) {
        await walk(new URL(`${entry.name}/`, dir), `${path}/`);
      } else if (/\.[jt]s$/.test(entry.name) && path !== "kernel/zod.ts") {
        const source = await Deno.readTextFile(new URL(entry.name, dir));
        if (/^import (?!type )[^;]*?from "zod(\/[^"]*)?";/m.test(source)) {
          importers.push(path);
        }
      }
    }
  };
  await walk(root, "");
  assert.deepEqual(importers, []);
});
