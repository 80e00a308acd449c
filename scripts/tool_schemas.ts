/**
 * `deno run --allow-all scripts/tool_schemas.ts`: writes
 * `tools/schemas.json`, every toolset's tools as the model is offered them
 * (name, description with its `{{words}}` unfilled, input JSON Schema) and
 * the events each declares. The early first request
 * (`session/early_request.ts`) sends them before the tool modules and zod
 * have loaded; `tests/tools/schemas_test.ts` fails when the file is not
 * what this computes from the modules now, so it cannot go stale.
 *
 * @module
 */

import { ToolRegistry } from "../session/registry.ts";
import { builtinRef, TOOLSETS } from "../tools/toolsets.ts";

/** One tool as `tools/schemas.json` holds it. */
export interface ToolWire {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  emits: string[];
}

/** Every toolset's tools, computed from their modules now. */
export async function liveToolSchemas(): Promise<
  Record<string, ToolWire[]>
> {
  const out: Record<string, ToolWire[]> = {};
  for (const [toolset, entries] of Object.entries(TOOLSETS)) {
    const registry = await ToolRegistry.load(entries.map(builtinRef));
    out[toolset] = registry.describe("agent").map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.input_schema,
      emits: [...registry.get(tool.name)!.def.emits ?? []],
    }));
  }
  return out;
}

/** The file's text for `schemas`. */
export function schemasFileText(schemas: Record<string, ToolWire[]>): string {
  return JSON.stringify(schemas, null, 2) + "\n";
}

/** Where the file is. */
export const SCHEMAS_FILE = new URL("../tools/schemas.json", import.meta.url);

if (import.meta.main) {
  await Deno.writeTextFile(
    SCHEMAS_FILE,
    schemasFileText(await liveToolSchemas()),
  );
  console.error(`wrote ${SCHEMAS_FILE.pathname}`);
}
