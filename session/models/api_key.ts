/**
 * Where a model API key comes from, read once at start: `--api-key-file
 * FILE`, else the file a `*_API_KEY_FILE` variable names, else the
 * `*_API_KEY` variable. The flag check reads it into the config, and the
 * provider is made from that, so wave can take the keys out of its
 * environment before it serves (cli.ts).
 *
 * Imports only modules that import nothing: the binary reads it before
 * `system/init`.
 *
 * @module
 */

import { resolve } from "../../tools/kernel/posix_path.ts";
import { API_KEY_VARIABLES, type ApiProvider } from "./model_id.ts";

/** The variable naming a file that holds each provider's key. */
export const API_KEY_FILE_VARIABLES = {
  anthropic: "ANTHROPIC_API_KEY_FILE",
  openai: "OPENAI_API_KEY_FILE",
} as const satisfies Record<ApiProvider, string>;

const REDACTED = "[redacted]";

/**
 * A model API key. Guarantees: only {@linkcode ApiKey.reveal} gives the
 * key; printing, inspecting or serializing it (a config in a log line)
 * shows `[redacted]`.
 */
export class ApiKey {
  #value: string;
  /**
   * The absolute path of the file the key was read from, if it was: the
   * command sandbox hides it (session/command_sandbox.ts).
   */
  readonly source?: string;

  /** Holds `value`, read from the file `source` if given. */
  constructor(value: string, source?: string) {
    this.#value = value;
    if (source !== undefined) this.source = source;
  }

  /** The key, for the one place that sends it: the model client. */
  reveal(): string {
    return this.#value;
  }

  /** `[redacted]`. */
  toString(): string {
    return REDACTED;
  }

  /** `[redacted]`. */
  toJSON(): string {
    return REDACTED;
  }

  /** `ApiKey [redacted]`, for Deno's console and inspect. */
  [Symbol.for("Deno.customInspect")](): string {
    return `ApiKey ${REDACTED}`;
  }
}

/** Where {@linkcode readApiKey} looks. */
export interface KeySources {
  /** `get` of the environment wave started with. */
  env: { get(name: string): string | undefined };
  /** `--api-key-file`. */
  file?: string;
  /** What a relative key file path is relative to: the caller's directory. */
  cwd: string;
  /** `--base-url`: an OpenAI-compatible server there may need no key. */
  baseUrl?: string;
  /**
   * The flag the key is for, named in the problem: `--model` (the
   * default), or `--stt-model` (whose server is `--stt-base-url`).
   */
  flag?: "--model" | "--stt-model";
}

/**
 * The key to call `provider`'s API with, from the first source that is
 * set: `sources.file`, the file `*_API_KEY_FILE` names, `*_API_KEY`. A key
 * file holds the key and nothing else (surrounding whitespace and a final
 * newline are dropped); a pipe works too (`--api-key-file /dev/fd/3`), and
 * leaves nothing behind for anyone to read. An OpenAI-compatible server
 * given by `--base-url` often needs no key; the SDK wants one anyway, so it
 * gets `"none"`.
 *
 * Guarantees: a non-empty key, or one line saying what is wrong: which
 * variable or file to set, or which key file could not be read and why.
 */
export function readApiKey(
  provider: ApiProvider,
  sources: KeySources,
): { key: ApiKey } | { problem: string } {
  const variable = API_KEY_VARIABLES[provider];
  const fileVariable = API_KEY_FILE_VARIABLES[provider];
  const fromVariable = sources.env.get(fileVariable);
  const given = sources.file ?? (fromVariable || undefined);
  if (given !== undefined) {
    const file = resolve(sources.cwd, given);
    const named = sources.file !== undefined ? "--api-key-file" : fileVariable;
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch (error) {
      return {
        problem: `the API key file ${file} (${named}) cannot be read: ${
          (error as Error).message
        }`,
      };
    }
    const key = text.trim();
    if (key === "") {
      return { problem: `the API key file ${file} (${named}) is empty` };
    }
    return { key: new ApiKey(key, file) };
  }
  const key = sources.env.get(variable) ||
    (provider === "openai" && sources.baseUrl ? "none" : undefined);
  if (key) return { key: new ApiKey(key) };
  const flag = sources.flag ?? "--model";
  const fileFlags = flag === "--model"
    ? `--api-key-file FILE or ${fileVariable}`
    : fileVariable;
  const server = flag === "--model" ? "--base-url" : "--stt-base-url";
  return {
    problem:
      `${flag} ${provider}:… needs ${variable} in the environment, or its key in a file (${fileFlags})${
        provider === "openai" ? `, or ${server} for a local server` : ""
      }`,
  };
}
