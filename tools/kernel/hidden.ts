/**
 * What `Read` deny rules keep from a call that reads more than the paths
 * it names: a search that names no path, a directory listing. The rules
 * travel as their globs ({@linkcode HiddenGlob}), not as the paths they
 * cover on disk, so nothing is walked before the call: a listing tests
 * each entry as the permission check tests a path it is asked about
 * ({@linkcode hiddenTest}), and ripgrep gets the globs, rewritten for the
 * directory it searches, as exclusions ({@linkcode ripgrepExclusions}).
 *
 * The glob language is the rules': `*` and `?` stay within one name, `**`
 * runs over any characters (before a slash, also none), everything else
 * is itself. A path is covered when it or a directory above it matches.
 *
 * @module
 */

/** One glob of a `Read` deny rule, as the permission check tests it. */
export interface HiddenGlob {
  /** The glob, in the rules' language (`secrets`, `**\/*.env`, `/etc/shadow`). */
  readonly text: string;
  /**
   * Tested on real absolute paths. Else on paths relative to the
   * workspace, and, for a path outside it, on its absolute path.
   */
  readonly absolute: boolean;
}

/** A glob as a regular expression: `**` any run of characters (before a slash also none), `*` and `?` within one name. */
export function globRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        source += "(?:.*/)?";
        i++;
      } else source += ".*";
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}

/** A path and each directory above it (`a/b/c`, `a/b`, `a`; `/x/y`, `/x`). */
function withAncestors(path: string): string[] {
  const paths = [path];
  for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
    paths.push(path.slice(0, i));
  }
  return paths;
}

/** A glob compiled, over absolute paths or over {@linkcode ruleSubject}'s relative ones. */
export interface CompiledGlob {
  /** The glob as a regular expression over a whole path. */
  readonly glob: RegExp;
  /** Over the absolute path, or the path relative to the workspace. */
  readonly absolute: boolean;
}

/**
 * A real path as the rules' globs are tested on it: absolute, and relative
 * to `workspace` when it lies inside (else absolute too).
 */
export function ruleSubject(
  real: string,
  workspace: string,
): { relative: string; absolute: string } {
  return {
    absolute: real,
    relative: real.startsWith(`${workspace}/`)
      ? real.slice(workspace.length + 1)
      : real,
  };
}

/** Whether `globs` cover `path`: it, or a directory above it, matches one. */
export function globsCover(
  globs: readonly CompiledGlob[],
  path: { relative: string; absolute: string },
): boolean {
  return globs.some(({ glob, absolute }) =>
    withAncestors(absolute ? path.absolute : path.relative).some((p) =>
      glob.test(p)
    )
  );
}

/**
 * A test of whether the globs cover a real absolute path, as the
 * permission check decides a `Read` of it ({@linkcode globsCover} of its
 * {@linkcode ruleSubject}).
 */
export function hiddenTest(
  globs: readonly HiddenGlob[],
  workspace: string,
): (path: string) => boolean {
  const compiled = globs.map(({ text, absolute }) => ({
    glob: globRegExp(text),
    absolute,
  }));
  if (compiled.length === 0) return () => false;
  return (path) => globsCover(compiled, ruleSubject(path, workspace));
}

/**
 * ripgrep globs (`!/…`, anchored at `cwd`) that leave out of a search run
 * in `cwd` everything the globs cover below it, and little else: where
 * ripgrep cannot say exactly what the rules say, more (`?` is `*`; a name
 * ending in white space ends in `*`; `a**\/b` is every name that starts
 * `a`). `["!*"]` when they cover `cwd` itself. Put them after the caller's
 * globs: in ripgrep the last glob that matches decides. What ripgrep
 * prints is tested with {@linkcode hiddenTest} too (`runRipgrep`).
 */
export function ripgrepExclusions(
  globs: readonly HiddenGlob[],
  workspace: string,
  cwd: string,
): string[] {
  const names = cwd === "/" ? [""] : cwd.split("/");
  // Below the workspace, a relative glob is tested on relative paths only.
  const inWorkspace = cwd === workspace || cwd.startsWith(`${workspace}/`);
  const out = new Set<string>();
  for (const { pattern, outside } of patternsOf(globs, workspace)) {
    if (outside && inWorkspace) continue;
    const rests = restsBelow(pattern, names);
    if (rests === "covered") return ["!*"];
    for (const rest of rests) {
      // ripgrep trims a glob's trailing white space (escaped too): a
      // name that ends in some ends in anything instead.
      const glob = rest.map(ripgrepPart).join("/").replace(/\s+$/u, "*");
      out.add(`!/${glob}`);
    }
  }
  return [...out];
}

/** One name of a pattern: itself, a glob within one name, or any number of names. */
type Part =
  | { kind: "name"; text: string }
  | { kind: "glob"; text: string; test: RegExp }
  | { kind: "depth" };

/** The most patterns one glob is rewritten into before it is widened instead. */
const MAX_PATTERNS = 64;

/**
 * Each glob as patterns over the names of an absolute path (`""` first):
 * an absolute glob as it is; a relative one under the workspace, and as it
 * is (its first part then matches the empty name before the first slash)
 * for paths `outside` the workspace.
 */
function patternsOf(
  globs: readonly HiddenGlob[],
  workspace: string,
): { pattern: Part[]; outside: boolean }[] {
  const patterns: { pattern: Part[]; outside: boolean }[] = [];
  const base = workspace.split("/").map((text): Part => ({
    kind: "name",
    text,
  }));
  for (const { text, absolute } of globs) {
    const split = partsOf(text.split("/"));
    for (const parts of split) {
      if (absolute) patterns.push({ pattern: parts, outside: false });
      else {
        patterns.push(
          { pattern: [...base, ...parts], outside: false },
          { pattern: parts, outside: true },
        );
      }
    }
  }
  return patterns;
}

/**
 * The names of a glob as alternatives of {@linkcode Part} lists. A `**`
 * that is a whole name before a slash is any number of names; one at the
 * end is one name of any kind (what is below it is covered with it); one
 * glued to other characters (`a**b`) is split into the case where it
 * stays within the name (`a*b`) and the case where it does not (`a*`,
 * any names, `*b`).
 */
function partsOf(names: readonly string[]): Part[][] {
  const out: Part[][] = [];
  const walk = (rest: readonly string[], done: Part[]) => {
    if (out.length > MAX_PATTERNS) return;
    if (rest.length === 0) {
      out.push(done);
      return;
    }
    // A run of stars of two or more is `**`: `***` is `**` then `*`, both any run.
    const name = rest[0].replace(/\*{2,}/g, "**");
    const last = rest.length === 1;
    const at = name.indexOf("**");
    if (at === -1) {
      walk(rest.slice(1), [...done, partOf(name)]);
    } else if (name === "**") {
      // At the end, one name of any kind; before a slash, any number of names.
      if (last) out.push([...done, partOf("*")]);
      else walk(rest.slice(1), [...done, { kind: "depth" }]);
    } else {
      const before = name.slice(0, at);
      const after = name.slice(at + 2);
      if (after === "") {
        // `a**` at the end covers every name that starts `a` (and all
        // below it). Before a slash it is `a`, then nothing or any run
        // ending in a slash: widened to the same, a little more.
        out.push([...done, partOf(`${before}*`)]);
        return;
      }
      // Within the name, or across names.
      walk([`${before}*${after}`, ...rest.slice(1)], done);
      walk([`*${after}`, ...rest.slice(1)], [
        ...done,
        partOf(`${before}*`),
        { kind: "depth" },
      ]);
    }
  };
  walk(names, []);
  if (out.length > MAX_PATTERNS) {
    // Too many ways to read it: widened to everything below the names before its first `**`.
    const head = names.slice(0, names.findIndex((n) => n.includes("**")));
    return [[...head.map(partOf), partOf("*")]];
  }
  return out;
}

function partOf(text: string): Part {
  return /[*?]/.test(text)
    ? { kind: "glob", text, test: globRegExp(text) }
    : { kind: "name", text };
}

/**
 * What is left of `pattern` below the directory whose names are `names`
 * (`""` first): each way the directory's names can be matched leaves the
 * rest of the pattern, which its entries must match. `"covered"` when the
 * directory itself, or one above it, matches the whole pattern.
 */
function restsBelow(
  pattern: readonly Part[],
  names: readonly string[],
): Part[][] | "covered" {
  const closure = (states: Set<number>) => {
    for (const i of states) {
      if (pattern[i]?.kind === "depth") states.add(i + 1);
    }
    return states;
  };
  let states = closure(new Set([0]));
  for (const [n, name] of names.entries()) {
    const next = new Set<number>();
    for (const i of states) {
      const part = pattern[i];
      if (part === undefined) continue;
      if (part.kind === "depth") next.add(i);
      else if (
        part.kind === "name" ? part.text === name : part.test.test(name)
      ) {
        next.add(i + 1);
      }
    }
    states = closure(next);
    // The path so far matched it whole: it, and all below, is covered
    // (not the root itself, which no check is asked about).
    if (n > 0 && states.has(pattern.length)) return "covered";
    if (states.size === 0) return [];
  }
  // `**/x` already leaves out what `x` would.
  return [...states]
    .filter((i) => !(states.has(i - 1) && pattern[i - 1].kind === "depth"))
    .map((i) => pattern.slice(i));
}

/**
 * A part as ripgrep writes it: its special characters escaped, but a
 * glob's `*`, and its `?` as `*` (ripgrep's `?` is one byte, the rules' one
 * UTF-16 unit: `secret?` covers `secretó`).
 */
function ripgrepPart(part: Part): string {
  if (part.kind === "depth") return "**";
  const escaped = part.text.replace(/[\\[\]{}!*?]/g, "\\$&");
  return part.kind === "glob"
    ? escaped.replace(/\\([*?])/g, "*").replace(/\*+/g, "*")
    : escaped;
}
