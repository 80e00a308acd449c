/**
 * Sensitive files: secrets that need the parent's approval even inside the
 * workspace, and whose contents search tools never return.
 *
 * @module
 */

import { basename } from "./posix_path.ts";

const SENSITIVE_NAMES: readonly RegExp[] = [
  /^\.env/, // .env, .env.local, .env.production, .envrc …
  /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)/,
  /^\.(netrc|pgpass|git-credentials)$/,
  /^_netrc$/,
  /^credentials$/, // judged with its directory below
];

/** Directories whose whole contents are secret material. */
const SENSITIVE_DIRS = new Set([".ssh", ".gnupg"]);

/** Files that are secret only in some directories. */
const SENSITIVE_IN_DIR: readonly [dir: string, name: string][] = [
  [".aws", "credentials"],
  [".aws", "config"],
  [".docker", "config.json"],
  [".kube", "config"],
];

/** Package-manager configs that are secret only when they hold credentials. */
const TOKEN_FILES = new Set([".npmrc", ".yarnrc.yml", ".pypirc"]);
const TOKEN_CONTENT =
  /(_authToken|_auth|_password|npmAuthToken|npmAuthIdent|password)\s*[=:]/i;

/**
 * Says why a path is sensitive, or returns `undefined`.
 *
 * `readSmall` reads a file's text for the content checks (`.npmrc` with a
 * token); it may return `undefined` when the file is missing or unreadable,
 * which counts as "no token".
 */
export function sensitiveReason(
  path: string,
  readSmall: (path: string) => string | undefined,
): string | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  const name = basename(path);
  for (const dir of parts.slice(0, -1)) {
    if (SENSITIVE_DIRS.has(dir)) return `sensitive file (inside ${dir}/)`;
  }
  const parent = parts.at(-2);
  for (const [dir, file] of SENSITIVE_IN_DIR) {
    if (parent === dir && name === file) {
      return `sensitive file (${dir}/${file})`;
    }
  }
  if (name === "credentials") return undefined;
  for (const pattern of SENSITIVE_NAMES) {
    if (pattern.test(name)) return `sensitive file (${name})`;
  }
  if (TOKEN_FILES.has(name)) {
    const text = readSmall(path);
    if (text !== undefined && TOKEN_CONTENT.test(text)) {
      return `sensitive file (${name} with credentials)`;
    }
  }
  return undefined;
}

/**
 * ripgrep globs that exclude sensitive files by name, for search tools that
 * must never return their contents. Content-dependent cases (`.npmrc` with a
 * token) are excluded as a whole. A glob without a slash matches at any
 * depth; the others are written with `**` for the same reason.
 */
export const SENSITIVE_EXCLUDE_GLOBS: readonly string[] = [
  "!.env*",
  "!*.pem",
  "!*.key",
  "!*.p12",
  "!*.pfx",
  "!*.jks",
  "!*.keystore",
  "!*.ppk",
  "!*.asc",
  "!*.gpg",
  "!id_rsa*",
  "!id_dsa*",
  "!id_ecdsa*",
  "!id_ed25519*",
  "!.netrc",
  "!_netrc",
  "!.pgpass",
  "!.git-credentials",
  "!**/.ssh/**",
  "!**/.gnupg/**",
  "!**/.aws/credentials",
  "!**/.aws/config",
  "!**/.docker/config.json",
  "!**/.kube/config",
  "!.npmrc",
  "!.yarnrc.yml",
  "!.pypirc",
];
