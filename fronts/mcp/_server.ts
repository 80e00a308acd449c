/**
 * The MCP front over the session core: each MCP session (the one on stdio,
 * or each streamable-HTTP client) is an SDK `Server` whose handlers only
 * translate. `tools/list` describes the bound tools, `tools/call` takes the
 * core's one call path, approvals go out as `elicitation/create`, command
 * output as `notifications/progress`, and the task list is the resource
 * `wave://tasks/<list>`.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  ApprovalDecision,
  ApprovalParent,
  ApprovalRequest,
} from "../../session/approvals.ts";
import type { Config } from "../../session/config.ts";
import type { Core } from "../../session/core.ts";
import type { CallResult, ToolCalls } from "../../session/tool_calls.ts";
import type { ToolEventRenderer } from "../../session/tool_events.ts";
import type { Mode } from "../../tools/kernel/modes.ts";
import { ReadState } from "../../tools/kernel/read_state.ts";
import { CAPABILITIES, instructionsFor, SERVER_INFO } from "./early.ts";
import type { Scopes } from "../../tools/kernel/tool.ts";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One MCP session: its server, and the resources it subscribed to. */
interface McpSession {
  /** wave's own name for it (its spill directory's). */
  id: string;
  server: Server;
  subscribed: Set<string>;
  /** The core's calls with the session's own read state and spill directory, made on its first call. */
  calls?: ToolCalls;
}

/** A `tools/call` being served: whom to tell about it. */
interface CallContext {
  session: McpSession;
  extra: Extra;
  progressToken?: string | number;
  /** Characters of output reported so far: the progress value, always increasing. */
  progress: number;
}

/**
 * The annotations MCP clients read to decide what to ask the user, from a
 * tool's declared mode and scopes: a tool bound in `ask` mode is
 * read-only (searches that run ripgrep included); one that writes the
 * workspace or runs commands in a wider mode may destroy; one that writes
 * only wave's own state (the task tools) does not. Only a command runner
 * under `--allow-net` reaches an open world.
 */
export function annotationsOf(
  def: { mode: Mode; scopes: Scopes },
  allowNet: boolean,
): NonNullable<Tool["annotations"]> {
  const readOnly = def.mode === "ask";
  const runs = !readOnly && (def.scopes.run?.length ?? 0) > 0;
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && (def.scopes.write === true || runs),
    openWorldHint: runs && allowNet,
  };
}

/**
 * A call's result as MCP content: text stays text, images become MCP
 * images, the structured result is `structuredContent` when it is an
 * object, and a tool failure is `isError`.
 */
export function toMcpResult(result: CallResult): CallToolResult {
  const content: CallToolResult["content"] = typeof result.content === "string"
    ? [{ type: "text", text: result.content }]
    : result.content.map((block) =>
      block.type === "text" ? { type: "text", text: block.text } : {
        type: "image",
        data: block.source.data,
        mimeType: block.source.media_type,
      }
    );
  const structured = result.structured;
  return {
    content,
    ...(structured !== null && typeof structured === "object" &&
        !Array.isArray(structured)
      ? { structuredContent: structured as Record<string, unknown> }
      : {}),
    isError: result.is_error,
  };
}

/** The MCP front: the approval parent and event renderer the core is opened with, and one server per MCP session. */
export class McpFront {
  #config: Config;
  #core = Promise.withResolvers<Core>();
  #sessions = new Set<McpSession>();
  #calls = new Map<string, CallContext>();

  /** A front for a session configured by `config`; {@linkcode attach} gives it the core. */
  constructor(config: Config) {
    this.#config = config;
  }

  /** The URI of the session's task list resource. */
  get taskListUri(): string {
    return `wave://tasks/${this.#config.taskListId}`;
  }

  /**
   * Gives the front the core opened with its parent and renderer. Requests
   * that came before (a client's first `tools/list`) wait for it: the
   * transport answers `initialize` while the tools still load.
   */
  attach(core: Core): void {
    this.#config = core.config;
    this.#core.resolve(core);
  }

  /** Asks the client of the call by `elicitation/create`, when it supports it. */
  readonly parent: ApprovalParent = {
    unavailable: (req: ApprovalRequest) => {
      const context = this.#calls.get(req.toolUseId);
      if (!context) return "no MCP client is waiting for this call";
      const elicitation = context.session.server.getClientCapabilities()
        ?.elicitation as Record<string, unknown> | undefined;
      const form = elicitation &&
        (Object.keys(elicitation).length === 0 || "form" in elicitation);
      return form
        ? null
        : "the MCP client does not support elicitation (elicitation/create), so wave cannot ask it; start wave mcp with --approvals allow to allow such calls";
    },
    ask: async (req, signal): Promise<ApprovalDecision> => {
      const context = this.#calls.get(req.toolUseId)!;
      const answer = await context.extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message:
              `wave asks to run ${req.toolName}: ${req.reason}. Allow this call?`,
            requestedSchema: { type: "object", properties: {} },
          },
        },
        ElicitResultSchema,
        { signal, timeout: this.#config.approvalTimeoutMs },
      );
      if (answer.action === "accept") return { allowed: true };
      return {
        allowed: false,
        message: answer.action === "decline"
          ? `${req.toolName} was denied by the user (${req.reason})`
          : `${req.toolName} was denied: the user dismissed the approval request (${req.reason})`,
      };
    },
  };

  /** Command output as `notifications/progress` to the call's client (when it sent a progress token); a changed task list as `notifications/resources/updated` to every subscriber. */
  readonly onEvent: ToolEventRenderer = (toolUseId, event) => {
    switch (event.type) {
      case "output": {
        const context = this.#calls.get(toolUseId);
        if (context?.progressToken === undefined) return;
        context.progress += event.text.length;
        return context.extra.sendNotification({
          method: "notifications/progress",
          params: {
            progressToken: context.progressToken,
            progress: context.progress,
            message: event.text,
          },
        }).catch(() => {});
      }
      case "task_list_changed": {
        const uri = this.taskListUri;
        return Promise.all(
          [...this.#sessions].filter((s) => s.subscribed.has(uri)).map((s) =>
            s.server.sendResourceUpdated({ uri }).catch(() => {})
          ),
        ).then(() => {});
      }
    }
  };

  /** A server for one more MCP session; {@linkcode forget} it when its transport closes. */
  newServer(): Server {
    const server = new Server({ ...SERVER_INFO }, {
      capabilities: CAPABILITIES,
      instructions: instructionsFor(this.#config),
    });
    const session: McpSession = {
      id: crypto.randomUUID(),
      server,
      subscribed: new Set(),
    };
    this.#sessions.add(session);
    server.onclose = () => {
      this.#sessions.delete(session);
      session.calls?.endSession();
    };

    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const core = await this.#core.promise;
      return {
        tools: core.registry.bound(core.mode.current).map(({ def }) => ({
          name: def.name,
          description: def.description,
          inputSchema: core.registry.inputSchema(def.name) as Tool[
            "inputSchema"
          ],
          annotations: {
            title: def.name,
            ...annotationsOf(def, this.#config.allowNet),
          },
        })),
      };
    });
    server.setRequestHandler(
      CallToolRequestSchema,
      (request, extra) => this.#call(session, request.params, extra),
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [{
        uri: this.taskListUri,
        name: `tasks/${this.#config.taskListId}`,
        title: "Task list",
        description:
          "The session's task list (spec 003): every task that is not deleted, with its id, subject and status.",
        mimeType: "application/json",
      }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      this.#checkUri(request.params.uri);
      return {
        contents: [{
          uri: this.taskListUri,
          mimeType: "application/json",
          text: JSON.stringify(await this.#taskList()),
        }],
      };
    });
    server.setRequestHandler(SubscribeRequestSchema, (request) => {
      this.#checkUri(request.params.uri);
      session.subscribed.add(request.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      session.subscribed.delete(request.params.uri);
      return {};
    });
    return server;
  }

  #checkUri(uri: string): void {
    if (uri !== this.taskListUri) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown resource ${uri}; wave has ${this.taskListUri}`,
      );
    }
  }

  /** The task list, read in the session's queue: it sees every change requested before it. */
  async #taskList(): Promise<unknown> {
    const core = await this.#core.promise;
    const ticket = core.writeQueue.enter("read");
    try {
      await ticket.ready;
      return {
        task_list_id: this.#config.taskListId,
        ...await core.tasks.view(),
      };
    } catch (error) {
      throw new McpError(
        ErrorCode.InternalError,
        `the task list cannot be read: ${(error as Error).message}`,
      );
    } finally {
      ticket.release();
    }
  }

  /**
   * The session's calls, made on first use: the files its client's model
   * has read are the session's own (an edit needs a read made in the same
   * session), and so is the output its commands spilled (another
   * session's needs approval).
   */
  #callsOf(session: McpSession, core: Core): ToolCalls {
    return session.calls ??= core.calls.forSession({
      readState: new ReadState(),
      spillDir: core.sessionSpillDir(session.id),
    });
  }

  /**
   * Makes ahead, in idle time, the process each open session's first
   * command will run in (`ToolCalls.prepareCommand`): on stdio, the one
   * session's, once the core is attached. Over HTTP, where clients open
   * sessions that may never run a command, a session's first command
   * makes its own.
   */
  async prepareCommands(): Promise<void> {
    const core = await this.#core.promise;
    await Promise.all(
      [...this.#sessions].map((s) => this.#callsOf(s, core).prepareCommand()),
    );
  }

  /** Serves `tools/call` through the core; the client's cancellation interrupts the call. */
  async #call(
    session: McpSession,
    params: {
      name: string;
      arguments?: Record<string, unknown>;
      _meta?: { progressToken?: string | number };
    },
    extra: Extra,
  ): Promise<CallToolResult> {
    const core = await this.#core.promise;
    const calls = this.#callsOf(session, core);
    const prepared = calls.prepare(params.name, params.arguments ?? {});
    if ("error" in prepared) {
      return {
        content: [{ type: "text", text: prepared.error }],
        isError: true,
      };
    }
    const controller = core.inFlight.controller();
    const cancel = () => controller.abort();
    extra.signal.addEventListener("abort", cancel, { once: true });
    if (extra.signal.aborted) cancel();
    this.#calls.set(prepared.toolUseId, {
      session,
      extra,
      progressToken: params._meta?.progressToken,
      progress: 0,
    });
    const work = calls.run(prepared, controller.signal);
    core.inFlight.track(work);
    try {
      return toMcpResult(await work);
    } finally {
      this.#calls.delete(prepared.toolUseId);
      extra.signal.removeEventListener("abort", cancel);
      core.inFlight.release(controller);
    }
  }

  /** Closes every session's server. */
  async closeAll(): Promise<void> {
    // A first command's process still being prepared is not started.
    for (const session of this.#sessions) session.calls?.discardPrepared();
    await Promise.allSettled([...this.#sessions].map((s) => s.server.close()));
  }
}
