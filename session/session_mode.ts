/**
 * The session's permission mode: `--mode` (or Claude Code's
 * `--permission-mode`) at start, then whatever `set_permission_mode` last
 * set. Every part of the session reads the one value, so a change applies
 * from the next call on, everywhere.
 *
 * @module
 */

import type { Mode } from "../tools/kernel/modes.ts";
import {
  type PermissionMode,
  permissionModeOf,
  type PermissionSettings,
  permissionSettings,
} from "./permission_modes.ts";

/** The mode a session is in now. */
export class SessionMode {
  /** The mode that binds tools now. */
  current: Mode;
  /**
   * Claude Code's permission mode the session is in, or null when it was
   * never given one (then no call inside the workspace is asked about).
   */
  #permission: PermissionMode | null;

  /** Starts in `initial`, and in Claude Code's `permission` when given. */
  constructor(initial: Mode, permission: PermissionMode | null = null) {
    this.current = permission ? permissionSettings(permission).mode : initial;
    this.#permission = permission;
  }

  /** Claude Code's permission mode, when the session has one. */
  get permission(): PermissionMode | null {
    return this.#permission;
  }

  /** Claude Code's name of the mode the session is in now (`system/init`'s `permissionMode`). */
  get permissionName(): PermissionMode {
    return this.#permission ?? permissionModeOf(this.current);
  }

  /** What the current Claude Code permission mode asks and decides; wave's own modes ask nothing. */
  get settings(): PermissionSettings {
    return this.#permission
      ? permissionSettings(this.#permission)
      : { mode: this.current, askBefore: "nothing", decide: "ask" };
  }

  /** Switches to Claude Code's permission mode `mode` (and the wave mode it maps to). */
  setPermission(mode: PermissionMode): void {
    this.#permission = mode;
    this.current = permissionSettings(mode).mode;
  }
}
