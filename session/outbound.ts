/**
 * The stdio protocol's outbound half, as code: every message wave writes,
 * declared once as a zod schema (docs/protocol.md "wave → parent"). The
 * writer (`output.ts`) takes only an {@linkcode Outbound}, so `deno check`
 * rejects a shape declared nowhere; {@linkcode checkOutboundLine} checks a
 * written line against these declarations at run time (the tests do, on
 * what real sessions write). The inbound half is `inbound.ts`.
 *
 * Objects are strict: a field that is not declared here is an error in
 * {@linkcode checkOutboundLine}. `session_id` is not part of a message: the
 * writer adds it to every line.
 *
 * @module
 */

import { z } from "zod";
import { MODES } from "../tools/kernel/modes.ts";
import { PERMISSION_MODES } from "./permission_modes.ts";
import { TASK_STATUSES } from "../tools/kernel/tasks.ts";
import { describeIssues, INPUT_ERROR_CODES, RequestId } from "./inbound.ts";

const TextBlock = z.strictObject({ type: z.literal("text"), text: z.string() });
const ImageBlock = z.strictObject({
  type: z.literal("image"),
  source: z.strictObject({
    type: z.literal("base64"),
    media_type: z.string(),
    data: z.string(),
  }),
});
const ContentBlock = z.union([TextBlock, ImageBlock]);
/** What a tool returns for the model: text, or text and image blocks. */
const ToolContent = z.union([z.string(), z.array(ContentBlock)]);
const ToolUseBlock = z.strictObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
/** A model's extended thinking, as the Anthropic API gives it. */
const ThinkingBlock = z.union([
  z.strictObject({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z.string(),
  }),
  z.strictObject({ type: z.literal("redacted_thinking"), data: z.string() }),
]);
const ToolResultBlock = z.strictObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: ToolContent,
  is_error: z.boolean().optional(),
});
const Usage = z.strictObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});
/** A message's id for a Claude Code parent (the SDK's `uuid`). */
const Uuid = z.string().uuid();

/** The task list as a UI shows it (`system/task_list`, `get_tasks`). */
const TaskListView = z.strictObject({
  task_list_id: z.string(),
  tasks: z.array(z.strictObject({
    id: z.string(),
    subject: z.string(),
    status: z.enum(TASK_STATUSES),
  })),
  visible: z.boolean(),
});

/** Where an MCP server is (`system/init`'s `mcp_servers`, `mcp_status`). */
const MCP_SERVER_STATES = ["pending", "connected", "failed"] as const;

/** `system/init`: the first line, written before any input is read. */
const SystemInit = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("init"),
  cwd: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.strictObject({
    name: z.string(),
    status: z.enum(MCP_SERVER_STATES),
  })),
  toolset: z.string(),
  mode: z.enum(MODES),
  model: z.string().nullable(),
  sandbox: z.strictObject({
    commands: z.enum(["bwrap", "none"]),
    orphans: z.enum(["pid_namespace", "cgroup", "marker"]),
    network: z.boolean(),
    files: z.enum(["landlock", "paths"]),
  }),
  wave_version: z.string(),
  protocol: z.number(),
  // Claude Code's fields (the Claude Agent SDK's SDKSystemMessage).
  apiKeySource: z.string(),
  permissionMode: z.enum(PERMISSION_MODES),
  slash_commands: z.array(z.string()),
  output_style: z.string(),
  claude_code_version: z.string(),
  skills: z.array(z.string()),
  plugins: z.array(z.unknown()),
  uuid: Uuid,
});

/** `system/error` (ext): bad input that has no `request_id` to answer. */
const SystemError = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("error"),
  error: z.strictObject({
    code: z.enum(INPUT_ERROR_CODES),
    message: z.string(),
    line: z.number(),
  }),
});

/** `system/warning` (ext): something a parent may want to log. */
const SystemWarning = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("warning"),
  message: z.string(),
});

/** `system/tool_progress` (ext): a running command's output. */
const SystemToolProgress = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("tool_progress"),
  tool_use_id: z.string(),
  stream: z.enum(["stdout", "stderr"]),
  text: z.string(),
});

/** `system/task_list` (ext): the task list, after every change. */
const SystemTaskList = z.strictObject({
  type: z.literal("system"),
  subtype: z.literal("task_list"),
  ...TaskListView.shape,
});

/** `assistant`: one model reply. */
const AssistantReply = z.strictObject({
  type: z.literal("assistant"),
  message: z.strictObject({
    id: z.string(),
    type: z.literal("message"),
    role: z.literal("assistant"),
    content: z.array(z.union([TextBlock, ToolUseBlock, ThinkingBlock])),
    model: z.string(),
    stop_reason: z.string(),
    stop_sequence: z.null(),
    usage: Usage,
  }),
  parent_tool_use_id: z.null(),
  uuid: Uuid,
});

/** `stream_event` (under `--include-partial-messages`): one raw event of a reply's stream, Anthropic's shape. */
const StreamEvent = z.strictObject({
  type: z.literal("stream_event"),
  event: z.looseObject({ type: z.string() }),
  parent_tool_use_id: z.null(),
  uuid: Uuid,
});

/** `user`: one tool result fed back to the model. */
const ToolResultEcho = z.strictObject({
  type: z.literal("user"),
  message: z.strictObject({
    role: z.literal("user"),
    content: z.tuple([ToolResultBlock]),
  }),
  tool_use_result: z.unknown(),
  duration_ms: z.number(),
  parent_tool_use_id: z.null(),
  uuid: Uuid,
});

/** How a turn ended. */
export const RESULT_SUBTYPES = [
  "success",
  "error_max_turns",
  "error_during_execution",
  "error_interrupted",
  "error_max_budget_usd",
  "error_max_structured_output_retries",
] as const;

/** A model's token counts and estimated cost (the SDK's ModelUsage). */
const ModelUsage = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
});

/** `result`: the end of a user turn. */
const TurnResult = z.strictObject({
  type: z.literal("result"),
  subtype: z.enum(RESULT_SUBTYPES),
  is_error: z.boolean(),
  num_turns: z.number(),
  duration_ms: z.number(),
  usage: Usage,
  result: z.string(),
  // Claude Code's fields (the Claude Agent SDK's SDKResultMessage).
  duration_api_ms: z.number(),
  total_cost_usd: z.number(),
  modelUsage: z.record(z.string(), ModelUsage),
  permission_denials: z.array(z.strictObject({
    tool_name: z.string(),
    tool_use_id: z.string(),
    tool_input: z.unknown(),
  })),
  stop_reason: z.string().nullable(),
  errors: z.array(z.string()),
  terminal_reason: z.string().optional(),
  structured_output: z.unknown().optional(),
  uuid: Uuid,
});

/** The `request` of `can_use_tool`: wave asks the parent to approve one call. */
const CanUseTool = z.strictObject({
  subtype: z.literal("can_use_tool"),
  tool_name: z.string(),
  input: z.unknown(),
  tool_use_id: z.string(),
  reason: z.string(),
  // Claude Code's fields (the Claude Agent SDK reads them for canUseTool).
  decision_reason: z.string(),
  blocked_path: z.string().optional(),
  title: z.string(),
  description: z.string(),
  permission_suggestions: z.array(z.looseObject({ type: z.string() })),
});

/** The `request` of `hook_callback`: wave calls one of the parent's hooks (registered by `initialize`). */
const HookCallback = z.strictObject({
  subtype: z.literal("hook_callback"),
  callback_id: z.string(),
  input: z.looseObject({ hook_event_name: z.string() }),
  tool_use_id: z.string().optional(),
});

/** The `request` of `open_file`: wave asks the parent to open a file for the person (`--open-with parent`). */
const OpenFileRequest = z.strictObject({
  subtype: z.literal("open_file"),
  path: z.string(),
});

/** The `request` of `mcp_message`: a JSON-RPC message for an MCP server the parent hosts. */
const McpMessageRequest = z.strictObject({
  subtype: z.literal("mcp_message"),
  server_name: z.string(),
  message: z.unknown(),
});

/** `control_request` `can_use_tool`, `open_file` or `mcp_message`. */
const ApprovalRequest = z.strictObject({
  type: z.literal("control_request"),
  request_id: z.string(),
  request: z.union([
    CanUseTool,
    OpenFileRequest,
    HookCallback,
    McpMessageRequest,
  ]),
});

/** `control_cancel_request`: wave no longer waits for the answer to one of its requests. */
const ControlCancelRequest = z.strictObject({
  type: z.literal("control_cancel_request"),
  request_id: z.string(),
});

/** `call_tool`'s answer: exactly what the model would see, and the metadata. */
const CallToolAnswer = z.strictObject({
  tool_use_id: z.string(),
  content: ToolContent,
  is_error: z.boolean(),
  structured: z.unknown(),
});

/** `list_tools`'s answer. */
const ListToolsAnswer = z.strictObject({
  tools: z.array(z.strictObject({
    name: z.string(),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()),
    scopes: z.strictObject({
      read: z.boolean(),
      write: z.union([z.boolean(), z.literal("state")]),
      run: z.array(z.string()),
    }),
  })),
});

/** `initialize`'s answer (the Claude Agent SDK's SDKControlInitializeResponse). */
const InitializeAnswer = z.strictObject({
  commands: z.array(z.strictObject({
    name: z.string(),
    description: z.string(),
    argumentHint: z.string(),
  })),
  agents: z.array(z.unknown()),
  output_style: z.string(),
  available_output_styles: z.array(z.string()),
  models: z.array(z.strictObject({
    value: z.string(),
    displayName: z.string(),
    description: z.string(),
  })),
  account: z.strictObject({
    apiKeySource: z.string(),
    apiProvider: z.string(),
  }),
  hooks_applied: z.boolean().optional(),
  claude_code_version: z.string(),
  /** What wave could not honour of the request (subagents, ...). */
  warnings: z.array(z.string()),
  mcp_servers_applied: z.boolean().optional(),
});

/** `mcp_status`'s answer (the Claude Agent SDK's `McpServerStatus` list). */
const McpStatusAnswer = z.strictObject({
  mcpServers: z.array(z.strictObject({
    name: z.string(),
    status: z.enum(MCP_SERVER_STATES),
    serverInfo: z.strictObject({ name: z.string(), version: z.string() })
      .optional(),
    error: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    tools: z.array(z.strictObject({
      name: z.string(),
      description: z.string().optional(),
      annotations: z.strictObject({
        readOnly: z.boolean().optional(),
        destructive: z.boolean().optional(),
        openWorld: z.boolean().optional(),
      }).optional(),
    })).optional(),
  })),
});

/** The answer of each control request wave serves. */
const ControlAnswer = z.union([
  McpStatusAnswer,
  CallToolAnswer,
  ListToolsAnswer,
  z.strictObject({ mode: z.union([z.enum(MODES), z.enum(PERMISSION_MODES)]) }),
  InitializeAnswer,
  // set_model
  z.strictObject({ model: z.string() }),
  TaskListView,
  // set_task
  z.strictObject({ task_id: z.string(), goal: z.string() }),
  // interrupt
  z.strictObject({}),
]);

/** `control_response`: the one answer to a parent's `control_request`. */
const ControlResponse = z.strictObject({
  type: z.literal("control_response"),
  response: z.union([
    z.strictObject({
      subtype: z.literal("success"),
      request_id: RequestId,
      response: ControlAnswer,
    }),
    z.strictObject({
      subtype: z.literal("error"),
      request_id: RequestId,
      error: z.string(),
    }),
  ]),
});

/** Every outbound message, by `type` (and `/subtype` for `system`). */
const OUTBOUND = new Map<string, z.ZodType>([
  ["system/init", SystemInit],
  ["system/error", SystemError],
  ["system/warning", SystemWarning],
  ["system/tool_progress", SystemToolProgress],
  ["system/task_list", SystemTaskList],
  ["assistant", AssistantReply],
  ["stream_event", StreamEvent],
  ["control_cancel_request", ControlCancelRequest],
  ["user", ToolResultEcho],
  ["result", TurnResult],
  ["control_request", ApprovalRequest],
  ["control_response", ControlResponse],
]);

/** `system/init`. */
export type SystemInit = z.infer<typeof SystemInit>;
/** `control_request` `can_use_tool`'s `request`. */
export type CanUseTool = z.infer<typeof CanUseTool>;
/** `control_request` `hook_callback`'s `request`. */
export type HookCallback = z.infer<typeof HookCallback>;
/** `initialize`'s answer. */
export type InitializeAnswer = z.infer<typeof InitializeAnswer>;
/** `result`. */
export type TurnResult = z.infer<typeof TurnResult>;
/** A model's usage in `result`'s `modelUsage`. */
export type ModelUsage = z.infer<typeof ModelUsage>;
/** `call_tool`'s answer. */
export type CallToolAnswer = z.infer<typeof CallToolAnswer>;
/** An answer to a control request. */
export type ControlAnswer = z.infer<typeof ControlAnswer>;
/** How a turn ended (`result`'s `subtype`). */
export type ResultSubtype = typeof RESULT_SUBTYPES[number];

/** A message wave writes (without `session_id`, which the writer adds). */
export type Outbound =
  | SystemInit
  | z.infer<typeof SystemError>
  | z.infer<typeof SystemWarning>
  | z.infer<typeof SystemToolProgress>
  | z.infer<typeof SystemTaskList>
  | z.infer<typeof AssistantReply>
  | z.infer<typeof StreamEvent>
  | z.infer<typeof ControlCancelRequest>
  | z.infer<typeof ToolResultEcho>
  | z.infer<typeof TurnResult>
  | z.infer<typeof ApprovalRequest>
  | z.infer<typeof ControlResponse>;

/**
 * Checks one line wave wrote: a JSON object with a `session_id` string,
 * whose other fields are a declared outbound message. Returns null when it
 * is, else what is wrong.
 */
export function checkOutboundLine(line: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "not a JSON object";
  }
  const { session_id, ...message } = value as Record<string, unknown>;
  if (typeof session_id !== "string" || session_id === "") {
    return "no session_id string";
  }
  const key = message.type === "system"
    ? `system/${String(message.subtype)}`
    : String(message.type);
  const schema = OUTBOUND.get(key);
  if (!schema) return `${key} is no declared outbound message`;
  const parsed = schema.safeParse(message);
  return parsed.success ? null : `${key}: ${describeIssues(parsed.error)}`;
}
