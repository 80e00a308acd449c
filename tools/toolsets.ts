/**
 * The toolsets: which tools each `--toolset` serves, and how their modules
 * load (DESIGN.md "A tool is a module").
 *
 * This manifest is read before `system/init` is written, so it names tools
 * without importing them. Modules load through literal `import()`s: Deno
 * puts them in the module graph ahead of time, which lets a sandbox worker
 * with no read access to wave's own source load them, and `deno compile`
 * embed them. A test checks that every entry matches its module.
 *
 * @module
 */

import type { Mode } from "../session/config.ts";
import type { ToolDefinition } from "../session/tool.ts";

/** One tool of a toolset: its name, its module file (a key of {@linkcode TOOL_MODULES}), and the narrowest mode that binds it. */
export interface ToolEntry {
  readonly name: string;
  readonly module: string;
  readonly mode: Mode;
}

type ToolModule = { default: ToolDefinition };

/** Every built-in tool module, by file name. */
export const TOOL_MODULES: Readonly<
  Record<string, () => Promise<ToolModule>>
> = {
  "wave/read.ts": () => import("./wave/read.ts"),
  "wave/write.ts": () => import("./wave/write.ts"),
  "wave/edit.ts": () => import("./wave/edit.ts"),
  "wave/glob.ts": () => import("./wave/glob.ts"),
  "wave/grep.ts": () => import("./wave/grep.ts"),
  "wave/bash.ts": () => import("./wave/bash.ts"),
  "wave/task_create.ts": () => import("./wave/task_create.ts"),
  "wave/task_get.ts": () => import("./wave/task_get.ts"),
  "wave/task_update.ts": () => import("./wave/task_update.ts"),
  "wave/task_list.ts": () => import("./wave/task_list.ts"),
  "sata/read.ts": () => import("./sata/read.ts"),
  "sata/write.ts": () => import("./sata/write.ts"),
  "sata/edit.ts": () => import("./sata/edit.ts"),
  "sata/list.ts": () => import("./sata/list.ts"),
  "sata/grep.ts": () => import("./sata/grep.ts"),
  "sata/find.ts": () => import("./sata/find.ts"),
  "sata/shell.ts": () => import("./sata/shell.ts"),
  "sata/list_plans.ts": () => import("./sata/list_plans.ts"),
  "sata/read_plan.ts": () => import("./sata/read_plan.ts"),
  "sata/write_plan.ts": () => import("./sata/write_plan.ts"),
  "devflow/read_file.ts": () => import("./devflow/read_file.ts"),
  "devflow/write_file.ts": () => import("./devflow/write_file.ts"),
  "devflow/list_directory.ts": () => import("./devflow/list_directory.ts"),
  "devflow/run_command.ts": () => import("./devflow/run_command.ts"),
  "devflow/search_in_file.ts": () => import("./devflow/search_in_file.ts"),
  "devflow/patch_file.ts": () => import("./devflow/patch_file.ts"),
  "devflow/file_info.ts": () => import("./devflow/file_info.ts"),
  "devflow/append_file.ts": () => import("./devflow/append_file.ts"),
  "devflow/search_files.ts": () => import("./devflow/search_files.ts"),
  "devflow/diff_file.ts": () => import("./devflow/diff_file.ts"),
  "devflow/restore_file.ts": () => import("./devflow/restore_file.ts"),
};

/** Every toolset by name. */
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
};

/** The toolset names, for `--toolset` and `--help`. */
export const TOOLSET_NAMES: readonly string[] = Object.keys(TOOLSETS);

const BUILTIN = "builtin:";

/** The reference a worker loads a manifest entry by. */
export function builtinRef(entry: ToolEntry): string {
  return BUILTIN + entry.module;
}

/**
 * Loads a tool module by reference: `builtin:<file>` for wave's own tools,
 * or a `file:` URL for an extra module (`--tool-module`).
 */
export async function loadTool(ref: string): Promise<ToolDefinition> {
  let module: ToolModule;
  if (ref.startsWith(BUILTIN)) {
    const load = TOOL_MODULES[ref.slice(BUILTIN.length)];
    if (!load) throw new Error(`no built-in tool module ${ref}`);
    module = await load();
  } else {
    module = await import(ref);
  }
  const def = module.default;
  if (!def || typeof def.name !== "string" || typeof def.run !== "function") {
    throw new Error(`${ref} does not export a tool definition`);
  }
  return def;
}
