/**
 * write_plan (toolset `sata`, spec 001 计划文档): writes (overwrites) one
 * plan document under `.cursor/`; allowed in plan mode, since it touches
 * nothing else in the repository.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { PLAN_DIR, planPath } from "../_core/plans.ts";
import { writeWhole } from "../_core/write_path.ts";
import { SATA_WRITES } from "./_dialect.ts";

const description =
  `Writes a plan document (markdown) in the workspace's ${PLAN_DIR}/ directory, replacing any plan of that name.

- Name: e.g. "migration" (saved as ${PLAN_DIR}/migration.md). Names must stay inside ${PLAN_DIR}/ and be markdown.
- Available in plan mode; to change other files in the repository use write or edit (agent mode).`;

const input = z.object({
  Name: z.string().min(1).describe("The plan's name"),
  Content: z.string().describe("The plan, in markdown"),
}).strict();

export default defineTool({
  name: "write_plan",
  description,
  input,
  scopes: { read: true, write: true },
  mode: "plan",
  paths: (i) => [{ path: planPath(i.Name), access: "write" }],
  async run(i, ctx) {
    const path = planPath(i.Name);
    await writeWhole(
      ctx,
      SATA_WRITES,
      { real: ctx.path(path).real, shown: path },
      new TextEncoder().encode(i.Content),
      { action: "write", tool: "write_plan" },
    );
    const doc = { Name: path.slice(PLAN_DIR.length + 1), Content: i.Content };
    return { content: `Saved plan ${doc.Name} (${path}).`, structured: doc };
  },
});
