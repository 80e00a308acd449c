/**
 * Tool rules, as Claude Code writes them in `--allowedTools`,
 * `--disallowedTools` and permission updates: a tool's name (`Bash`,
 * `mcp__server__tool`, or `mcp__server` for all of a server's tools), or a
 * name with a specifier in parentheses that narrows it to some calls:
 * `Bash(npm test)` (that command), `Bash(git:*)` or `Bash(git *)` (commands
 * that start with `git`), `Edit(src/**)` (paths matching the glob, relative
 * to the workspace), `Read(/etc/hosts)`.
 *
 * Imports nothing: the flags read it before `system/init`.
 *
 * @module
 */

/** One parsed rule. */
export interface ToolRule {
  /** The tool's name, or `mcp__server` for every tool of that server. */
  tool: string;
  /** What narrows it to some calls, or null for every call of the tool. */
  specifier: string | null;
}

/**
 * Splits rule lists as Claude Code's flags take them: each text holds
 * rules separated by commas or spaces, except inside parentheses
 * (`Bash(git log:*)` is one rule).
 */
export function splitToolRules(texts: readonly string[]): string[] {
  const rules: string[] = [];
  for (const text of texts) {
    let depth = 0;
    let current = "";
    for (const ch of text) {
      if (ch === "(") depth++;
      if (ch === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === "," || /\s/.test(ch))) {
        if (current) rules.push(current);
        current = "";
      } else current += ch;
    }
    if (current) rules.push(current);
  }
  return rules;
}

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

/** Whether `rule` names tool `name` (an `mcp__server` rule names each of that server's tools). */
export function namesTool(rule: ToolRule, name: string): boolean {
  return rule.tool === name ||
    (rule.tool.startsWith("mcp__") && rule.tool.split("__").length === 2 &&
      name.startsWith(`${rule.tool}__`));
}

/**
 * Whether a rule's specifier covers a call: a command (`git:*` and
 * `git *` are prefixes, anything else the whole command), or a path
 * matched as a glob (`**` any depth, `*` within a name) against the path
 * relative to the workspace and the absolute one.
 *
 * A command is read as the commands it chains (`&&`, `||`, `;`, `|`, `&`,
 * newlines): an `allow` rule covers it only when it covers every one and
 * the command substitutes or redirects nothing (`git status && rm -rf ~`
 * is no `git` command); a `deny` rule covers it when it covers any one.
 */
export function specifierCovers(
  specifier: string,
  what: { command?: string; paths: { relative: string; absolute: string }[] },
  use: "allow" | "deny" = "allow",
): boolean {
  if (what.command !== undefined) {
    const parts = what.command.split(/&&|\|\||[;|&\n]/).map((p) => p.trim())
      .filter(Boolean);
    const one = (command: string) => {
      const prefix = /^(.*?)(?::\*| \*)$/.exec(specifier);
      if (prefix) {
        const head = prefix[1].trim();
        return command === head || command.startsWith(`${head} `);
      }
      return command === specifier.trim();
    };
    if (use === "deny") return one(what.command.trim()) || parts.some(one);
    return !/[`$<>()]/.test(what.command) && parts.length > 0 &&
      parts.every(one);
  }
  if (what.paths.length === 0) return false;
  const glob = globRegExp(specifier.replace(/^\.\//, ""));
  return what.paths.every(({ relative, absolute }) =>
    glob.test(relative) || glob.test(absolute)
  );
}

/** A glob as a regular expression: `**` any run of characters, `*` and `?` within one name. */
function globRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}
