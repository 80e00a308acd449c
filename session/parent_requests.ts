/**
 * Requests wave sends its parent besides approvals (docs/protocol.md
 * "open_file"): a `control_request` with an id no one can guess, answered
 * by the parent's `control_response`, or given up on after a timeout, an
 * interrupt or the end of stdin.
 *
 * @module
 */

import type { ParentAnswer } from "./inbound.ts";

/**
 * A request wave sends its parent besides approvals: `open_file`;
 * `hook_callback`, a call of one of the parent's hooks; and `mcp_message`,
 * a JSON-RPC message for an MCP server the parent hosts (the Claude Agent
 * SDK's in-process servers), whose answer carries the server's reply as
 * `mcp_response`.
 */
export type ParentRequest =
  | { subtype: "open_file"; path: string }
  | {
    subtype: "hook_callback";
    callback_id: string;
    input: { hook_event_name: string; [field: string]: unknown };
    tool_use_id?: string;
  }
  | { subtype: "mcp_message"; server_name: string; message: unknown };

/** The longest delay a timer keeps (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sends a control request to the parent. */
export type SendParentRequest = (
  requestId: string,
  request: ParentRequest,
) => void;

/** A request that failed: the parent's error, no answer in time, or an interrupt. */
export class ParentRequestError extends Error {
  /** For the tool's `structured`. */
  readonly structured: { type: string };
  constructor(message: string, type: string) {
    super(message);
    this.structured = { type };
  }
}

/** One session's outstanding requests to its parent. */
export class ParentRequests {
  #send: SendParentRequest;
  #pending = new Map<
    string,
    (answer: { error?: string; response?: unknown }) => void
  >();
  #closed: string | null = null;

  #cancel: (requestId: string) => void;

  /** Sends requests through `send`, and the id of one given up on through `cancel` (`control_cancel_request`). */
  constructor(
    send: SendParentRequest,
    cancel: (requestId: string) => void = () => {},
  ) {
    this.#send = send;
    this.#cancel = cancel;
  }

  /**
   * Sends `request` and resolves with the parent's `response` body;
   * rejects with a {@linkcode ParentRequestError} when the parent answers
   * with an error, does not answer within `timeoutMs`, or `signal` aborts.
   */
  request(
    request: ParentRequest,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<unknown> {
    const what = request.subtype;
    if (this.#closed !== null) {
      return Promise.reject(
        new ParentRequestError(
          `the parent cannot be asked: ${this.#closed}`,
          "closed",
        ),
      );
    }
    const requestId = `wave-${what}-${crypto.randomUUID()}`;
    return new Promise((resolve, reject) => {
      const finish = (answer: { error?: string; response?: unknown }) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(requestId);
        if (answer.error !== undefined) {
          reject(new ParentRequestError(answer.error, "parent_error"));
        } else resolve(answer.response);
      };
      const onAbort = () => {
        clearTimeout(timer);
        this.#pending.delete(requestId);
        this.#cancel(requestId);
        reject(
          new ParentRequestError(
            `the ${what} request was interrupted`,
            "interrupted",
          ),
        );
      };
      // A timer longer than 2^31 - 1 ms would fire at once: a hook given
      // a long timeout would be skipped as failed, never asked.
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(requestId);
        this.#cancel(requestId);
        reject(
          new ParentRequestError(
            `the parent did not answer the ${what} request within ${
              Math.round(timeoutMs / 1000)
            } s`,
            "timeout",
          ),
        );
      }, Math.min(timeoutMs, MAX_TIMER_MS));
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(requestId, finish);
      this.#send(requestId, request);
    });
  }

  /** Takes the parent's answer to one of these requests; false when none with that id waits. */
  answer(
    requestId: string | number,
    response: ParentAnswer,
  ): boolean {
    const pending = this.#pending.get(String(requestId));
    if (!pending) return false;
    if (response.subtype === "error") {
      pending({ error: response.error || "the parent answered with an error" });
    } else pending({ response: response.response ?? {} });
    return true;
  }

  /** Fails every waiting request and every later one (stdin closed, shutting down). */
  close(reason: string): void {
    this.#closed = reason;
    for (const pending of [...this.#pending.values()]) {
      pending({ error: `the parent cannot answer: ${reason}` });
    }
  }
}
