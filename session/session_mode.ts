/**
 * The session's permission mode: `--mode` at start, then whatever
 * `set_permission_mode` last set. Every part of the session reads the one
 * value, so a change applies from the next call on, everywhere.
 *
 * @module
 */

import type { Mode } from "../tools/kernel/modes.ts";

/** The mode a session is in now. */
export class SessionMode {
  /** The mode that binds tools now. */
  current: Mode;

  /** Starts in `initial`. */
  constructor(initial: Mode) {
    this.current = initial;
  }
}
