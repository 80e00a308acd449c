import assert from "node:assert/strict";
import {
  findOnPath,
  findRipgrep,
  inNpmCache,
  installBinary,
  PathLookup,
  resolvePrograms,
  ripgrepInNpmCache,
} from "../../../tools/kernel/programs.ts";
import { tempDir } from "../../_temp.ts";

Deno.test("findOnPath finds executables the way a shell does", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/tool`, "#!/bin/sh\n");
  await Deno.writeTextFile(`${dir}/notexec`, "");
  await Deno.chmod(`${dir}/tool`, 0o755);
  assert.equal(findOnPath("tool", `/nonexistent:${dir}`), `${dir}/tool`);
  assert.equal(findOnPath("notexec", dir), undefined);
  assert.equal(findOnPath("missing", dir), undefined);
  assert.equal(findOnPath(`${dir}/tool`, ""), `${dir}/tool`);
});

Deno.test("ripgrep comes from npm:@vscode/ripgrep, resolved when asked", async () => {
  const rg = await findRipgrep("/unused");
  assert.ok(rg, "the platform package should be installed");
  const out = await new Deno.Command(rg, { args: ["--version"] }).output();
  assert.match(new TextDecoder().decode(out.stdout), /^ripgrep \d+\.\d+/);
});

Deno.test("ripgrep found in Deno's npm cache without importing its package is the binary the package names", async () => {
  const found = ripgrepInNpmCache();
  // The tests run from Deno's global npm cache, where the layout holds.
  assert.ok(found, "the global npm cache's layout should be recognised");
  const { rgPath } = await import("@vscode/ripgrep");
  assert.equal(found, rgPath);
  assert.equal(await findRipgrep("/unused"), rgPath);
});

Deno.test("inNpmCache names where Deno's global npm cache holds a package of the import map", () => {
  const zod = inNpmCache("zod");
  assert.ok(zod, "the tests run from Deno's global npm cache");
  assert.ok(
    import.meta.resolve("zod").startsWith(
      `file://${zod.registry}/zod/${zod.version}/`,
    ),
  );
  assert.match(zod.registry, new RegExp(`^${zod.cache}/npm/[^/]+$`));
  assert.ok(Deno.statSync(`${zod.cache}/npm`).isDirectory);
  assert.equal(inNpmCache("no-such-package-in-the-map"), undefined);
});

Deno.test("findOnPath joins a PATH entry with a trailing slash as a shell would", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/tool`, "#!/bin/sh\n");
  await Deno.chmod(`${dir}/tool`, 0o755);
  assert.equal(findOnPath("tool", `${dir}/`), `${dir}/tool`);
  assert.equal(findOnPath("tool", `${dir}//`), `${dir}/tool`);
});

Deno.test("a compiled wave's ripgrep is copied out to WAVE_HOME/bin/rg-<hash>, mode 755, once", async () => {
  const rg = (await findRipgrep("/unused"))!;
  const home = await tempDir();
  const first = await installBinary(rg, `${home}/bin`, "rg");
  assert.match(first, new RegExp(`^${home}/bin/rg-[0-9a-f]{16}$`));
  assert.equal((await Deno.stat(first)).mode! & 0o777, 0o755);
  const out = await new Deno.Command(first, { args: ["--version"] }).output();
  assert.ok(out.success);
  const mtime = (await Deno.stat(first)).mtime;
  assert.equal(await installBinary(rg, `${home}/bin`, "rg"), first);
  assert.deepEqual(
    (await Deno.stat(first)).mtime,
    mtime,
    "an existing copy is reused",
  );
  const names = [...Deno.readDirSync(`${home}/bin`)].map((e) => e.name);
  assert.equal(names.length, 1, "no temp file is left");
});

Deno.test("the probe of a fresh copy runs with an empty environment (it may run before wave drops the model keys)", async () => {
  const home = await tempDir();
  const seen = `${home}/seen.txt`;
  const source = `${home}/probe.sh`;
  await Deno.writeTextFile(source, `#!/bin/sh\nenv > '${seen}'\n`);
  Deno.env.set("WAVE_PROBE_TEST_SECRET", "sk-probe-secret");
  try {
    await installBinary(source, `${home}/bin`, "probe");
  } finally {
    Deno.env.delete("WAVE_PROBE_TEST_SECRET");
  }
  const env = await Deno.readTextFile(seen);
  assert.ok(env.length > 0, "the probe ran");
  assert.ok(!env.includes("sk-probe-secret"), env);
  assert.ok(!/^(HOME|PATH)=/m.test(env), env);
  await Deno.remove(home, { recursive: true });
});

Deno.test("a fresh copy of ripgrep runs at once even while other threads start processes (a process forked during the write holds it 'busy' until it execs)", async () => {
  const rg = (await findRipgrep("/unused"))!;
  // Threads that start processes all the time, as a session's workers do.
  const spawner = URL.createObjectURL(
    new Blob([
      "let on = true; self.onmessage = () => { on = false; self.close(); };\n" +
      'while (on) await new Deno.Command("true").output();\n',
    ], { type: "text/javascript" }),
  );
  const workers = [1, 2].map(() => new Worker(spawner, { type: "module" }));
  try {
    const failures: string[] = [];
    for (let i = 0; i < 30; i++) {
      const home = await tempDir();
      const copy = await installBinary(rg, `${home}/bin`, "rg");
      try {
        await new Deno.Command(copy, { args: ["--version"] }).output();
      } catch (error) {
        failures.push(String(error));
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    for (const worker of workers) worker.terminate();
    URL.revokeObjectURL(spawner);
  }
});

Deno.test("resolvePrograms leaves out what is not installed", async () => {
  const found = await resolvePrograms(["sh", "no-such-program-xyz"], "/unused");
  assert.deepEqual(Object.keys(found), ["sh"]);
});

Deno.test("PathLookup remembers programs: a removed one is dropped at once, an installed one found after the recheck interval", async () => {
  const dir = await tempDir();
  let now = 0;
  const lookup = new PathLookup(1000, () => now);
  const tool = `${dir}/tool`;
  assert.equal(lookup.find("tool", dir), undefined);
  await Deno.writeTextFile(tool, "#!/bin/sh\n");
  await Deno.chmod(tool, 0o755);
  now = 999;
  assert.equal(lookup.find("tool", dir), undefined, "still believed missing");
  now = 1000;
  assert.equal(lookup.find("tool", dir), tool, "searched for again");
  await Deno.remove(tool);
  assert.equal(lookup.find("tool", dir), undefined, "gone at once");
  // Another PATH is another lookup.
  assert.equal(lookup.find("tool", `/nonexistent:${dir}`), undefined);
});
