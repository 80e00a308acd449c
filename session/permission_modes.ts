/**
 * Claude Code's permission modes, mapped onto wave's two settings: the
 * mode (which tools are bound) and who decides the calls that need a
 * decision, plus one more thing Claude Code's modes set and wave's do not:
 * which calls inside the workspace are asked about before they run.
 *
 * | Claude Code         | wave mode | asked before running             | paths outside, sensitive files |
 * | ------------------- | --------- | -------------------------------- | ------------------------------ |
 * | `default`           | agent     | tools that change files or run commands | the parent               |
 * | `acceptEdits`       | agent     | tools that run commands          | the parent                     |
 * | `plan`              | plan      | nothing (nothing bound changes files) | the parent                |
 * | `bypassPermissions` | agent     | nothing                          | allowed                        |
 * | `dontAsk`           | agent     | refused instead of asked         | refused                        |
 * | `auto`              | agent     | as `default` (wave has no classifier) | the parent                |
 *
 * Its vocabulary (the modes' names, the wave mode each binds) is in
 * `flags.ts`, which runs before `system/init`; this module does not.
 *
 * @module
 */

import type { Mode } from "../tools/kernel/modes.ts";
import {
  PERMISSION_MODES,
  type PermissionMode,
  permissionModeOf,
  WAVE_MODE_OF,
} from "./flags.ts";

export { PERMISSION_MODES };
export type { PermissionMode };

/**
 * Which calls inside the workspace are put to the parent before they run:
 * `changes`: every tool that writes files or runs a program (an MCP tool
 * unless it says it only reads); `commands`: the tools that run programs;
 * `nothing`.
 */
export type AskBefore = "changes" | "commands" | "nothing";

/** What a Claude Code permission mode means in wave's words. */
export interface PermissionSettings {
  mode: Mode;
  askBefore: AskBefore;
  /** How a question is decided: asked, or refused without asking (`dontAsk`), or allowed (`bypassPermissions`). */
  decide: "ask" | "refuse" | "allow";
}

/** The settings of Claude Code's permission mode `mode` (the table above). */
export function permissionSettings(mode: PermissionMode): PermissionSettings {
  const bound = WAVE_MODE_OF[mode];
  switch (mode) {
    case "acceptEdits":
      return { mode: bound, askBefore: "commands", decide: "ask" };
    case "plan":
      return { mode: bound, askBefore: "nothing", decide: "ask" };
    case "bypassPermissions":
      return { mode: bound, askBefore: "nothing", decide: "allow" };
    case "dontAsk":
      return { mode: bound, askBefore: "changes", decide: "refuse" };
    default:
      return { mode: bound, askBefore: "changes", decide: "ask" };
  }
}

/** Whether `text` names one of Claude Code's permission modes. */
export function isPermissionMode(text: string): text is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(text);
}

export { permissionModeOf };
