/**
 * wave as a library: embed the runtime in another Deno program, or write
 * tools for it.
 *
 * ```ts
 * import { defineTool } from "./mod.ts";
 * import { z } from "zod";
 *
 * export default defineTool({
 *   name: "Hello",
 *   description: "Says hello.",
 *   input: z.object({ name: z.string() }),
 *   scopes: { read: true },
 *   run: (input) => ({ content: `hello, ${input.name}` }),
 * });
 * ```
 *
 * @module
 */

export { type Config, type Mode, parseFlags } from "./session/config.ts";
export { serve, type ServeOptions, type SessionIO } from "./session/server.ts";
export {
  type ContentBlock,
  defineTool,
  errorResult,
  type PathUse,
  type Scopes,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolResult,
} from "./tools/kernel/tool.ts";
export {
  isInside,
  type ResolvedPath,
  resolveInWorkspace,
} from "./tools/kernel/workspace.ts";
export { atomicWrite } from "./tools/kernel/atomic_write.ts";
export { TOOLSET_NAMES, TOOLSETS } from "./tools/toolsets.ts";
export { VERSION } from "./session/version.ts";
