/**
 * End-to-end: a search of one binary file that matches says so, in every
 * toolset, rather than "no match" (ripgrep prints no lines of a binary
 * file, only that it matches); its bytes are never shown.
 */

import assert from "node:assert/strict";
import { withWave } from "../_wave.ts";

const SAYS =
  "b.bin: binary file matches; its lines are not shown (it is not text: a command such as `strings` or `xxd` shows what is in it)";

const SEARCHES: Record<string, [string, Record<string, unknown>]> = {
  wave: ["Grep", { pattern: "hello", path: "b.bin", output_mode: "content" }],
  sata: ["grep", { Pattern: "hello", Path: "b.bin" }],
  devflow: ["search_in_file", { path: "b.bin", pattern: "hello" }],
};

for (const [toolset, [tool, input]] of Object.entries(SEARCHES)) {
  Deno.test(`${toolset} ${tool}: a binary file that matches is said to match, its bytes not shown`, () =>
    withWave({ args: ["--toolset", toolset] }, async (wave) => {
      wave.put(
        "b.bin",
        new Uint8Array([
          ...new TextEncoder().encode("hello\0"),
          0xff,
          0xfe,
          ...new TextEncoder().encode("\nhello again\n"),
        ]),
      );
      const found = await wave.callTool(tool, input);
      assert.equal(found.is_error, false);
      assert.equal(found.content, SAYS);
      // No match is still no match.
      const other = { ...input };
      for (const key of ["pattern", "Pattern"]) {
        if (key in other) other[key] = "absent";
      }
      const none = await wave.callTool(tool, other);
      assert.equal(none.is_error, false);
      assert.ok(!String(none.content).includes("binary"), none.content);
      assert.equal((await wave.finish()).code, 0);
    }));
}
