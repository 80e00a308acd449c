/**
 * `deno task bench`: wave's performance, as ratios against what it wraps,
 * measured in one run. `deno task bench [section…]` runs some sections.
 *
 * @module
 */

import { fronts, startup, throughput } from "./_bench/foundation.ts";
import { frontFirstCommand } from "./_bench/front_commands.ts";
import { fsTools } from "./_bench/fs_tools.ts";
import { boundary } from "./_bench/boundary.ts";
import { firstRequest } from "./_bench/first_request.ts";
import { firstCalls } from "./_bench/first_calls.ts";
import { session } from "./_bench/session.ts";
import { sdk } from "./_bench/sdk.ts";
import { files } from "./_bench/files.ts";
import { shell } from "./_bench/shell.ts";
import { loop } from "./_bench/loop.ts";
import { documents } from "./_bench/documents.ts";
import { soak } from "./_bench/soak.ts";
import { mcp } from "./_bench/mcp.ts";
import { type Figure, report } from "./_bench/measure.ts";

const SECTIONS: Record<string, () => Promise<Figure[]>> = {
  startup: () => startup(),
  fronts: async () => [...await fronts(), ...await frontFirstCommand()],
  throughput: () => throughput(),
  "first-request": () => firstRequest(),
  "first-calls": () => firstCalls(),
  fs: () => fsTools(),
  boundary: () => boundary(),
  files: () => files(),
  shell: () => shell(),
  loop: () => loop(),
  session: () => session(),
  sdk: () => sdk(),
  documents: () => documents(),
  soak: () => soak(),
  mcp: () => mcp(),
};

const wanted = Deno.args.length ? Deno.args : Object.keys(SECTIONS);
const figures: Figure[] = [];
for (const name of wanted) {
  const section = SECTIONS[name];
  if (!section) {
    console.error(
      `unknown section ${name}; sections: ${Object.keys(SECTIONS).join(", ")}`,
    );
    Deno.exit(2);
  }
  console.error(`… ${name}`);
  figures.push(...await section());
}
console.log(report(figures));
