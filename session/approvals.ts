/**
 * The approval gate (docs/protocol.md "Approvals"): asks the parent with a
 * `can_use_tool` control request, or decides by policy, and turns every
 * way an answer can fail to come (timeout, interrupt, EOF) into a denial.
 *
 * @module
 */

import type { ApprovalPolicy } from "./config.ts";
import type { CanUseTool } from "./outbound.ts";

/** What a call needs approved. */
export interface ApprovalRequest {
  toolName: string;
  input: unknown;
  toolUseId: string;
  /** Why, for the parent and for the denial message: "path outside the workspace: /etc/hosts". */
  reason: string;
  /**
   * Ask the parent even under `--approvals allow` (a sensitive file of a
   * tool that declares `sensitive: "always_ask"`); `deny` still refuses.
   */
  alwaysAsk?: boolean;
}

/** The decision. A denial says why, in words a model can act on. */
export type ApprovalDecision =
  | { allowed: true }
  | { allowed: false; message: string };

interface Pending {
  toolName: string;
  resolve(decision: ApprovalDecision): void;
}

/** Sends a `can_use_tool` control request to the parent. */
export type SendRequest = (requestId: string, request: CanUseTool) => void;

/** One session's approvals. */
export class ApprovalGate {
  #policy: ApprovalPolicy;
  #timeoutMs: number;
  #send: SendRequest;
  #pending = new Map<string, Pending>();
  #closedReason: string | null = null;

  constructor(policy: ApprovalPolicy, timeoutMs: number, send: SendRequest) {
    this.#policy = policy;
    this.#timeoutMs = timeoutMs;
    this.#send = send;
  }

  /**
   * Decides one request. Under `parent` (and under `allow` when the
   * request is `alwaysAsk`) it sends `can_use_tool`, with a request id no
   * one can guess (`wave-approval-<random UUID>`), and waits for the
   * answer, at most the approval timeout, and no longer than `signal`
   * stays unaborted.
   */
  request(
    req: ApprovalRequest,
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    if (this.#policy === "allow" && !req.alwaysAsk) {
      return Promise.resolve({ allowed: true });
    }
    if (this.#policy === "deny") {
      return Promise.resolve({
        allowed: false,
        message:
          `${req.toolName} was denied: ${req.reason}. wave runs with --approvals deny, so calls that need approval are refused; work inside the workspace, or ask the user to allow it.`,
      });
    }
    if (this.#closedReason !== null) {
      return Promise.resolve({
        allowed: false,
        message:
          `${req.toolName} was denied: ${req.reason}. ${this.#closedReason}`,
      });
    }
    if (signal.aborted) {
      return Promise.resolve({
        allowed: false,
        message: `${req.toolName} was denied: the call was interrupted.`,
      });
    }
    // Unguessable: an answer must name a request the parent was sent, so
    // whatever reaches wave's stdin without reading its stdout (a forged
    // line) cannot approve anything.
    const requestId = `wave-approval-${crypto.randomUUID()}`;
    return new Promise<ApprovalDecision>((resolve) => {
      const finish = (decision: ApprovalDecision) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(requestId);
        resolve(decision);
      };
      const onAbort = () =>
        finish({
          allowed: false,
          message:
            `${req.toolName} was denied: the call was interrupted while waiting for approval (${req.reason}).`,
        });
      const timer = setTimeout(
        () =>
          finish({
            allowed: false,
            message:
              `${req.toolName} was denied: the parent did not answer the approval request within ${
                Math.round(this.#timeoutMs / 1000)
              } s (${req.reason}).`,
          }),
        this.#timeoutMs,
      );
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(requestId, { toolName: req.toolName, resolve: finish });
      this.#send(requestId, {
        subtype: "can_use_tool",
        tool_name: req.toolName,
        input: req.input,
        tool_use_id: req.toolUseId,
        reason: req.reason,
      });
    });
  }

  /**
   * Takes the parent's `control_response` for one of our requests. Returns
   * false when no request with that id is waiting.
   */
  answer(
    requestId: string | number,
    response:
      | { subtype: "success"; response?: Record<string, unknown> }
      | { subtype: "error"; error?: string },
  ): boolean {
    const pending = this.#pending.get(String(requestId));
    if (!pending) return false;
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
    if (body.behavior === "allow") pending.resolve({ allowed: true });
    else {
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

  /** Denies every waiting request and every later one (stdin closed, shutting down). */
  close(reason: string): void {
    this.#closedReason = reason;
    for (const pending of [...this.#pending.values()]) {
      pending.resolve({
        allowed: false,
        message: `${pending.toolName} was denied: ${reason}`,
      });
    }
  }
}
