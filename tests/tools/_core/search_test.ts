/** The content search every dialect shares: what no glob can bring back. */
import assert from "node:assert/strict";
import { searchContent } from "../../../tools/_core/search.ts";
import { ToolError } from "../../../tools/kernel/tool.ts";
import { TestSession } from "../../_context.ts";

Deno.test("searchContent: a glob that matches everything, or a secret by name, never searches .git/ or sensitive files", async () => {
  const s = await TestSession.create();
  await s.write(".git/HEAD", "needle\n");
  await s.write(".env", "needle\n");
  await s.write("keys/a.pem", "needle\n");
  await s.write("src/a.ts", "needle\n");
  const run = (glob: string) =>
    searchContent(s.context(), {
      pattern: "needle",
      root: s.workspace,
      mode: "files",
      globs: [glob],
      limit: 10,
    });
  for (const glob of ["*", "**"]) {
    assert.deepEqual(
      (await run(glob)).entries,
      [{ kind: "file", path: "src/a.ts" }],
      glob,
    );
  }
  for (const glob of ["**/.env", "*.pem"]) {
    await assert.rejects(
      run(glob),
      (e: Error) =>
        e instanceof ToolError &&
        (e.structured as { type: string }).type === "nothing_searched",
      glob,
    );
  }
});
