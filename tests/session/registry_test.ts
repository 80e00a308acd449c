/** The registry (session/registry.ts): tools added after the toolset's, and the name filter (the seam of allowed and disallowed lists). */

import assert from "node:assert/strict";
import { z } from "zod";
import { type RegisteredTool, ToolRegistry } from "../../session/registry.ts";
import type { InputSchema } from "../../tools/kernel/tool.ts";
import { builtinRef, TOOLSETS } from "../../tools/toolsets.ts";

function external(name: string, readOnly: boolean): RegisteredTool {
  const inputSchema = { type: "object", properties: {} };
  return {
    module: "mcp:x",
    def: {
      name,
      description: name,
      input: z.looseObject({}) as unknown as InputSchema,
      scopes: readOnly ? {} : { write: true },
      mode: readOnly ? "ask" : "agent",
      run: () => ({ content: "" }),
    },
    external: {
      inputSchema,
      call: () => Promise.resolve({ content: `${name} ran` }),
    },
  };
}

Deno.test("registry: tools added later join every view after the toolset's, keep their server's schema, and a name twice is refused whole", async () => {
  const registry = await ToolRegistry.load(TOOLSETS.wave.map(builtinRef));
  registry.add([
    external("mcp__x__read", true),
    external("mcp__x__write", false),
  ]);
  assert.deepEqual(registry.names().slice(-2), [
    "mcp__x__read",
    "mcp__x__write",
  ]);
  assert.ok(registry.bound("ask").some((t) => t.def.name === "mcp__x__read"));
  assert.ok(!registry.bound("ask").some((t) => t.def.name === "mcp__x__write"));
  assert.deepEqual(registry.inputSchema("mcp__x__read"), {
    type: "object",
    properties: {},
  });
  assert.throws(
    () => registry.add([external("mcp__x__new", true), external("Read", true)]),
    { message: "two tools are named Read" },
  );
  assert.equal(registry.get("mcp__x__new"), undefined);
  registry.remove(["mcp__x__read"]);
  assert.equal(registry.get("mcp__x__read"), undefined);
});

Deno.test("registry: the name filter hides tools from every view, those added later and a derived registry's included", async () => {
  const registry = await ToolRegistry.load(TOOLSETS.wave.map(builtinRef));
  registry.setFilter((name) => name !== "Bash" && !name.endsWith("__secret"));
  registry.add([
    external("mcp__x__secret", true),
    external("mcp__x__ok", true),
  ]);
  for (const view of [registry, registry.derive()]) {
    assert.equal(view.get("Bash"), undefined);
    assert.equal(view.get("mcp__x__secret"), undefined);
    assert.ok(view.get("mcp__x__ok"));
    assert.ok(!view.names().includes("Bash"));
    assert.ok(!view.names().includes("mcp__x__secret"));
    assert.ok(
      !view.describe("agent").some((t) =>
        t.name === "Bash" || t.name === "mcp__x__secret"
      ),
    );
  }
});
