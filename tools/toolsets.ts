/**
 * The toolsets: which tools each `--toolset` serves, and how their modules
 * load (docs/design.md "A tool is a module").
 *
 * This manifest is read before `system/init` is written, so it names tools
 * without importing them, and nothing it imports reaches a tool module:
 * Deno prepares every module a program can reach by a literal `import()`
 * at start, and the tools' graph (zod, the diff and file-type libraries)
 * would double start-up. The loaders are in `loaders.ts`. A test checks
 * that every entry matches its module.
 *
 * @module
 */

import type { Mode } from "./kernel/modes.ts";

/** One tool of a toolset: its name, its module file (a key of `TOOL_MODULES` in loaders.ts), and the narrowest mode that binds it. */
export interface ToolEntry {
  /** The tool's name, as its module defines it (a test checks they agree). */
  readonly name: string;
  /** Its module file under `tools/`. */
  readonly module: string;
  /** The narrowest mode that binds it, as its module derives it. */
  readonly mode: Mode;
}

/**
 * Every toolset by name, each in the order its tools are offered.
 *
 * @example Serve the `sata` toolset's tools
 * ```ts
 * import { builtinRef, TOOLSETS } from "@wave/wave";
 *
 * const modules = TOOLSETS.sata.map(builtinRef);
 * console.assert(modules[0] === "builtin:sata/read.ts");
 * ```
 */
export const TOOLSETS: Readonly<Record<string, readonly ToolEntry[]>> = {
  wave: [
    { name: "Read", module: "wave/read.ts", mode: "ask" },
    { name: "Write", module: "wave/write.ts", mode: "agent" },
    { name: "Edit", module: "wave/edit.ts", mode: "agent" },
    { name: "Glob", module: "wave/glob.ts", mode: "ask" },
    { name: "Grep", module: "wave/grep.ts", mode: "ask" },
    { name: "Bash", module: "wave/bash.ts", mode: "agent" },
    { name: "TaskCreate", module: "wave/task_create.ts", mode: "plan" },
    { name: "TaskGet", module: "wave/task_get.ts", mode: "ask" },
    { name: "TaskUpdate", module: "wave/task_update.ts", mode: "plan" },
    { name: "TaskList", module: "wave/task_list.ts", mode: "ask" },
  ],
  sata: [
    { name: "read", module: "sata/read.ts", mode: "ask" },
    { name: "write", module: "sata/write.ts", mode: "agent" },
    { name: "edit", module: "sata/edit.ts", mode: "agent" },
    { name: "list", module: "sata/list.ts", mode: "ask" },
    { name: "grep", module: "sata/grep.ts", mode: "ask" },
    { name: "find", module: "sata/find.ts", mode: "ask" },
    { name: "shell", module: "sata/shell.ts", mode: "agent" },
    { name: "list_plans", module: "sata/list_plans.ts", mode: "ask" },
    { name: "read_plan", module: "sata/read_plan.ts", mode: "ask" },
    { name: "write_plan", module: "sata/write_plan.ts", mode: "plan" },
  ],
  devflow: [
    { name: "read_file", module: "devflow/read_file.ts", mode: "ask" },
    { name: "write_file", module: "devflow/write_file.ts", mode: "agent" },
    {
      name: "list_directory",
      module: "devflow/list_directory.ts",
      mode: "ask",
    },
    { name: "run_command", module: "devflow/run_command.ts", mode: "agent" },
    {
      name: "search_in_file",
      module: "devflow/search_in_file.ts",
      mode: "ask",
    },
    { name: "patch_file", module: "devflow/patch_file.ts", mode: "agent" },
    { name: "file_info", module: "devflow/file_info.ts", mode: "ask" },
    { name: "append_file", module: "devflow/append_file.ts", mode: "agent" },
    { name: "search_files", module: "devflow/search_files.ts", mode: "ask" },
    { name: "diff_file", module: "devflow/diff_file.ts", mode: "ask" },
    { name: "restore_file", module: "devflow/restore_file.ts", mode: "agent" },
  ],
  files: [
    { name: "find_files", module: "files/find_files.ts", mode: "ask" },
    { name: "read_files", module: "files/read_files.ts", mode: "ask" },
    { name: "edit_file", module: "files/edit_file.ts", mode: "agent" },
    { name: "file_history", module: "files/file_history.ts", mode: "ask" },
    { name: "open_file", module: "files/open_file.ts", mode: "ask" },
  ],
};

/**
 * The toolset names, for `--toolset` and `--help`.
 *
 * @example
 * ```ts
 * import { TOOLSET_NAMES } from "@wave/wave";
 * console.assert(TOOLSET_NAMES.includes("wave"));
 * ```
 */
export const TOOLSET_NAMES: readonly string[] = Object.keys(TOOLSETS);

/** The prefix of a built-in tool module's reference. */
export const BUILTIN = "builtin:";

/**
 * The reference a worker loads a manifest entry by: what
 * `ServeOptions.modules` lists for a built-in tool.
 *
 * @example
 * ```ts
 * import { builtinRef, TOOLSETS } from "@wave/wave";
 * console.assert(builtinRef(TOOLSETS.wave[0]) === "builtin:wave/read.ts");
 * ```
 */
export function builtinRef(entry: ToolEntry): string {
  return BUILTIN + entry.module;
}
