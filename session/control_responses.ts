/**
 * The two `control_response` shapes wave answers a control request with.
 * Apart from the outbound declarations (outbound.ts), whose zod schemas a
 * session never needs to build: only their types are used at run time.
 *
 * @module
 */

import type { ControlAnswer, Outbound } from "./outbound.ts";

/** The `control_response` that answers request `requestId` with `response`. */
export function controlSuccess(
  requestId: string | number,
  response: ControlAnswer,
): Outbound {
  return {
    type: "control_response",
    response: { subtype: "success", request_id: requestId, response },
  };
}

/** The `control_response` that refuses request `requestId`, saying why. */
export function controlError(
  requestId: string | number,
  error: string,
): Outbound {
  return {
    type: "control_response",
    response: { subtype: "error", request_id: requestId, error },
  };
}
