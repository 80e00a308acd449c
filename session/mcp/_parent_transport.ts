/**
 * MCP's transport to a server the parent hosts in its own process (the
 * Claude Agent SDK's `type: "sdk"` servers), as Claude Code speaks it: each
 * message wave's client sends goes to the parent as a `control_request`
 * `{subtype: "mcp_message", server_name, message}`; the parent's
 * `control_response` to a request carries the server's reply as
 * `mcp_response`. What the server sends on its own comes in as the
 * parent's `control_request` `mcp_message` ({@linkcode ParentTransport.deliver}).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ParentRequests } from "../parent_requests.ts";

/** JSON-RPC's code for a failure inside the peer. */
const INTERNAL_ERROR = -32603;

/** How long the parent may take to answer one message (the client's own request timeout comes first). */
const ANSWER_TIMEOUT_MS = 24 * 3600 * 1000;

/** A transport to the server `server` the parent hosts, over `requests`. */
export class ParentTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #server: string;
  #requests: ParentRequests;
  #closing = new AbortController();

  /** A transport to the parent's server named `server`. */
  constructor(server: string, requests: ParentRequests) {
    this.#server = server;
    this.#requests = requests;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Sends `message` to the parent. A request's reply comes back through
   * `onmessage` when the parent answers; a parent's error or a reply that
   * is no JSON-RPC message becomes that request's JSON-RPC error, so the
   * client's request fails rather than waits.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closing.signal.aborted) {
      return Promise.reject(new Error("the transport is closed"));
    }
    const id = "method" in message && "id" in message ? message.id : undefined;
    const answer = this.#requests.request(
      { subtype: "mcp_message", server_name: this.#server, message },
      ANSWER_TIMEOUT_MS,
      this.#closing.signal,
    );
    answer.then((response) => {
      if (id === undefined) return; // a notification's or a reply's answer says nothing
      const reply = JSONRPCMessageSchema.safeParse(
        (response as { mcp_response?: unknown } | undefined)?.mcp_response,
      );
      if (!reply.success) {
        this.#fail(
          id,
          `the parent's answer to ${
            (message as { method: string }).method
          } carried no JSON-RPC reply (mcp_response)`,
        );
      } else this.onmessage?.(reply.data);
    }, (error: Error) => {
      if (id !== undefined && !this.#closing.signal.aborted) {
        this.#fail(id, error.message);
      }
    });
    return Promise.resolve();
  }

  /** Hands the client a message the server sent on its own (the parent's `mcp_message` request). */
  deliver(message: unknown): string | null {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) return "message is not a JSON-RPC message";
    this.onmessage?.(parsed.data);
    return null;
  }

  #fail(id: string | number, message: string): void {
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: { code: INTERNAL_ERROR, message },
    });
  }

  close(): Promise<void> {
    if (!this.#closing.signal.aborted) {
      this.#closing.abort();
      const onclose = this.onclose;
      this.onclose = undefined;
      onclose?.();
    }
    return Promise.resolve();
  }
}
