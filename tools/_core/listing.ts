/**
 * Directory listings, for every dialect: one level or recursive, to a depth,
 * skipping noise directories on request, capped. Symlinked directories are
 * listed but never followed; a symlink that leads out of the workspace (and
 * of the listed directory) is shown as a file of size 0.
 *
 * @module
 */

import { join } from "../kernel/posix_path.ts";
import { isWriterName } from "../kernel/atomic_write.ts";
import { hiddenTest } from "../kernel/hidden.ts";
import type { ToolContext } from "../kernel/tool.ts";
import { displayPath, isInside, realPathOf } from "../kernel/workspace.ts";

/** Directories that are build output, dependencies or caches: rarely what a model is looking for. */
export const NOISE_DIRS: readonly string[] = [
  "node_modules",
  ".git",
  "dist",
  "build",
  "out",
  "target",
  ".venv",
  "venv",
  "__pycache__",
  ".mypy_cache",
  ".pytest_cache",
  ".tox",
  ".next",
  ".nuxt",
  ".cache",
  ".gradle",
  "coverage",
  ".turbo",
];

/** One entry. */
export interface ListEntry {
  /** Path for the model: relative to the workspace when inside it. */
  path: string;
  /** Path relative to the listed directory. */
  name: string;
  isDir: boolean;
  size: number;
  /** 0 for the listed directory's own entries. */
  depth: number;
}

/** How to list. */
export interface ListOptions {
  recursive?: boolean;
  /** Deepest level to descend to (0 = the directory's own entries); unlimited when absent. */
  maxDepth?: number;
  skipNoise?: boolean;
  maxEntries: number;
  /**
   * `"dirs-first"` (the default): directories, then files, each by name.
   * `"name"`: every entry by name alone (code-unit order).
   */
  order?: "dirs-first" | "name";
  /** Directory names listed but never descended into (`.git`). */
  opaque?: readonly string[];
  /**
   * Past `maxEntries`, keep walking to count what was left out (in
   * `total`) instead of stopping.
   */
  countAll?: boolean;
}

/**
 * Lists `dir` (a real path): directories first, then files, each by name
 * (or every entry by name, `order: "name"`); a directory's contents right
 * after it. Stops at `maxEntries`; with `countAll`, `total` counts every
 * entry the walk would have listed.
 */
export async function listDirectory(
  ctx: ToolContext,
  dir: string,
  options: ListOptions,
): Promise<{ entries: ListEntry[]; truncated: boolean; total: number }> {
  const entries: ListEntry[] = [];
  let truncated = false;
  let total = 0;
  const noise = new Set(options.skipNoise ? NOISE_DIRS : []);
  const opaque = new Set(options.opaque ?? []);
  const byName = options.order === "name";
  // What Read deny rules cover: not even its name is listed.
  const hidden = hiddenTest(ctx.hidden ?? [], ctx.workspace);

  const walk = async (
    current: string,
    prefix: string,
    depth: number,
  ): Promise<void> => {
    const children: {
      name: string;
      isDir: boolean;
      isSymlink: boolean;
      leadsOut: boolean;
    }[] = [];
    for (const e of Deno.readDirSync(current)) {
      // A write in flight, or a leftover of one killed: not the model's file.
      if (e.isFile && isWriterName(e.name)) continue;
      // wave's state (other sessions' transcripts) when the workspace holds it.
      const full = join(current, e.name);
      if (full === ctx.waveHome || hidden(full)) continue;
      let isDir = e.isDirectory;
      // A link whose target lies outside, or is what a deny rule covers, is
      // shown as a file of size 0: its size and kind belong to a place the
      // listing was not given.
      let leadsOut = false;
      if (e.isSymlink) {
        try {
          const real = realPathOf(join(current, e.name));
          leadsOut = (!isInside(ctx.workspace, real) && !isInside(dir, real)) ||
            hidden(real);
          if (!leadsOut) isDir = (await Deno.stat(real)).isDirectory;
        } catch {
          /* dangling, or outside the sandbox: a file as far as listing goes */
          leadsOut = true;
        }
      }
      children.push({ name: e.name, isDir, isSymlink: e.isSymlink, leadsOut });
    }
    children.sort((a, b) =>
      a.isDir === b.isDir || byName
        ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
        : a.isDir
        ? -1
        : 1
    );
    for (const child of children) {
      if (entries.length >= options.maxEntries && !options.countAll) {
        truncated = true;
        return;
      }
      if (child.isDir && noise.has(child.name)) continue;
      const full = join(current, child.name);
      const name = prefix ? `${prefix}/${child.name}` : child.name;
      total++;
      if (entries.length >= options.maxEntries) truncated = true;
      else {
        let size = 0;
        if (!child.isDir && !child.leadsOut) {
          try {
            size = (await Deno.stat(full)).size;
          } catch { /* unreadable: size 0 */ }
        }
        entries.push({
          path: displayPath(ctx.workspace, full),
          name,
          isDir: child.isDir,
          size,
          depth,
        });
      }
      const deeper = options.maxDepth === undefined || depth < options.maxDepth;
      if (
        options.recursive && child.isDir && !child.isSymlink && deeper &&
        !opaque.has(child.name)
      ) {
        await walk(full, name, depth + 1);
        if (truncated && !options.countAll) return;
      }
    }
  };
  await walk(dir, "", 0);
  return { entries, truncated, total };
}
