/** End-to-end: `deno task demo` runs its replayed session to a fixed bug and passing tests. */
import assert from "node:assert/strict";
import { tempDir } from "../_temp.ts";
import { ROOT } from "../_wave.ts";

/**
 * Runs `deno task demo` (`args` after it) with its temp directory in one
 * the test owns: the workspace and WAVE_HOME the demo leaves for its
 * reader to look at go when the test ends.
 */
async function runDemo(args: string[] = []): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-all", `${ROOT}scripts/demo.ts`, ...args],
    env: { TMPDIR: await tempDir({ prefix: "wave-demo-tmp-" }) },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("demo: the replayed session reads, greps, edits the bug and runs the tests with Bash", async () => {
  const out = await runDemo(["--raw"]);
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const messages = new TextDecoder().decode(out.stdout).trim().split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const tools = messages.filter((m) => m.type === "assistant").flatMap((m) =>
    m.message.content.filter((b: { type: string }) => b.type === "tool_use")
      .map((b: { name: string }) => b.name)
  );
  assert.deepEqual(tools, ["Bash", "Grep", "Read", "Edit", "Bash"]);
  const results = messages.filter((m) => m.type === "user").map((m) =>
    m.message.content[0]
  );
  assert.match(results[0].content, /not ok 2 - mean is the average/);
  assert.match(results[0].content, /# fail 1/);
  assert.match(results[4].content, /# pass 3\n# fail 0/);
  const result = messages.at(-1);
  assert.equal(result.type, "result");
  assert.equal(result.subtype, "success");
  assert.equal(result.num_turns, 6);
});

Deno.test("demo: the README shows exactly what `deno task demo` prints (times and temp paths elided)", async () => {
  const out = await runDemo();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const elide = (text: string) =>
    text.replace(/(?:\/[^/\s]+)*\/wave-demo-[^/\s]+/g, "/tmp/wave-demo-…")
      .replace(/\(\d+ ms\)/g, "(… ms)")
      .replace(/in \d+ ms:/g, "in … ms:")
      .replace(/replay:\S+demo-replay\.json/, "replay:…/demo-replay.json");
  const printed = elide(new TextDecoder().decode(out.stdout)).trimEnd();
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const shown = readme.match(/```\n(● wave [\s\S]*?)```/);
  assert.ok(shown, "the README shows the demo's output");
  assert.equal(elide(shown[1]).trimEnd(), printed);
});
