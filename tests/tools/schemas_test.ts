/** tools/schemas.json is what the tool modules describe now (the early first request sends it). */
import assert from "node:assert/strict";
import {
  liveToolSchemas,
  SCHEMAS_FILE,
  schemasFileText,
} from "../../scripts/tool_schemas.ts";

Deno.test("tools/schemas.json is byte for byte what the tool modules compute now (else: deno run -A scripts/tool_schemas.ts)", async () => {
  const live = schemasFileText(await liveToolSchemas());
  const committed = await Deno.readTextFile(SCHEMAS_FILE);
  assert.equal(
    committed,
    live,
    "tools/schemas.json is stale: run `deno run --allow-all scripts/tool_schemas.ts`",
  );
});
