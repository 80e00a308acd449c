/** How `wave mcp` describes tools and results (fronts/mcp/_server.ts). */
import assert from "node:assert/strict";
import { annotationsOf, toMcpResult } from "../../fronts/mcp/_server.ts";
import { loadTool } from "../../tools/loaders.ts";
import { TOOLSETS } from "../../tools/toolsets.ts";

Deno.test("mcp: every tool's annotations follow its mode and scopes, in every toolset", async () => {
  for (const [toolset, entries] of Object.entries(TOOLSETS)) {
    for (const entry of entries) {
      const def = await loadTool(`builtin:${entry.module}`);
      const hints = annotationsOf(def, false);
      const where = `${toolset}:${entry.name}`;
      // Read-only exactly when bound in ask mode; never both read-only and destructive.
      assert.equal(hints.readOnlyHint, def.mode === "ask", where);
      assert.ok(!(hints.readOnlyHint && hints.destructiveHint), where);
      assert.equal(
        hints.destructiveHint,
        def.mode !== "ask" &&
          (def.scopes.write === true || (def.scopes.run?.length ?? 0) > 0),
        where,
      );
      assert.equal(hints.openWorldHint, false, where);
    }
  }
  const bash = await loadTool("builtin:wave/bash.ts");
  assert.equal(annotationsOf(bash, true).openWorldHint, true);
});

Deno.test("mcp: a result becomes MCP content, structured content and isError", () => {
  assert.deepEqual(
    toMcpResult({
      tool_use_id: "t",
      content: [
        { type: "text", text: "a picture:" },
        {
          type: "image",
          source: { type: "base64", media_type: "image/png", data: "AAAA" },
        },
      ],
      is_error: false,
      structured: { type: "image", width: 1 },
    }),
    {
      content: [
        { type: "text", text: "a picture:" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      structuredContent: { type: "image", width: 1 },
      isError: false,
    },
  );
  // Structured content is an object or nothing.
  assert.deepEqual(
    toMcpResult({
      tool_use_id: "t",
      content: "no",
      is_error: true,
      structured: ["a"],
    }),
    { content: [{ type: "text", text: "no" }], isError: true },
  );
});
