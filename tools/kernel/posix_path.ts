/**
 * POSIX path operations that give what `node:path`'s give on Linux, for
 * every module the main thread and the sandbox workers load: importing
 * any `node:` module first loads Deno's Node compatibility layer, some
 * 15-25 ms of a thread's time and a megabyte of its heap, paid by each
 * isolate before its first call (`deno task bench first-calls`).
 *
 * Pure string arithmetic: nothing here touches the file system, so
 * symlinks are never followed; only {@linkcode resolve} reads the working
 * directory, and only when no argument is absolute.
 *
 * @module
 */

/** The path separator. */
export const sep = "/";

/**
 * `path` with `.` and `..` segments resolved and repeated slashes made one,
 * as `node:path`'s `normalize`: `..` above a relative start is kept, above
 * the root dropped; a trailing slash is kept; `""` gives `"."`.
 */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  let out = normalizeSegments(path, !absolute);
  if (out === "" && !absolute) out = ".";
  if (out !== "" && trailing) out += "/";
  return absolute ? `/${out}` : out;
}

/** `true` when `path` starts at the root. */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/** The non-empty `parts` joined with `/`, then {@linkcode normalize}d; none gives `"."`. */
export function join(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/**
 * The absolute path `parts` name, read right to left until one is
 * absolute (the working directory if none is), normalized, with no
 * trailing slash but for the root itself.
 */
export function resolve(...parts: string[]): string {
  let resolved = "";
  let absolute = false;
  for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
    const part = i >= 0 ? parts[i] : Deno.cwd();
    if (part === "") continue;
    resolved = `${part}/${resolved}`;
    absolute = part.startsWith("/");
  }
  const normalized = normalizeSegments(resolved, !absolute);
  return absolute ? `/${normalized}` : normalized === "" ? "." : normalized;
}

/**
 * The path from `from` to `to` (both {@linkcode resolve}d first): `""`
 * when they are the same, `..` segments up to their common directory, then
 * down to `to`.
 */
export function relative(from: string, to: string): string {
  if (from === to) return "";
  const fromParts = resolve(from).split("/").filter((part) => part !== "");
  const toParts = resolve(to).split("/").filter((part) => part !== "");
  let common = 0;
  while (
    common < fromParts.length && common < toParts.length &&
    fromParts[common] === toParts[common]
  ) common++;
  return [
    ...fromParts.slice(common).map(() => ".."),
    ...toParts.slice(common),
  ].join("/");
}

/**
 * The directory part of `path`: what comes before the slash before its
 * last segment, trailing slashes ignored; `"/"` for the root and what is
 * directly in it, `"."` for a bare name. As node:path, of a run of slashes
 * before the last segment only the last is dropped (`/a//b` gives `/a/`),
 * and `//a` gives `//`.
 */
export function dirname(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  // The slash before the last segment: the first one met, from the end,
  // after a character that is not one.
  let end = -1;
  let inSlashes = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] !== "/") inSlashes = false;
    else if (!inSlashes) {
      end = i;
      break;
    }
  }
  if (end === -1) return rooted ? "/" : ".";
  if (rooted && end === 1) return "//";
  return path.slice(0, end);
}

/**
 * The last segment of `path`, trailing slashes ignored (`""` for the
 * root), without `suffix` when it ends with it and is not all of it.
 */
export function basename(path: string, suffix?: string): string {
  const trimmed = trimTrailingSlashes(path);
  const base = trimmed === "/"
    ? ""
    : trimmed.slice(trimmed.lastIndexOf("/") + 1);
  if (
    suffix !== undefined && suffix !== base && base.endsWith(suffix)
  ) return base.slice(0, base.length - suffix.length);
  return base;
}

/**
 * The extension of `path`'s last segment, from its last `.` (`".ts"`);
 * `""` when it has none, or its only `.` starts it (`.bashrc`), or it is
 * `..`.
 */
export function extname(path: string): string {
  const base = basename(path);
  const dot = base.lastIndexOf(".");
  // `.bashrc` and `..` have none; `a.` has `.`.
  return dot <= 0 || base === ".." ? "" : base.slice(dot);
}

/** `path` without its trailing slashes, `"/"` if nothing else is left of an absolute one. */
function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  return path.slice(0, end);
}

/**
 * The segments of `path` joined by single slashes, `.` dropped and `..`
 * taking the segment before it away; with `keepLeadingUp`, `..` segments
 * that have nothing before them stay (a relative path), else they go (the
 * root's parent is the root). No leading or trailing slash.
 */
function normalizeSegments(path: string, keepLeadingUp: boolean): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (keepLeadingUp) out.push("..");
    } else out.push(segment);
  }
  return out.join("/");
}
