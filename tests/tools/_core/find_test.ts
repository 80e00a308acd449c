/** Finding files by name, for every dialect: what no glob can bring back. */
import assert from "node:assert/strict";
import { findFiles } from "../../../tools/_core/find.ts";
import { TestSession } from "../../_context.ts";

Deno.test("findFiles: a glob that matches .git and what is in it still never lists inside .git/", async () => {
  const s = await TestSession.create();
  await s.write(".git/HEAD", "x\n");
  await s.write(".gitignore", "x\n");
  const found = await findFiles(s.context(), {
    root: s.workspace,
    globs: ["{.git,HEAD,.gitignore}"],
    includeIgnored: true,
    order: "path",
    limit: 10,
  });
  assert.deepEqual(found.files, [".gitignore"]);
});
