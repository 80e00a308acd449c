/**
 * Inbound dispatch: each input line to the part of the session that serves
 * it (control requests, approval answers, user turns), and bad input
 * answered as docs/protocol.md "Bad input" says: a `control_response`
 * error when the line had a `request_id`, else `system/error`.
 *
 * @module
 */

import type { CanUseToolParent } from "./can_use_tool.ts";
import type { ControlRequests } from "./control_requests.ts";
import { decodeLine, type InputError, isInputError } from "./inbound.ts";
import type { Block } from "./messages.ts";
import { controlError } from "./control_responses.ts";
import type { ProtocolWriter } from "./output.ts";
import type { UserTurns } from "./user_turns.ts";
import type { ParentRequests } from "./parent_requests.ts";

/** What {@linkcode InboundDispatch} hands lines to. */
export interface InboundDispatchDeps {
  writer: ProtocolWriter;
  control: ControlRequests;
  /** Where answers to `can_use_tool` go. */
  approvals: CanUseToolParent;
  turns: UserTurns;
  /** Requests wave sent the parent besides approvals (open_file). */
  parent: ParentRequests;
}

/** Dispatches one session's input lines. */
export class InboundDispatch {
  #deps: InboundDispatchDeps;

  /** Dispatches to what `deps` gives. */
  constructor(deps: InboundDispatchDeps) {
    this.#deps = deps;
  }

  /** Dispatches input line number `line`. Work it starts is tracked, not awaited. */
  line(text: string, line: number): void {
    const decoded = decodeLine(text, line);
    if (isInputError(decoded)) return this.inputError(decoded);
    switch (decoded.type) {
      case "control_request":
        return this.#deps.control.serve(decoded.request_id, decoded.request);
      case "control_response": {
        const { response } = decoded;
        if (
          !this.#deps.approvals.answer(response.request_id, response) &&
          !this.#deps.parent.answer(response.request_id, response)
        ) {
          this.inputError({
            code: "invalid_message",
            line,
            message: `control_response for unknown request_id ${
              JSON.stringify(response.request_id)
            }: no approval with that id is waiting`,
          });
        }
        return;
      }
      case "control_cancel_request":
        return this.#deps.control.cancel(decoded.request_id);
      case "user":
        return this.#deps.turns.start(
          decoded.message.content as string | Block[],
        );
    }
  }

  /** Answers bad input: a `control_response` error when it had a request id, else `system/error`. */
  inputError(error: InputError): void {
    const { writer } = this.#deps;
    if (error.requestId !== undefined) {
      return writer.send(controlError(error.requestId, error.message));
    }
    writer.send({
      type: "system",
      subtype: "error",
      error: { code: error.code, message: error.message, line: error.line },
    });
  }
}
