/**
 * The approval gate (docs/protocol.md "Approvals"): decides by policy, or
 * asks the parent through the {@linkcode ApprovalParent} its front gives it
 * (stream-json's `can_use_tool`, MCP's elicitation, ACP's permission
 * request), and turns every way an answer can fail to come (timeout,
 * interrupt, EOF, a parent that cannot ask) into a denial.
 *
 * @module
 */

import type { ApprovalPolicy } from "./config.ts";
import type { PermissionUpdate } from "./permissions.ts";

/** What a call needs approved. */
export interface ApprovalRequest {
  toolName: string;
  input: unknown;
  toolUseId: string;
  /**
   * The session of the call: a front that serves several (ACP) tells
   * their calls apart by it, a model's tool_use ids being its own.
   */
  sessionId: string;
  /** Why, for the parent and for the denial message: "path outside the workspace: /etc/hosts". */
  reason: string;
  /**
   * Ask the parent even under `--approvals allow` (a sensitive file of a
   * tool that declares `sensitive: "always_ask"`); `deny` still refuses.
   */
  alwaysAsk?: boolean;
  /**
   * The call names a sensitive file (`.env`, a key, wave's own state): a
   * parent's "allow always" for the tool should not cover this one.
   */
  sensitive?: boolean;
  /** The policy for this request instead of the gate's (a permission mode's: `dontAsk` refuses, `bypassPermissions` allows). */
  policy?: ApprovalPolicy;
  /** The path outside the workspace the call names, when that is why it is asked. */
  blockedPath?: string;
  /** Rules the parent may add so that calls like this one run without asking. */
  suggestions?: PermissionUpdate[];
}

/** The decision. A denial says why, in words a model can act on. */
export type ApprovalDecision =
  | {
    allowed: true;
    /** The input the parent wants the call run with (validated again before it runs). */
    updatedInput?: Record<string, unknown>;
    /** Permission changes for the rest of the session. */
    updatedPermissions?: PermissionUpdate[];
  }
  | { allowed: false; message: string };

/**
 * How a front asks its parent for an approval. The gate owns the policy,
 * the timeout, interrupts and shutdown; a parent only puts the question
 * and reads the answer.
 */
export interface ApprovalParent {
  /**
   * Why this parent cannot be asked about `request` (an MCP client without
   * elicitation), or null when it can. The request is then denied with
   * this reason.
   */
  unavailable?(request: ApprovalRequest): string | null;
  /**
   * Asks the parent about `request`. `signal` aborts when the gate stops
   * waiting (timeout, interrupt, shutdown): the parent drops the question
   * then, and what it resolves with after that is ignored. A rejection is
   * a denial that quotes it.
   */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/** One session's approvals. */
export class ApprovalGate {
  #policy: ApprovalPolicy;
  #timeoutMs: number;
  #parent: ApprovalParent;
  #pending = new Set<(reason: string) => void>();
  #closedReason: string | null = null;

  /** A gate that decides by `policy` and asks `parent` under `parent` (waiting at most `timeoutMs`). */
  constructor(
    policy: ApprovalPolicy,
    timeoutMs: number,
    parent: ApprovalParent,
  ) {
    this.#policy = policy;
    this.#timeoutMs = timeoutMs;
    this.#parent = parent;
  }

  /**
   * Decides one request. Under `parent` (and under `allow` when the
   * request is `alwaysAsk`) it asks the parent and waits for the answer,
   * at most the approval timeout, and no longer than `signal` stays
   * unaborted. Never rejects.
   */
  request(
    req: ApprovalRequest,
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    const policy = req.policy ?? this.#policy;
    if (policy === "allow" && !req.alwaysAsk) {
      return Promise.resolve({ allowed: true });
    }
    const denied = (why: string): Promise<ApprovalDecision> =>
      Promise.resolve({
        allowed: false,
        message: `${req.toolName} was denied: ${req.reason}. ${why}`,
      });
    if (policy === "deny") {
      return denied(
        req.policy
          ? "The session's permission mode refuses calls that need approval; work inside the workspace, or ask the user to allow it."
          : "wave runs with --approvals deny, so calls that need approval are refused; work inside the workspace, or ask the user to allow it.",
      );
    }
    if (this.#closedReason !== null) return denied(this.#closedReason);
    const unavailable = this.#parent.unavailable?.(req) ?? null;
    if (unavailable !== null) return denied(unavailable);
    if (signal.aborted) {
      return Promise.resolve({
        allowed: false,
        message: `${req.toolName} was denied: the call was interrupted.`,
      });
    }
    const asking = new AbortController();
    return new Promise<ApprovalDecision>((resolve) => {
      let done = false;
      const finish = (decision: ApprovalDecision) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(onClose);
        asking.abort();
        resolve(decision);
      };
      const onAbort = () =>
        finish({
          allowed: false,
          message:
            `${req.toolName} was denied: the call was interrupted while waiting for approval (${req.reason}).`,
        });
      const onClose = (reason: string) =>
        finish({
          allowed: false,
          message: `${req.toolName} was denied: ${reason}`,
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
      this.#pending.add(onClose);
      this.#parent.ask(req, asking.signal).then(finish, (error) =>
        finish({
          allowed: false,
          message: `${req.toolName} was denied: the approval request failed: ${
            (error as Error)?.message ?? String(error)
          }`,
        }));
    });
  }

  /** The policy of requests that name none (`--approvals`). */
  get policy(): ApprovalPolicy {
    return this.#policy;
  }

  /** Denies every waiting request and every later one (stdin closed, shutting down). */
  close(reason: string): void {
    this.#closedReason = reason;
    for (const deny of [...this.#pending]) deny(reason);
  }
}
