/**
 * The environment commands run with: cleared, then rebuilt from an
 * allow-list, so no model API key or token reaches a shell (docs/design.md
 * "The sandbox", layer 3).
 *
 * @module
 */

import { API_KEY_VARIABLES } from "./models/model_id.ts";
/** Variables a command gets when the parent environment has them. */
export const ALLOWED_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_COLLATE",
  "LC_NUMERIC",
  "LC_TIME",
  "TERM",
  "TMPDIR",
  "TZ",
];

/** The keys wave itself uses for models: never passed on, even when asked. */
export const MODEL_KEYS: readonly string[] = [
  ...Object.values(API_KEY_VARIABLES),
  // Claude Code's other credential, never read by wave but never passed on.
  "ANTHROPIC_AUTH_TOKEN",
];

/**
 * The environment for commands: the allow-list plus `extra` names the
 * parent allowed (`--env-allow`), minus wave's model keys.
 */
export function commandEnvironment(
  env: { get(name: string): string | undefined },
  extra: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...ALLOWED_ENV, ...extra]) {
    if (MODEL_KEYS.includes(name)) continue;
    const value = env.get(name);
    if (value !== undefined) out[name] = value;
  }
  out.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return out;
}
