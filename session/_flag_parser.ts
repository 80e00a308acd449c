/**
 * A table-driven command-line parser: the table names each flag, its kind,
 * its choices and its default; the parser reads `--name value`,
 * `--name=value` and repeated list flags, and turns each text into its
 * kind's value.
 *
 * It runs before `system/init`, so it imports nothing (`node:util`'s
 * `parseArgs` would load Node compatibility, ~12 ms of a ~45 ms budget).
 *
 * @module
 */

/** What a flag's value is: text, a positive whole number, milliseconds, present or not, or every text given. */
export type FlagKind = "string" | "integer" | "duration" | "boolean" | "list";

/** One flag of a {@linkcode FlagTable}. */
export interface FlagSpec {
  readonly kind: FlagKind;
  /** The only texts accepted. */
  readonly choices?: readonly string[];
  /** The value used when the flag is not given, as it would be typed. */
  readonly default?: string;
  /** A one-letter alias: `-h` for `--help`. */
  readonly short?: string;
  /** The value's placeholder in the help: `--workspace DIR`. */
  readonly arg?: string;
  readonly help: string;
  /** Left out of the help: a flag for tests, not for users. */
  readonly hidden?: boolean;
}

/** Flags by name (without the leading `--`). */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

type ValueOf<S extends FlagSpec> = S["kind"] extends "integer" | "duration"
  ? number
  : S["kind"] extends "boolean" ? boolean
  : S["kind"] extends "list" ? string[]
  : S extends { choices: readonly (infer C extends string)[] } ? C
  : string;

type Always<S extends FlagSpec> = S["kind"] extends "boolean" | "list" ? true
  : S extends { default: string } ? true
  : false;

/**
 * The parsed flags of table `T`: booleans, lists and flags with a default
 * are always present; the others only when given.
 */
export type FlagValues<T extends FlagTable> =
  & {
    -readonly [K in keyof T as Always<T[K]> extends true ? K : never]: ValueOf<
      T[K]
    >;
  }
  & {
    -readonly [K in keyof T as Always<T[K]> extends true ? never : K]?: ValueOf<
      T[K]
    >;
  };

/** The texts given for each flag, before they are checked: `true` for a boolean, every text for a list. */
export type FlagTexts = Record<string, string | true | string[]>;

/**
 * Reads `args` against `table`. Guarantees: the texts of the known flags,
 * or one line saying which argument is wrong (an unknown flag, a value
 * missing or given to a boolean, an argument that is not a flag).
 */
export function readFlags(
  args: readonly string[],
  table: FlagTable,
): FlagTexts | string {
  const texts: FlagTexts = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (eq !== -1) inline = arg.slice(eq + 1);
      if (!Object.hasOwn(table, name)) return `unknown flag: --${name}`;
    } else {
      const short = arg.length === 2 && arg[0] === "-"
        ? Object.keys(table).find((n) => table[n].short === arg[1])
        : undefined;
      if (short === undefined) return `unexpected argument: ${arg}`;
      name = short;
    }
    const spec = table[name];
    if (spec.kind === "boolean") {
      if (inline !== undefined) return `--${name} takes no value`;
      texts[name] = true;
      continue;
    }
    let text: string;
    if (inline !== undefined) text = inline;
    else if (i + 1 < args.length) text = args[++i];
    else return `--${name} needs a value`;
    if (spec.kind === "list") {
      const list = (texts[name] as string[] | undefined) ?? [];
      list.push(text);
      texts[name] = list;
    } else {
      texts[name] = text;
    }
  }
  return texts;
}

/**
 * Turns texts read by {@linkcode readFlags} into values, filling in
 * defaults. Guarantees: every value is of its flag's kind and among its
 * choices, or one line naming the first flag (in table order) that is not.
 */
export function flagValues<T extends FlagTable>(
  texts: FlagTexts,
  table: T,
): FlagValues<T> | string {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const given = texts[name] ?? spec.default;
    if (spec.kind === "boolean") values[name] = given === true;
    else if (spec.kind === "list") values[name] = given ?? [];
    else if (typeof given === "string") {
      const value = valueOf(spec, given);
      if (value === undefined) return problemWith(name, spec, given);
      values[name] = value;
    }
  }
  return values as FlagValues<T>;
}

function valueOf(
  spec: FlagSpec,
  text: string,
): string | number | undefined {
  if (spec.choices && !spec.choices.includes(text)) return undefined;
  if (spec.kind === "duration") return parseDuration(text);
  if (spec.kind === "integer") {
    const n = Number(text);
    return /^\d+$/.test(text) && n >= 1 && Number.isSafeInteger(n)
      ? n
      : undefined;
  }
  return text;
}

function problemWith(name: string, spec: FlagSpec, text: string): string {
  if (spec.choices) {
    return `--${name} must be one of ${spec.choices.join(", ")}, not "${text}"`;
  }
  if (spec.kind === "duration") {
    return `--${name} must be a duration such as 30s, 500ms or 5m, not "${text}"`;
  }
  return `--${name} must be a positive whole number, not "${text}"`;
}

/** Reads a duration in milliseconds: a number of seconds, or a number with `ms`, `s` or `m`. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const scale = m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1000;
  return Math.round(n * scale);
}

/**
 * One help line per flag that is not hidden: `--name ARG`, padded to
 * `width`, then its help, led by its choices and followed by its default.
 */
export function helpLines(table: FlagTable, width: number): string[] {
  return Object.entries(table).filter(([, spec]) => !spec.hidden).map((
    [name, spec],
  ) => {
    const left = `  --${name}${spec.arg ? ` ${spec.arg}` : ""}`;
    const choices = spec.choices ? `${spec.choices.join(" | ")}: ` : "";
    const fallback = spec.default === undefined
      ? ""
      : ` (default: ${spec.default})`;
    return `${left.padEnd(width)}${choices}${spec.help}${fallback}`;
  });
}
