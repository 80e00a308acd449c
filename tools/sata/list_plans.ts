/**
 * list_plans (toolset `sata`, spec 001 计划文档): the plan documents under
 * the workspace's `.cursor/`.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import { defineTool } from "../kernel/tool.ts";
import { PLAN_DIR } from "../_core/plans.ts";
import { listDirectory } from "../_core/listing.ts";

const description =
  `Lists the plan documents (markdown files under the workspace's ${PLAN_DIR}/ directory) by name.`;

export default defineTool({
  name: "list_plans",
  description,
  input: z.object({}).strict(),
  scopes: { read: true },
  paths: () => [{ path: PLAN_DIR, access: "read" }],
  async run(_i, ctx) {
    const dir = ctx.path(PLAN_DIR);
    let names: string[] = [];
    try {
      const listing = await listDirectory(ctx, dir.real, {
        recursive: true,
        maxEntries: 10_000,
      });
      names = listing.entries.filter((e) =>
        !e.isDir && /\.(md|markdown)$/i.test(e.name)
      ).map((e) => e.name);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    names.sort();
    return {
      content: names.length
        ? names.join("\n")
        : `No plans yet (${PLAN_DIR}/ has no markdown files).`,
      structured: { Plans: names },
    };
  },
});
