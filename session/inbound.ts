/**
 * The stdio protocol's inbound half, as code: every message a parent may
 * send, declared once as a zod schema, and their decoder (docs/protocol.md
 * "Parent → wave"). The outbound half is `outbound.ts`.
 *
 * {@linkcode decodeLine} turns one input line into a typed message or into
 * the error a parent can act on: its `code`, a message that says what was
 * wrong, and the `request_id` to answer when the line had one. Every lookup
 * by a name the parent chose (`type`, `subtype`) is a `Map` lookup, so a
 * name such as `constructor` or `__proto__` is just an unknown name.
 *
 * @module
 */

import { z } from "zod";
import { MODES } from "../tools/kernel/modes.ts";
import { PERMISSION_MODES } from "./permission_modes.ts";

/** `system/error` codes (docs/protocol.md "Bad input"). */
export const INPUT_ERROR_CODES = [
  "invalid_json",
  "invalid_message",
  "unknown_type",
  "line_too_long",
] as const;
/** A `system/error` code. */
export type InputErrorCode = typeof INPUT_ERROR_CODES[number];

/** The longest string `request_id` (and `tool_use_id`) wave takes, in characters. */
export const MAX_ID_LENGTH = 256;

/** A `request_id`: a non-empty string of at most 256 characters or a finite number, in both directions. */
export const RequestId = z.union([
  z.string().min(1).max(MAX_ID_LENGTH),
  z.number().refine(Number.isFinite, "a request_id number must be finite"),
]);

const TextBlock = z.object({ type: z.literal("text"), text: z.string() });

const UserMessage = z.object({
  type: z.literal("user"),
  message: z.object({
    role: z.literal("user"),
    content: z.union([
      z.string(),
      z.array(z.looseObject({ type: z.string() })).min(1),
    ]),
  }),
});

const ControlRequest = z.object({
  type: z.literal("control_request"),
  request_id: RequestId,
  request: z.looseObject({ subtype: z.string() }),
});

/** The parent no longer waits for the answer to one of its requests. */
const ControlCancelRequest = z.object({
  type: z.literal("control_cancel_request"),
  request_id: RequestId,
});

const ControlResponse = z.object({
  type: z.literal("control_response"),
  response: z.union([
    z.object({
      subtype: z.literal("success"),
      request_id: RequestId,
      response: z.looseObject({}).optional(),
    }),
    z.object({
      subtype: z.literal("error"),
      request_id: RequestId,
      error: z.string().optional(),
    }),
  ]),
});

/**
 * The parent's answer to a request wave sent it (`can_use_tool`,
 * `open_file`), as the `control_response` carries it.
 */
export type ParentAnswer =
  | { subtype: "success"; response?: Record<string, unknown> }
  | { subtype: "error"; error?: string };

const CallTool = z.object({
  subtype: z.literal("call_tool"),
  tool_name: z.string().min(1).max(MAX_ID_LENGTH),
  input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().min(1).max(MAX_ID_LENGTH).optional(),
});
const Interrupt = z.object({ subtype: z.literal("interrupt") });
const SetPermissionMode = z.object({
  subtype: z.literal("set_permission_mode"),
  mode: z.union([z.enum(MODES), z.enum(PERMISSION_MODES)]),
});
const HookMatcher = z.object({
  matcher: z.string().optional(),
  hookCallbackIds: z.array(z.string().min(1).max(MAX_ID_LENGTH)),
  timeout: z.number().positive().optional(),
});
/** Claude Code's handshake (the Claude Agent SDK sends it first). */
const Initialize = z.object({
  subtype: z.literal("initialize"),
  hooks: z.record(z.string(), z.array(HookMatcher)).optional(),
  systemPrompt: z.union([z.string(), z.array(z.string())]).optional(),
  appendSystemPrompt: z.string().optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  agents: z.record(z.string(), z.unknown()).optional(),
  sdkMcpServers: z.array(z.string().min(1).max(MAX_ID_LENGTH)).optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
});
const SetModel = z.object({
  subtype: z.literal("set_model"),
  model: z.string().min(1).max(MAX_ID_LENGTH).nullable().optional(),
});
const SetMaxThinkingTokens = z.object({
  subtype: z.literal("set_max_thinking_tokens"),
  max_thinking_tokens: z.number().int().nonnegative().nullable().optional(),
});
const ListTools = z.object({ subtype: z.literal("list_tools") });
const GetTasks = z.object({ subtype: z.literal("get_tasks") });
const SetTask = z.object({
  subtype: z.literal("set_task"),
  task_id: z.string().min(1).max(MAX_ID_LENGTH),
  goal: z.string().max(100_000).default(""),
});

const McpStatus = z.object({ subtype: z.literal("mcp_status") });
const McpMessage = z.object({
  subtype: z.literal("mcp_message"),
  server_name: z.string().min(1).max(MAX_ID_LENGTH),
  message: z.looseObject({ jsonrpc: z.literal("2.0") }),
});

/** A `control_request`'s `request` body that wave serves, decoded. */
export type ControlBody = z.infer<
  | typeof CallTool
  | typeof Interrupt
  | typeof SetPermissionMode
  | typeof ListTools
  | typeof GetTasks
  | typeof SetTask
  | typeof Initialize
  | typeof SetModel
  | typeof SetMaxThinkingTokens
  | typeof McpStatus
  | typeof McpMessage
>;

/** A control request subtype wave serves. */
export type ControlSubtype = ControlBody["subtype"];

/** The `request` bodies of the control requests wave serves, by subtype. */
export const CONTROL_BODIES: ReadonlyMap<string, z.ZodType<ControlBody>> =
  new Map<ControlSubtype, z.ZodType<ControlBody>>([
    ["call_tool", CallTool],
    ["interrupt", Interrupt],
    ["set_permission_mode", SetPermissionMode],
    ["list_tools", ListTools],
    ["get_tasks", GetTasks],
    ["set_task", SetTask],
    ["initialize", Initialize],
    ["set_model", SetModel],
    ["set_max_thinking_tokens", SetMaxThinkingTokens],
    ["mcp_status", McpStatus],
    ["mcp_message", McpMessage],
  ]);

/** A decoded inbound message. */
export type Inbound =
  | z.infer<typeof UserMessage> & { line: number }
  | z.infer<typeof ControlRequest> & { line: number }
  | z.infer<typeof ControlResponse> & { line: number }
  | z.infer<typeof ControlCancelRequest> & { line: number };

/** A line that could not be decoded. */
export interface InputError {
  code: InputErrorCode;
  message: string;
  line: number;
  /** The line's `request_id`, when it had one: answer with `control_response` error. */
  requestId?: string | number;
}

/** Every inbound message type, by `type`. */
const SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ["user", UserMessage],
  ["control_request", ControlRequest],
  ["control_response", ControlResponse],
  ["control_cancel_request", ControlCancelRequest],
]);

/**
 * Decodes a control request's body. An unknown subtype, whatever its name,
 * and a body of the wrong shape are errors whose message says what is
 * wrong and what wave serves.
 */
export function decodeControlBody(
  request: { subtype: string },
): ControlBody | { error: string } {
  const schema = CONTROL_BODIES.get(request.subtype);
  if (!schema) {
    return {
      error: `unknown control_request subtype "${
        request.subtype.slice(0, 100)
      }"; wave serves ${[...CONTROL_BODIES.keys()].join(", ")}`,
    };
  }
  const parsed = schema.safeParse(request);
  if (!parsed.success) {
    return {
      error: `invalid ${request.subtype} request: ${
        describeIssues(parsed.error)
      }`,
    };
  }
  return parsed.data;
}

/** One line per problem: `field.path: what is wrong`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(root)";
    return `${where}: ${issue.message}`;
  }).join("; ");
}

/**
 * Decodes one line of input. Never throws: every failure is an
 * {@linkcode InputError}.
 */
export function decodeLine(
  text: string,
  line: number,
): Inbound | InputError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      code: "invalid_json",
      line,
      message: `line ${line} is not JSON: ${(error as Error).message}`,
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null
      ? "null"
      : Array.isArray(value)
      ? "an array"
      : `a ${typeof value}`;
    return {
      code: "invalid_message",
      line,
      message: `line ${line} is ${kind}, not a JSON object`,
    };
  }
  const record = value as Record<string, unknown>;
  const rid = record.request_id;
  const tooLong = typeof rid === "string" && rid.length > MAX_ID_LENGTH;
  if (tooLong && record.type === "control_request") {
    // Not an id to answer with: echoing it would let a parent make wave
    // write megabytes. Say how long it is and how it begins.
    return {
      code: "invalid_message",
      line,
      message: `line ${line} has a request_id of ${
        (rid as string).length
      } characters; at most ${MAX_ID_LENGTH} are allowed (it begins ${
        JSON.stringify((rid as string).slice(0, 32))
      }…)`,
    };
  }
  if (
    typeof rid === "number" && !Number.isFinite(rid) &&
    record.type === "control_request"
  ) {
    // A number JSON cannot carry back (1e400 parses as Infinity, which
    // would be written as null): no id to answer with.
    return {
      code: "invalid_message",
      line,
      message: `line ${line} has a request_id that is not a finite number (${
        String(rid)
      }); a request_id is a string or a finite number`,
    };
  }
  const requestId = (typeof rid === "string" && rid !== "" && !tooLong) ||
      (typeof rid === "number" && Number.isFinite(rid))
    ? rid
    : undefined;
  if (typeof record.type !== "string") {
    return {
      code: "invalid_message",
      line,
      requestId,
      message: `line ${line} has no "type" string`,
    };
  }
  const schema = SCHEMAS.get(record.type);
  if (!schema) {
    return {
      code: "unknown_type",
      line,
      requestId,
      message: `unknown message type "${
        record.type.slice(0, 100)
      }"; expected user, control_request, control_response or control_cancel_request`,
    };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return {
      code: "invalid_message",
      line,
      requestId,
      message: `invalid ${record.type} message: ${
        describeIssues(parsed.error)
      }`,
    };
  }
  return { ...(parsed.data as object), line } as Inbound;
}

/** Whether a decode result is an error. */
export function isInputError(x: Inbound | InputError): x is InputError {
  return "code" in x;
}

/** Text of a user message's content, for turns (text blocks joined). */
export function userText(content: string | { type: string }[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((b): b is z.infer<typeof TextBlock> =>
      TextBlock.safeParse(b).success
    )
    .map((b) => b.text)
    .join("\n");
}

/** Lines of each kind a parent sends, for {@linkcode warmDecoders}. */
const SAMPLE_LINES = [
  '{"type":"control_request","request_id":"w","request":{"subtype":"call_tool","tool_name":"t","input":{"path":"p"}}}',
  '{"type":"user","message":{"role":"user","content":"hi"}}',
  '{"type":"control_response","response":{"subtype":"success","request_id":"w","response":{"behavior":"allow"}}}',
];

/**
 * Decodes a line of each kind once, with no effect but this: zod builds
 * a schema's parser on its first use (10–20 ms for these), and spent in
 * idle time that is not the first real line's.
 */
export function warmDecoders(): void {
  for (const line of SAMPLE_LINES) {
    const decoded = decodeLine(line, 0);
    if (!isInputError(decoded) && decoded.type === "control_request") {
      decodeControlBody(decoded.request);
    }
  }
}
