import assert from "node:assert/strict";
import {
  type HiddenGlob,
  hiddenTest,
  ripgrepExclusions,
} from "../../../tools/kernel/hidden.ts";
import { findRipgrep } from "../../../tools/kernel/programs.ts";
import { pathGlobs, specifierCovers } from "../../../session/tool_rules.ts";
import { tempDir } from "../../_temp.ts";

/** A rule's globs as a call carries them (`ctx.hidden`). */
function globsOf(...specifiers: string[]): HiddenGlob[] {
  return specifiers.flatMap((s) =>
    pathGlobs(s).map(({ text, absolute }) => ({ text, absolute }))
  );
}

Deno.test("hidden: rules become ripgrep exclusions anchored at the searched directory, rewritten for where it lies", () => {
  const ws = "/w/app";
  const at = (cwd: string, ...specifiers: string[]) =>
    ripgrepExclusions(globsOf(...specifiers), ws, cwd);
  assert.deepEqual(at(ws, "secrets/**"), ["!/secrets"]);
  assert.deepEqual(at(`${ws}/src`, "secrets/**"), []);
  // A name at any depth, from the workspace and from below it.
  assert.deepEqual(at(ws, "*.env"), ["!/**/*.env"]);
  assert.deepEqual(at(`${ws}/a/b`, "*.env"), ["!/**/*.env"]);
  // The searched directory is inside the glob: the rest of it is anchored there.
  assert.deepEqual(at(`${ws}/src`, "src/*/key"), ["!/*/key"]);
  assert.deepEqual(at(`${ws}/src/x`, "src/*/key"), ["!/key"]);
  assert.deepEqual(at(`${ws}/src/x/y`, "src/*/key"), []);
  assert.deepEqual(at(`${ws}/lib`, "src/*/key"), []);
  // `**` in the middle: every way the searched directory's names fit it.
  assert.deepEqual(at(`${ws}/a`, "a/**/k").sort(), ["!/**/k"]);
  assert.deepEqual(at(`${ws}/a/k`, "a/**/k"), ["!*"]);
  // Glob characters in a literal name are escaped for ripgrep.
  assert.deepEqual(at(ws, "//w/app/[x]{y}/**"), ["!/\\[x\\]\\{y\\}"]);
  // Absolute rules, and a root outside the workspace where a relative
  // rule is tested on the absolute path.
  assert.deepEqual(at("/etc", "//etc/shadow"), ["!/shadow"]);
  assert.deepEqual(at("/data", "*.env"), ["!/**/*.env"]);
  assert.deepEqual(at("/data", "secrets/**"), []);
  // A relative name is not matched against the names above the workspace:
  // `Read(app)` does not hide the workspace /w/app from itself.
  assert.deepEqual(at(ws, "app"), ["!/**/app"]);
  // Where ripgrep reads a glob otherwise, more is left out: its `?` is one
  // byte (the rules' one UTF-16 unit), and it trims trailing white space.
  assert.deepEqual(at(ws, "secret?"), ["!/**/secret*"]);
  assert.deepEqual(at(ws, "vault /**"), ["!/vault*"]);
  // The whole searched directory covered: everything is left out.
  assert.deepEqual(at(`${ws}/secrets/a`, "secrets/**"), ["!*"]);
  assert.deepEqual(at(ws), []);
});

Deno.test("hidden: a listing's test is the permission check's, entry by entry", () => {
  const ws = "/w/app";
  const specifiers = ["secrets/**", "*.env", "//etc/shadow", "src/*/key"];
  const hidden = hiddenTest(globsOf(...specifiers), ws);
  const paths = [
    `${ws}/secrets`,
    `${ws}/secrets/a/b`,
    `${ws}/src/secrets`,
    `${ws}/x.env`,
    `${ws}/deep/er/.env`,
    `${ws}/src/x/key`,
    `${ws}/src/x/y/key`,
    `${ws}/README.md`,
    "/etc/shadow",
    "/etc/passwd",
    "/data/y.env",
    "/w/app",
  ];
  for (const path of paths) {
    const relative = path.startsWith(`${ws}/`)
      ? path.slice(ws.length + 1)
      : path;
    const denied = specifiers.some((s) =>
      specifierCovers(s, { paths: [{ relative, absolute: path }] }, "deny")
    );
    assert.equal(hidden(path), denied, path);
  }
  assert.equal(hidden(`${ws}/secrets/a/b`), true);
  assert.equal(hidden(`${ws}/README.md`), false);
});

/** Every file below `dir`, relative to it. */
function filesBelow(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const rel = prefix + entry.name;
    if (entry.isDirectory) {
      out.push(...filesBelow(`${dir}/${entry.name}`, `${rel}/`));
    } else out.push(rel);
  }
  return out.sort();
}

Deno.test("hidden: ripgrep given the exclusions lists exactly the files the permission check lets a Read have, from every directory searched, for rules of every shape", async () => {
  const rg = await findRipgrep(await tempDir());
  assert.ok(rg, "ripgrep is installed with wave");
  const top = await Deno.realPath(await tempDir());
  // Below a directory named as a rule names one: a relative rule is not
  // tested on the names above the workspace.
  const ws = `${top}/a/ws`;
  const outside = `${top}/data`;
  const names = ["a", "ab", "b", ".env", "x.env", "key", "aó", "b "];
  // Three levels of every name, in the workspace and in a root beside it.
  for (const root of [ws, outside]) {
    for (const one of names) {
      for (const two of names) {
        await Deno.mkdir(`${root}/${one}/${two}`, { recursive: true });
        for (const three of names) {
          await Deno.writeTextFile(`${root}/${one}/${two}/f${three}`, "");
          await Deno.writeTextFile(`${root}/${one}/${two}/${three}.f`, "");
        }
      }
    }
  }
  const rules = [
    "a/**",
    "a",
    "*.env",
    "fkey",
    "a/*/fa",
    "**/b/**",
    "a/**/fkey",
    "*b/x.env/**",
    "a?/*",
    "ab/**.f",
    "a**b/*",
    "a**/fa",
    "a?",
    "b /fa",
    "*/b /**",
    `/${outside}/a/**`,
    `/${outside}/**/fb`,
    "/ab/b",
  ];
  const searched = [
    ws,
    `${ws}/a`,
    `${ws}/ab/b`,
    `${ws}/b/x.env`,
    outside,
    `${outside}/ab`,
    top,
  ];
  for (const rule of rules) {
    const globs = globsOf(rule);
    const hidden = hiddenTest(globs, ws);
    for (const cwd of searched) {
      const args = ["--files", "--hidden", "--no-ignore", "--sort", "path"];
      for (const glob of ripgrepExclusions(globs, ws, cwd)) {
        args.push("--glob", glob);
      }
      const { stdout } = await new Deno.Command(rg!, { args, cwd }).output();
      const listed = new TextDecoder().decode(stdout).split("\n").filter(
        Boolean,
      ).sort();
      const allowed = filesBelow(cwd).filter((rel) => !hidden(`${cwd}/${rel}`));
      const what = `Read(${rule}) searched from ${
        cwd.slice(top.length) || "/"
      }`;
      // Nothing the rule denies is listed.
      const leaked = listed.filter((rel) => hidden(`${cwd}/${rel}`));
      assert.deepEqual(leaked, [], what);
      // And all it allows is, but where ripgrep cannot say what the rule
      // says (a `**` glued to a name before a slash, a `?`, a name ending
      // in white space) or the search is above the workspace (a relative
      // rule is then tested on the absolute path of all it finds): there
      // it may leave out a little more.
      if (/\*\*\/|\?|\s$|\s\//.test(rule) || cwd === top) {
        assert.ok(listed.every((rel) => allowed.includes(rel)), what);
      } else assert.deepEqual(listed, allowed, what);
    }
  }
});
