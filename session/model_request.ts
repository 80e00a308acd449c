/**
 * What one model request is made of: the system prompt, the tools offered
 * (the structured output tool with them under `--json-schema`), the
 * conversation and the output budget. The agent loop builds every request
 * with it, and the early first request (`models/early_request.ts`) builds
 * the first one with it too, before the session has loaded, so the two
 * cannot drift apart.
 *
 * Imports nothing heavy: it runs on the way to the first request.
 *
 * @module
 */

import type { Config, Mode } from "./config.ts";
import { mergeTurns, type Message } from "./messages.ts";
import type { ModelRequest, ModelTool } from "./models/provider.ts";
import { systemPrompt } from "./system_prompt.ts";

/** The name of the tool a `--json-schema` session's model returns its structured output with (Claude Code's). */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";
/** Output tokens a model may produce in one reply. */
export const MAX_OUTPUT_TOKENS = 8192;

/** What a request depends on besides the conversation. */
export interface RequestFacts {
  config: Pick<
    Config,
    | "jsonSchema"
    | "systemPrompt"
    | "workspace"
    | "toolset"
    | "maxThinkingTokens"
  >;
  /** The mode the session is in now. */
  mode: Mode;
  /** The bound tools, in toolset order, as the model is offered them. */
  tools: readonly ModelTool[];
  /** The names of the bound tools that change the task list. */
  taskTrackers: readonly string[];
}

/** The request that sends `history` under `facts`. */
export function modelRequest(
  facts: RequestFacts,
  history: readonly Message[],
): ModelRequest {
  const { config, mode } = facts;
  const tools = facts.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
  }));
  if (config.jsonSchema) {
    tools.push({
      name: STRUCTURED_OUTPUT_TOOL,
      description:
        "Use this tool to return your final response in the requested structured format. Call it once, at the end, with the whole answer as its input.",
      input_schema: config.jsonSchema,
    });
  }
  const { replace, append } = config.systemPrompt;
  const system = [
    replace ?? systemPrompt({
      workspace: config.workspace,
      mode,
      toolset: config.toolset,
      tools: tools.map((t) => t.name),
      taskTrackers: facts.taskTrackers,
    }),
    ...append ? [append] : [],
  ].join("\n\n");
  return {
    system,
    messages: mergeTurns(history),
    tools,
    maxTokens: MAX_OUTPUT_TOKENS,
    ...(config.maxThinkingTokens
      ? { thinkingBudget: config.maxThinkingTokens }
      : {}),
  };
}
