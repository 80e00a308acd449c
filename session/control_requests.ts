/**
 * The control requests a parent sends (docs/protocol.md "control_request"):
 * each gets exactly one `control_response` with its `request_id`, a
 * success or an error that says what was wrong.
 *
 * @module
 */

import { type ControlBody, decodeControlBody } from "./inbound.ts";
import { isPermissionMode } from "./permission_modes.ts";
import type { Mode } from "../tools/kernel/modes.ts";
import type { CurrentTask } from "./current_task.ts";
import type { InFlight } from "./in_flight.ts";
import type { ControlAnswer, InitializeAnswer } from "./outbound.ts";
import { controlError, controlSuccess } from "./control_responses.ts";

/** `initialize`'s request, decoded. */
export type InitializeRequest = Extract<ControlBody, { subtype: "initialize" }>;
import type { ProtocolWriter } from "./output.ts";
import type { ToolRegistry } from "./registry.ts";
import type { SessionMode } from "./session_mode.ts";
import type { TaskListAnnouncer } from "./task_list_announcer.ts";
import type { ToolCalls } from "./tool_calls.ts";
import type { WriteQueue } from "./write_queue.ts";
import type { McpServers } from "./mcp/servers.ts";

/** What {@linkcode ControlRequests} needs from its session. */
export interface ControlRequestsDeps {
  writer: ProtocolWriter;
  registry: ToolRegistry;
  calls: ToolCalls;
  mode: SessionMode;
  writeQueue: WriteQueue;
  taskList: TaskListAnnouncer;
  inFlight: InFlight;
  /** The task calls belong to (`set_task` names the parent's). */
  task: CurrentTask;
  /** Claude Code's handshake (`initialize.ts`). */
  initialize(request: InitializeRequest): Promise<InitializeAnswer>;
  /** Switches the model of the next requests; resolves with it as `provider:name`. */
  setModel(model: string | null): Promise<string>;
  /** Sets the thinking budget of the next requests (null: none). */
  setThinkingBudget(tokens: number | null): void;
  /** The session's MCP servers, if it has any (`mcp_status`, `mcp_message`). */
  mcp?: () => McpServers | undefined;
  /**
   * The session's MCP servers, made on first use (the MCP client loads
   * then): `initialize`'s `sdkMcpServers` connect through it
   * (`McpServers.connectHosted(names)`).
   */
  openMcp?: () => Promise<McpServers>;
}

/** Serves one session's control requests. */
export class ControlRequests {
  #deps: ControlRequestsDeps;
  /** The ids of requests still being served: their answers are yet to come. */
  #open = new Set<string | number>();
  /** The calls `call_tool` started, by request id (`control_cancel_request` ends one). */
  #calls = new Map<string | number, AbortController>();

  /** Serves requests with what `deps` gives. */
  constructor(deps: ControlRequestsDeps) {
    this.#deps = deps;
  }

  /**
   * Serves request `id`. Answers at once, or starts work that answers when
   * it is done (tracked in flight, never awaited here). A request whose id
   * is one still being served is refused and not run: its answer could
   * not be told from the first one's, which still comes.
   */
  serve(id: string | number, request: { subtype: string }): void {
    if (this.#open.has(id)) {
      return this.#refuse(
        id,
        `duplicate request_id ${
          JSON.stringify(id)
        }: a request with this id is still in flight, so this ${
          request.subtype.slice(0, 100)
        } request was not run; give each request its own id`,
      );
    }
    const body = decodeControlBody(request);
    if ("error" in body) return this.#refuse(id, body.error);
    const { mode, registry, inFlight } = this.#deps;
    switch (body.subtype) {
      case "call_tool":
        return this.#callTool(id, body.tool_name, body.input, body.tool_use_id);
      case "interrupt":
        inFlight.interrupt();
        return this.#answer(id, {});
      case "set_permission_mode":
        // Claude Code's names (plan is both), or wave's own.
        if (
          isPermissionMode(body.mode) &&
          (body.mode !== "plan" || mode.permission !== null)
        ) mode.setPermission(body.mode);
        else if (body.mode === "agent" && mode.permission !== null) {
          // wave's agent in a session of Claude Code's modes: its default,
          // which asks before changes (not plan's "nothing to ask").
          mode.setPermission("default");
        } else mode.current = body.mode as Mode;
        return this.#answer(id, { mode: body.mode });
      case "initialize":
        // Answered once the MCP servers it names connected or failed (their
        // answers come in on stdin, so this does not block reading).
        this.#open.add(id);
        return inFlight.track(
          this.#deps.initialize(body).then(
            (answer) => this.#answer(id, answer),
            (error) => this.#refuse(id, (error as Error).message),
          ).finally(() => this.#open.delete(id)),
        );
      case "set_model":
        this.#open.add(id);
        return inFlight.track(
          this.#deps.setModel(body.model ?? null).then(
            (model) => this.#answer(id, { model }),
            (error) => this.#refuse(id, (error as Error).message),
          ).finally(() => this.#open.delete(id)),
        );
      case "set_max_thinking_tokens":
        this.#deps.setThinkingBudget(body.max_thinking_tokens || null);
        return this.#answer(id, {});
      case "list_tools":
        return this.#answer(id, { tools: registry.describe(mode.current) });
      case "get_tasks":
        return inFlight.track(this.#getTasks(id));
      case "mcp_status":
        return this.#answer(id, {
          mcpServers: this.#deps.mcp?.()?.status() ?? [],
        });
      case "mcp_message": {
        const servers = this.#deps.mcp?.();
        const wrong = servers
          ? servers.deliver(body.server_name, body.message)
          : "this session has no MCP servers";
        return wrong === null
          ? this.#answer(id, {})
          : this.#refuse(id, `mcp_message: ${wrong}`);
      }
      case "set_task": {
        const task = this.#deps.task.set(body.task_id, body.goal);
        return this.#answer(id, { task_id: task.id, goal: task.goal });
      }
    }
  }

  #answer(id: string | number, response: ControlAnswer): void {
    this.#deps.writer.send(controlSuccess(id, response));
  }

  #refuse(id: string | number, error: string): void {
    this.#deps.writer.send(controlError(id, error));
  }

  #callTool(
    id: string | number,
    name: string,
    input: unknown,
    toolUseId?: string,
  ): void {
    const { calls, inFlight } = this.#deps;
    const prepared = calls.prepare(name, input, toolUseId);
    if ("error" in prepared) return this.#refuse(id, prepared.error);
    const controller = inFlight.controller();
    this.#open.add(id);
    this.#calls.set(id, controller);
    inFlight.track(
      calls.run(prepared, controller.signal)
        .then((result) => this.#answer(id, result))
        .catch((error) =>
          this.#refuse(id, `internal error: ${(error as Error).message}`)
        )
        .finally(() => {
          this.#open.delete(id);
          this.#calls.delete(id);
          inFlight.release(controller);
        }),
    );
  }

  /**
   * `control_cancel_request`: the parent no longer waits for request `id`.
   * A `call_tool` still running is interrupted (its answer says so); any
   * other request, or one already answered, is left as it is.
   */
  cancel(id: string | number): void {
    this.#calls.get(id)?.abort();
  }

  /** Answers get_tasks, in the session's queue as a read: it sees every change requested before it. */
  async #getTasks(id: string | number): Promise<void> {
    this.#open.add(id);
    const ticket = this.#deps.writeQueue.enter("read");
    try {
      await ticket.ready;
      this.#answer(id, await this.#deps.taskList.view());
    } catch (error) {
      this.#refuse(
        id,
        `the task list cannot be read: ${(error as Error).message}`,
      );
    } finally {
      this.#open.delete(id);
      ticket.release();
    }
  }
}
