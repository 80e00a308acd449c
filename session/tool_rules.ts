/**
 * Tool rules, as Claude Code writes them in `--allowedTools`,
 * `--disallowedTools` and permission updates: a tool's name (`Bash`,
 * `mcp__server__tool`, or `mcp__server` for all of a server's tools), or a
 * name with a specifier in parentheses that narrows it to some calls:
 * `Bash(npm test)` (that command), `Bash(git:*)` or `Bash(git *)` (commands
 * that start with `git`), `Edit(src/**)` (paths matching the glob, relative
 * to the workspace), `Read(/etc/hosts)`.
 *
 * Loaded after `system/init` (the CLI imports it only when `--tools` or
 * `--disallowedTools` must shape init's tool list); the lists' splitting,
 * which the flags need, is in `flags.ts`.
 *
 * @module
 */

import {
  type CompiledGlob,
  globRegExp,
  globsCover,
} from "../tools/kernel/hidden.ts";
import { splitToolRules } from "./flags.ts";
import { readCommandLine, type ReadLine } from "./_shell_words.ts";

/** One parsed rule. */
export interface ToolRule {
  /** The tool's name, or `mcp__server` for every tool of that server. */
  tool: string;
  /** What narrows it to some calls, or null for every call of the tool. */
  specifier: string | null;
}

export { splitToolRules };

/** Parses one rule text (`Bash(git:*)`); a text with no parentheses is a bare name. */
export function parseToolRule(text: string): ToolRule {
  const m = /^([^()]+)\((.*)\)$/s.exec(text.trim());
  if (!m) return { tool: text.trim(), specifier: null };
  const specifier = m[2].trim();
  return { tool: m[1].trim(), specifier: specifier === "" ? null : specifier };
}

/**
 * Whether tool `name` is offered at all: named by `only` (`--tools`) when
 * that is given, and named bare by none of `deny` (`--disallowedTools`;
 * such a tool is left out of the model's list, as Claude Code does).
 */
export function isOffered(
  name: string,
  only: readonly string[] | null,
  deny: readonly ToolRule[],
): boolean {
  if (only && !only.includes(name)) return false;
  return !deny.some((rule) => rule.specifier === null && namesTool(rule, name));
}

/**
 * Whether `rule` names tool `name`: an `mcp__server` rule names each of
 * that server's tools, and a `*` in a rule's name stands for any run of
 * characters (`mcp__server__*`).
 */
export function namesTool(rule: ToolRule, name: string): boolean {
  if (rule.tool.includes("*")) {
    const source = rule.tool.split("*").map((part) =>
      part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    ).join(".*");
    return new RegExp(`^${source}$`).test(name);
  }
  return rule.tool === name ||
    (rule.tool.startsWith("mcp__") && rule.tool.split("__").length === 2 &&
      name.startsWith(`${rule.tool}__`));
}

/**
 * Whether a rule's specifier covers a call: a command, or the call's paths.
 *
 * A command specifier is Claude Code's: `git:*` is a prefix (`git` and
 * `git …`), `*` anywhere matches any run of characters (`git * main`,
 * `* --force`, `*` alone every command), and a single trailing ` *` may
 * also match nothing (`ls *` covers `ls`, not `lsof`); anything else is
 * the whole command. A command is read as the commands it chains (`&&`,
 * `||`, `;`, `|`, `&`, newlines): an `allow` rule covers it only when it
 * covers every one and the command substitutes or redirects nothing
 * (`git status && rm -rf ~` is no `git` command); a `deny` rule covers it
 * when it covers any one, read as the shell reads it (`_shell_words.ts`:
 * quotes and backslashes removed, `'r'm`, `r\m`, `$'\x72m'` are `rm`),
 * also one in a subshell, a group, a substitution, a here-document's
 * substitution, `sh -c '…'`, `eval`, `find -exec`, or after a keyword, an
 * assignment or a wrapper (`(rm x)`, `$(rm x)`, `if …; then rm x; fi`,
 * `FOO=1 rm x`, `command /bin/rm x`, `timeout 5 rm x`, `sudo -u u rm x`).
 * What a deny rule cannot rule out without running the line is
 * {@linkcode commandUnclear}.
 *
 * A path specifier is a glob in gitignore's manner (`**` any depth, `*`
 * and `?` within a name): `//abs` from the root, `~/p` from the home
 * directory (`home`), `/p` from the workspace or the root, anything else
 * from the workspace, and a glob without a slash at any depth (`*.env`).
 * A glob that matches a directory covers what is in it. An `allow` rule
 * covers a call when it covers every path, a `deny` rule when it covers any.
 */
export function specifierCovers(
  specifier: string,
  what: { command?: string; paths: { relative: string; absolute: string }[] },
  use: "allow" | "deny" = "allow",
  home?: string,
): boolean {
  if (what.command !== undefined) {
    // `Bash(*)` is `Bash`, as in Claude Code.
    if (normalized(specifier) === "*") return true;
    const one = commandMatcher(specifier);
    if (use === "deny") {
      const read = readLine(what.command);
      // A line read with confidence is its commands; one that is not is
      // also cut at every operator, quoted or not, so a deny rule finds
      // what it can in it (and the rest is asked about: commandUnclear).
      // The reader's commands are already unwrapped; the raw parts are
      // unwrapped here (a bounded number of leading words each).
      return read.commands.map(normalized).some(one) || [
        normalized(what.command),
        ...(read.unclear ? commandsIn(what.command, true) : []),
      ].some((part) => unwrapped(part).some(one));
    }
    const parts = commandsIn(what.command, false);
    return !/[`$<>()]/.test(what.command) && parts.length > 0 &&
      parts.every(one);
  }
  if (what.paths.length === 0) return false;
  const globs = pathGlobs(specifier, home);
  const covered = (path: { relative: string; absolute: string }) =>
    globsCover(globs, path);
  return use === "deny" ? what.paths.some(covered) : what.paths.every(covered);
}

/**
 * Why `command` cannot be told free of what the command specifier of a
 * deny or ask rule covers without running it, or null when it can: the
 * line cannot be read with confidence (an unclosed quote, a `case`,
 * `env -S`), or a command in it holds a word known only when it runs (a
 * variable, a substitution, a glob, a brace expansion) and what comes
 * before that word could still begin a command the rule covers (`$P -rf x`
 * for any rule, `git push $F` for `Bash(git push --force)`).
 */
export function commandUnclear(
  specifier: string,
  command: string,
): string | null {
  const spec = normalized(specifier);
  if (spec === "*") return null; // it covers every command anyway
  const read = readLine(command);
  if (read.unclear) return read.unclear;
  const legacy = /^(.*?):\*$/.exec(spec);
  const literal = legacy
    ? `${legacy[1].trim()} `
    : spec.includes("*")
    ? spec.slice(0, spec.indexOf("*"))
    : spec;
  const open = read.open.find((start) =>
    literal.startsWith(start) || start.startsWith(literal)
  );
  if (open === undefined) return null;
  return open === ""
    ? "the program it runs is known only when it runs"
    : `the words after "${open.trim()}" are known only when it runs`;
}

let lastRead: { command: string; read: ReadLine } | undefined;

/** The line read once for all the rules a call is checked against. */
function readLine(command: string): ReadLine {
  if (lastRead?.command !== command) {
    lastRead = { command, read: readCommandLine(command) };
  }
  return lastRead.read;
}

/** The simple commands a command line chains; with `deep`, also those in subshells, groups and substitutions. */
function commandsIn(command: string, deep: boolean): string[] {
  const separators = deep
    ? /&&|\|\||\$\(|[<>]\(|[;|&\n\r()\x60{}]/
    : /&&|\|\||[;|&\n]/;
  return command.split(separators).map(normalized).filter(Boolean);
}

/** Whitespace runs as one space, trimmed. */
function normalized(command: string): string {
  return command.replace(/\s+/g, " ").trim();
}

/** The most leading words taken off one command (each form is a copy of it). */
const MAX_LEADERS = 64;

/** Words that only lead into the command after them. */
const LEADERS = new Set([
  "!",
  "if",
  "then",
  "else",
  "elif",
  "do",
  "while",
  "until",
  "time",
  "exec",
  "command",
  "builtin",
  "nohup",
  "env",
  "sudo",
  "nice",
  "xargs",
  "eval",
]);

/**
 * A simple command and what it runs once the words that lead into it are
 * taken off (keywords, wrappers, assignments), with its program also by
 * its bare name (`/bin/rm`, `\rm`, `"rm"` run `rm`).
 */
function unwrapped(command: string): string[] {
  const forms = [command];
  let words = command.split(" ");
  while (
    words.length > 1 && forms.length <= MAX_LEADERS &&
    (LEADERS.has(words[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]) ||
      /^-/.test(words[0]))
  ) {
    words = words.slice(1);
    forms.push(words.join(" "));
  }
  const program = words[0].replace(/["'\\]/g, "");
  const bare = program.slice(program.lastIndexOf("/") + 1);
  if (bare && bare !== words[0]) {
    forms.push([bare, ...words.slice(1)].join(" "));
  }
  return forms;
}

/** Whether a command specifier covers one simple command. */
function commandMatcher(specifier: string): (command: string) => boolean {
  const spec = normalized(specifier);
  if (spec === "*") return () => true;
  const legacy = /^(.*?):\*$/.exec(spec);
  if (legacy) {
    const head = legacy[1].trim();
    return (command) => command === head || command.startsWith(`${head} `);
  }
  if (!spec.includes("*")) return (command) => command === spec;
  const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  const stars = spec.split("*").length - 1;
  const source = stars === 1 && spec.endsWith(" *")
    ? `${escape(spec.slice(0, -2))}(?: .*)?`
    : spec.split("*").map(escape).join(".*");
  const pattern = new RegExp(`^${source}$`, "s");
  return (command) => pattern.test(command);
}

/** One glob of a path specifier. */
export interface PathGlob extends CompiledGlob {
  /** The glob as written (`**`, `*`, `?`; a directory's `/**` taken off). */
  text: string;
}

/**
 * A path specifier's globs, each over the relative or the absolute path.
 * A path is covered when a glob matches it or a directory above it.
 */
export function pathGlobs(
  specifier: string,
  home?: string,
): PathGlob[] {
  let spec = withoutDots(specifier.trim());
  if (spec.length > 1 && spec.endsWith("/")) spec = spec.replace(/\/+$/, "");
  // gitignore: a glob with no slash in it matches at any depth.
  const anywhere = !spec.includes("/");
  // What is in a directory is covered with it (a search of the directory too).
  if (spec.length > 3 && spec.endsWith("/**")) spec = spec.slice(0, -3);
  const glob = (text: string, absolute: boolean): PathGlob => ({
    glob: globRegExp(text),
    absolute,
    text,
  });
  if (spec.startsWith("//")) return [glob(spec.slice(1), true)];
  if (spec === "~" || spec.startsWith("~/")) {
    return home ? [glob(home + spec.slice(1), true)] : [];
  }
  if (spec.startsWith("/")) {
    return [glob(spec, true), glob(spec.slice(1), false)];
  }
  spec = spec.replace(/^(\.\/)+/, "");
  return [glob(anywhere ? `**/${spec}` : spec, false)];
}

/**
 * A specifier with its `.` and `name/..` steps taken out, as the paths it
 * is tested on are (`./notes/../hidden/**` is `hidden/**`); a `..` with
 * nothing before it to take out (`../x`) stays.
 */
function withoutDots(spec: string): string {
  if (!/(^|\/)\.\.?(\/|$)/.test(spec)) return spec;
  const lead = /^(\/*|~\/)/.exec(spec)![0];
  const out: string[] = [];
  for (const part of spec.slice(lead.length).split("/")) {
    if (part === ".") continue;
    if (
      part === ".." && out.length > 0 && out[out.length - 1] !== ".." &&
      !/[*?]/.test(out[out.length - 1])
    ) {
      out.pop();
      continue;
    }
    out.push(part);
  }
  // A rule written with a slash stays anchored where it was written.
  const rest = out.length > 0 ? out.join("/") : ".";
  return lead === "" && !rest.includes("/") ? `./${rest}` : lead + rest;
}
