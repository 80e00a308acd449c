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
 * Imports nothing: the flags read it before `system/init`.
 *
 * @module
 */

import type { Mode } from "../tools/kernel/modes.ts";

/**
 * Claude Code's permission modes (`--permission-mode`, `set_permission_mode`).
 *
 * @example
 * ```ts
 * import { PERMISSION_MODES } from "@wave/wave";
 * console.assert(PERMISSION_MODES.includes("acceptEdits"));
 * ```
 */
export const PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
  "auto",
] as const;

/** One of {@linkcode PERMISSION_MODES}. */
export type PermissionMode = typeof PERMISSION_MODES[number];

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
  switch (mode) {
    case "acceptEdits":
      return { mode: "agent", askBefore: "commands", decide: "ask" };
    case "plan":
      return { mode: "plan", askBefore: "nothing", decide: "ask" };
    case "bypassPermissions":
      return { mode: "agent", askBefore: "nothing", decide: "allow" };
    case "dontAsk":
      return { mode: "agent", askBefore: "changes", decide: "refuse" };
    default:
      return { mode: "agent", askBefore: "changes", decide: "ask" };
  }
}

/** Whether `text` names one of Claude Code's permission modes. */
export function isPermissionMode(text: string): text is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(text);
}

/**
 * The Claude Code permission mode a wave mode is reported as (in
 * `system/init`'s `permissionMode` when none was given): `plan` is plan,
 * and the others are `default`.
 */
export function permissionModeOf(mode: Mode): PermissionMode {
  return mode === "plan" ? "plan" : "default";
}
