/**
 * Loading tool modules. Built-in modules load through literal `import()`s:
 * Deno puts them in the module graph ahead of time, which lets a sandbox
 * worker with no read access to wave's own source load them, and lets
 * `deno compile` embed them. Only code that runs after `system/init` (the
 * registry, the worker) imports this module.
 *
 * @module
 */

import type { ToolDefinition } from "./kernel/tool.ts";
import { BUILTIN } from "./toolsets.ts";

type ToolModule = { default: ToolDefinition };

/** Every built-in tool module, by file name (the `module` of a toolset entry). */
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
  "files/find_files.ts": () => import("./files/find_files.ts"),
  "files/read_files.ts": () => import("./files/read_files.ts"),
  "files/edit_file.ts": () => import("./files/edit_file.ts"),
  "files/file_history.ts": () => import("./files/file_history.ts"),
  "files/open_file.ts": () => import("./files/open_file.ts"),
};

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
  if (
    !def || typeof def.name !== "string" || typeof def.run !== "function" ||
    // The session validates input and makes JSON Schema with zod.
    typeof (def.input as { safeParse?: unknown })?.safeParse !== "function"
  ) {
    throw new Error(
      `${ref} does not export a tool definition (defineTool with a zod input schema)`,
    );
  }
  return def;
}
