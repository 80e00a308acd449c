/**
 * read_plan (toolset `sata`, spec 001 计划文档): one plan document.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool, ToolError } from "../kernel/tool.ts";
import { PLAN_DIR, planPath } from "../_core/plans.ts";
import { wholeRecord } from "../_core/freshness.ts";
import { decodeText, statFile } from "../_core/reader.ts";
import { readDirectory } from "./_dialect.ts";
import { readFileBytes } from "../kernel/read_file.ts";

const description =
  `Reads a plan document from the workspace's ${PLAN_DIR}/ directory.

- Name: the plan's name, e.g. "migration" or "migration.md" (.md is added when there is no suffix).`;

const input = z.object({
  Name: z.string().min(1).describe("The plan's name"),
}).strict();

export default defineTool({
  name: "read_plan",
  description,
  input,
  scopes: { read: true },
  paths: (i) => [{ path: planPath(i.Name), access: "read" }],
  async run(i, ctx) {
    const path = planPath(i.Name);
    const file = ctx.path(path);
    const info = await statFile(file.real, path, readDirectory(path));
    if (!info) {
      throw new ToolError(
        `There is no plan named ${
          path.slice(PLAN_DIR.length + 1)
        }; list_plans shows the plans there are.`,
        { type: "not_found" },
      );
    }
    const bytes = await readFileBytes(file.real);
    ctx.readState.record(
      file.real,
      await wholeRecord(file.real, bytes, "read_plan", info),
    );
    const doc = {
      Name: path.slice(PLAN_DIR.length + 1),
      Content: decodeText(bytes, "utf-8"),
    };
    return { content: doc.Content, structured: doc };
  },
});
