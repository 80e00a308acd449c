/**
 * `deno task compile`: builds the single wave binary (`dist/wave`) with the
 * permission and unstable flags baked in and the worker entry included.
 * Built-in tool modules load through literal `import()`s, so `deno compile`
 * embeds them; ripgrep is embedded with its npm package and copied out to
 * `WAVE_HOME/bin` on first use (tools/kernel/programs.ts).
 *
 * `deno compile` downloads its `denort` base binary on first use. Where that
 * download cannot happen (offline build machines), set `DENORT_BIN` to a
 * denort binary of the same Deno version; Deno reads it from the
 * environment.
 *
 * @module
 */

import { PERMISSION_FLAGS, UNSTABLE_FLAGS, V8_FLAGS } from "./flags.ts";

const root = new URL("..", import.meta.url).pathname;
const output = Deno.args[0] ?? `${root}dist/wave`;

const args = [
  "compile",
  "--quiet",
  "--config",
  `${root}deno.json`,
  ...PERMISSION_FLAGS,
  ...UNSTABLE_FLAGS,
  ...V8_FLAGS,
  "--include",
  `${root}session/_tool_worker_entry.js`,
  // cli.ts imports the session through a computed specifier (for start-up time).
  "--include",
  `${root}session/server.ts`,
  // and the early first request, before it.
  "--include",
  `${root}session/early_request.ts`,
  // and `wave report` (and `--report`) its renderers, the same way.
  "--include",
  `${root}session/report/command.ts`,
  // …and each other front's entry the same way (wave mcp, wave acp).
  "--include",
  `${root}fronts/mcp/main.ts`,
  "--include",
  `${root}fronts/acp/main.ts`,
  "--output",
  output,
  `${root}cli.ts`,
];

const denort = Deno.env.get("DENORT_BIN");
if (denort) console.error(`using DENORT_BIN=${denort}`);
const result = await new Deno.Command(Deno.execPath(), {
  args,
  stdout: "inherit",
  stderr: "piped",
}).output();
const stderr = new TextDecoder().decode(result.stderr);
if (!result.success) {
  console.error(stderr.trimEnd());
  if (!denort && /denort|download/i.test(stderr)) {
    console.error(
      "\ndeno compile could not download its denort base binary (this machine is offline?).\n" +
        "Set DENORT_BIN to a denort binary of the same Deno version and run again.",
    );
  }
  Deno.exit(1);
}
console.error(`built ${output}`);
