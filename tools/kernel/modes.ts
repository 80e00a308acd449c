/**
 * Modes: which tools a session binds (docs/design.md "Modes"). `ask` binds the
 * tools that only read, `plan` adds those that write wave's own state, and
 * `agent` binds everything.
 *
 * Imports nothing: the binary reads it before `system/init`.
 *
 * @module
 */

/** Which tools are bound. */
export type Mode = "ask" | "plan" | "agent";

/** The modes, from the narrowest to the widest. */
export const MODES: readonly Mode[] = ["ask", "plan", "agent"];

/** Whether a tool whose narrowest mode is `toolMode` is bound in `mode`. */
export function boundIn(toolMode: Mode, mode: Mode): boolean {
  return MODES.indexOf(toolMode) <= MODES.indexOf(mode);
}
