/**
 * `deno task demo`: copies examples/demo-workspace to a temp directory and
 * runs a replayed session there (examples/demo-replay.json) that runs the
 * tests, greps, reads, fixes a bug and runs the tests again, printing the
 * protocol stream as it goes. `--raw` prints the JSON lines themselves;
 * `--report FILE` has wave write the session's report page to FILE (a
 * relative FILE means the directory `deno task` was run from).
 *
 * @module
 */

import { resolve } from "node:path";
import { plural } from "../tools/_core/text.ts";
import { waveArgs } from "./flags.ts";

const root = new URL("..", import.meta.url).pathname;
const raw = Deno.args.includes("--raw");
const reportAt = Deno.args.indexOf("--report");
const report = reportAt === -1 ? null : Deno.args[reportAt + 1];
if (report === undefined) {
  console.error("demo: --report needs a FILE");
  Deno.exit(2);
}
const reportFile = report === null
  ? null
  : resolve(Deno.env.get("INIT_CWD") ?? Deno.cwd(), report);

const workspace = await Deno.makeTempDir({ prefix: "wave-demo-" });
await new Deno.Command("cp", {
  args: ["-R", `${root}examples/demo-workspace/.`, workspace],
}).output();
const home = await Deno.makeTempDir({ prefix: "wave-demo-home-" });

const child = new Deno.Command(Deno.execPath(), {
  args: waveArgs([
    "--workspace",
    workspace,
    "--model",
    `replay:${root}examples/demo-replay.json`,
    ...(reportFile ? ["--report", reportFile] : []),
  ]),
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
  env: { WAVE_HOME: home },
}).spawn();

const writer = child.stdin.getWriter();
await writer.write(
  new TextEncoder().encode(
    JSON.stringify({
      type: "user",
      message: {
        role: "user",
        content: "The tests fail. Find the bug and fix it.",
      },
    }) +
      "\n",
  ),
);
await writer.close();

const clip = (text: string, lines = 6) => {
  const all = text.split("\n");
  const shown = all.slice(0, lines).map((l) => `    ${l}`).join("\n");
  return all.length > lines
    ? `${shown}\n    … (${
      plural(all.length - lines, "more line", "more lines")
    })`
    : shown;
};

let buffer = "";
for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (raw) {
      console.log(line);
      continue;
    }
    const m = JSON.parse(line);
    if (m.type === "system" && m.subtype === "init") {
      console.log(
        `● wave ${m.wave_version} · ${m.toolset} · ${m.mode} · ${m.model}\n  workspace ${m.cwd}`,
      );
    } else if (m.type === "assistant") {
      for (const block of m.message.content) {
        if (block.type === "text") console.log(`\nassistant: ${block.text}`);
        else console.log(`  → ${block.name} ${JSON.stringify(block.input)}`);
      }
    } else if (m.type === "user") {
      const result = m.message.content[0];
      const text = typeof result.content === "string"
        ? result.content
        : "[blocks]";
      console.log(
        `  ← ${result.is_error ? "error" : "result"} (${m.duration_ms} ms)\n${
          clip(text)
        }`,
      );
    } else if (m.type === "result") {
      console.log(
        `\n● ${m.subtype} after ${
          plural(m.num_turns, "turn")
        } in ${m.duration_ms} ms: ${m.result}`,
      );
    }
  }
}
await child.status;
console.log(`\nThe fixed file: ${workspace}/src/stats.js`);
if (reportFile) console.log(`The session's report: ${reportFile}`);
