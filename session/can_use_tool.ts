/**
 * The stream-json front's way to ask for an approval (docs/protocol.md
 * "Approvals"): a `can_use_tool` control request, answered by the
 * parent's `control_response`.
 *
 * @module
 */

import type {
  ApprovalDecision,
  ApprovalParent,
  ApprovalRequest,
} from "./approvals.ts";
import type { CanUseTool } from "./outbound.ts";
import type { ParentAnswer } from "./inbound.ts";
import type { PermissionUpdate } from "./permissions.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sends a `can_use_tool` control request to the parent. */
export type SendRequest = (requestId: string, request: CanUseTool) => void;

interface Pending {
  toolName: string;
  resolve(decision: ApprovalDecision): void;
}

/** Asks with `can_use_tool`; {@linkcode answer} takes the replies. */
export class CanUseToolParent implements ApprovalParent {
  #send: SendRequest;
  #cancel: (requestId: string) => void;
  #pending = new Map<string, Pending>();

  /**
   * Sends each question through `send`, and through `cancel` the id of one
   * wave stopped waiting for (`control_cancel_request`), so the parent can
   * take its prompt down.
   */
  constructor(
    send: SendRequest,
    cancel: (requestId: string) => void = () => {},
  ) {
    this.#send = send;
    this.#cancel = cancel;
  }

  /**
   * Sends `can_use_tool` with a request id no one can guess
   * (`wave-approval-<random UUID>`) and resolves with the parent's answer.
   * Once `signal` aborts, the id is forgotten: a late answer names no
   * request.
   */
  ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    // Unguessable: an answer must name a request the parent was sent, so
    // whatever reaches wave's stdin without reading its stdout (a forged
    // line) cannot approve anything.
    const requestId = `wave-approval-${crypto.randomUUID()}`;
    return new Promise((resolve) => {
      this.#pending.set(requestId, { toolName: req.toolName, resolve });
      signal.addEventListener(
        "abort",
        () => {
          if (this.#pending.delete(requestId)) this.#cancel(requestId);
        },
        { once: true },
      );
      this.#send(requestId, {
        subtype: "can_use_tool",
        tool_name: req.toolName,
        input: req.input,
        tool_use_id: req.toolUseId,
        reason: req.reason,
        decision_reason: req.reason,
        ...(req.blockedPath ? { blocked_path: req.blockedPath } : {}),
        title: `wave wants to use ${req.toolName}`,
        description: req.reason,
        permission_suggestions: req.suggestions ?? [],
      });
    });
  }

  /**
   * Takes the parent's `control_response` for one of our requests. Returns
   * false when no request with that id is waiting.
   */
  answer(
    requestId: string | number,
    response: ParentAnswer,
  ): boolean {
    const id = String(requestId);
    const pending = this.#pending.get(id);
    if (!pending) return false;
    this.#pending.delete(id);
    if (response.subtype === "error") {
      pending.resolve({
        allowed: false,
        message:
          `${pending.toolName} was denied: the parent answered the approval request with an error${
            response.error ? `: ${response.error}` : ""
          }`,
      });
      return true;
    }
    const body = response.response ?? {};
    if (body.behavior === "allow") {
      const { updatedInput, updatedPermissions } = body;
      pending.resolve({
        allowed: true,
        ...(isRecord(updatedInput) ? { updatedInput } : {}),
        ...(Array.isArray(updatedPermissions)
          ? {
            updatedPermissions: updatedPermissions.filter((u) =>
              isRecord(u) && typeof u.type === "string"
            ) as PermissionUpdate[],
          }
          : {}),
      });
    } else {
      const why = typeof body.message === "string" && body.message
        ? body.message
        : "no reason given";
      pending.resolve({
        allowed: false,
        message: `${pending.toolName} was denied by the user: ${why}`,
      });
    }
    return true;
  }
}
