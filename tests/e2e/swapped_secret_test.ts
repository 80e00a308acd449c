/**
 * End-to-end: a search of one file whose path another process swaps, in a
 * loop, with a link to the workspace's `.env`. The check judges the path
 * (an ordinary file); what is searched is what wave opened, so a secret
 * reached through the swap is judged by what was opened and left out, as
 * every search leaves out links to secrets: never searched.
 */

import assert from "node:assert/strict";
import { withWave } from "../_wave.ts";
import { exchangeInLoop } from "./_exchange.ts";

const SEARCHES: Record<string, [string, Record<string, unknown>]> = {
  wave: ["Grep", {
    pattern: "SECRET_TOKEN|fi[n]e",
    path: "f",
    output_mode: "content",
  }],
  sata: ["grep", { Pattern: "SECRET_TOKEN|fi[n]e", Path: "f" }],
  devflow: ["search_in_file", {
    path: "f",
    pattern: "SECRET_TOKEN|fi[n]e",
    regex: true,
  }],
};

/** How `g`, the file's partner in the swap, leads to `.env`. */
const LINKS = {
  "a symbolic link": (workspace: string) =>
    Deno.symlinkSync(`${workspace}/.env`, `${workspace}/g`),
  "a hard link": (workspace: string) =>
    Deno.linkSync(`${workspace}/.env`, `${workspace}/g`),
};

for (const [toolset, [tool, input]] of Object.entries(SEARCHES)) {
  for (const [kind, link] of Object.entries(LINKS)) {
    Deno.test(`${toolset} ${tool}: a file swapped in a loop with ${kind} to .env never shows the secret`, () =>
      withWave({ args: ["--toolset", toolset] }, async (wave) => {
        wave.put(".env", "SECRET_TOKEN=hunter2\n");
        wave.put("f", "fine\n");
        link(wave.workspace);
        const racer = exchangeInLoop(
          `${wave.workspace}/f`,
          `${wave.workspace}/g`,
        );
        const seen = { found: 0, leftOut: 0, leaked: [] as string[] };
        const errors = new Set<string>();
        try {
          for (let i = 0; i < 150; i++) {
            const result = await wave.callTool(tool, input);
            const text = JSON.stringify(result.content);
            if (text.includes("hunter2")) seen.leaked.push(text.slice(0, 200));
            else if (text.includes("fine")) seen.found++; // (the pattern says fi[n]e)
            else if (!result.is_error) seen.leftOut++;
            else {errors.add(
                (result.structured as { type?: string })?.type ??
                  text.slice(0, 120),
              );}
          }
        } finally {
          await racer.stop();
        }
        assert.deepEqual(seen.leaked, []);
        assert.ok(seen.found > 0, "no call searched the file");
        assert.ok(seen.leftOut > 0, "no call met the swap after its check");
        // The only errors: the check saw the link (the parent's denial), or
        // the path was mid-swap at the open.
        assert.deepEqual(
          [...errors].filter((type) =>
            type !== "permission_denied" && type !== "not_found"
          ),
          [],
        );
        assert.equal((await wave.finish()).code, 0);
      }));
  }
}
