/**
 * An MCP server's tools as the registry holds wave's own: named
 * `mcp__<server>__<tool>`, validated against the server's `inputSchema`
 * before a call (zod 4's JSON Schema conversion), bound in `ask` mode when
 * annotated `readOnlyHint` and only in `agent` mode otherwise (a writer in
 * the write queue), and called in the main thread over the server's
 * client, its result turned into wave's tool content.
 *
 * @module
 */

import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/client"
import type { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { RegisteredTool } from "../registry.ts";
import {
  base64Image,
  type ContentBlock,
  type InputSchema,
  ToolError,
  type ToolResult,
} from "../../tools/kernel/tool.ts";

/** A name as a model API takes it: letters, digits, `_` and `-`. */
function nameSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The name the model calls a server's tool by: `mcp__<server>__<tool>`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${nameSafe(server)}__${nameSafe(tool)}`;
}

/**
 * The schema input is checked with: the server's `inputSchema` converted
 * by zod; one zod cannot convert is left to the server (any object).
 */
function inputCheck(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.looseObject({});
  }
}

/**
 * Server `server`'s tool `tool`, served over `client`, as a registry
 * entry; a call may take `timeoutMs`, each progress notification starting
 * the wait again.
 */
export function registeredTool(
  server: string,
  tool: Tool,
  client: Client,
  timeoutMs: number,
): RegisteredTool {
  const name = mcpToolName(server, tool.name);
  const readOnly = tool.annotations?.readOnlyHint === true;
  const { $schema: _, ...inputSchema } = tool.inputSchema as Record<
    string,
    unknown
  >;
  return {
    module: `mcp:${server}`,
    def: {
      name,
      description: tool.description ?? tool.title ?? tool.annotations?.title ??
        `${tool.name}, a tool of the MCP server ${server}`,
      input: inputCheck(inputSchema) as unknown as InputSchema,
      // What the registry and the write queue read: a tool that does not
      // say it only reads may change anything.
      scopes: readOnly ? {} : { write: true },
      mode: readOnly ? "ask" : "agent",
      run() {
        throw new ToolError(`${name} runs in the session, not in a worker`);
      },
    },
    external: {
      inputSchema,
      async call(input, signal) {
        try {
          const result = await client.callTool(
            { name: tool.name, arguments: input as Record<string, unknown> },
            undefined,
            {
              signal,
              timeout: timeoutMs,
              resetTimeoutOnProgress: true,
            },
          );
          return resultOf(result as CallToolResult);
        } catch (error) {
          if (signal.aborted) {
            return {
              content: `${name} was interrupted before it finished.`,
              isError: true,
              structured: { type: "interrupted" },
            };
          }
          return {
            content: `${name} failed: the MCP server ${server} answered: ${
              (error as Error).message
            }`,
            isError: true,
            structured: { type: "mcp_error" },
          };
        }
      },
    },
  };
}

/**
 * An MCP tool result as wave's: text stays text (joined when it is all
 * text), images become image blocks, what a model cannot take (audio, a
 * resource) is named in text; `isError` is the call's error, and
 * `structuredContent` its `structured`.
 */
export function resultOf(result: CallToolResult): ToolResult {
  const blocks: ContentBlock[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        blocks.push({ type: "text", text: item.text });
        break;
      case "image":
        blocks.push(base64Image(item.mimeType, item.data));
        break;
      case "audio":
        blocks.push({
          type: "text",
          text: `[audio (${item.mimeType}), which wave cannot show the model]`,
        });
        break;
      case "resource_link":
        blocks.push({ type: "text", text: `[resource: ${item.uri}]` });
        break;
      case "resource": {
        const resource = item.resource as { uri: string; text?: string };
        blocks.push({
          type: "text",
          text: resource.text ?? `[resource: ${resource.uri}]`,
        });
        break;
      }
    }
  }
  const content = blocks.every((b) => b.type === "text")
    ? blocks.map((b) => (b as { text: string }).text).join("\n")
    : blocks;
  return {
    content,
    isError: result.isError === true,
    structured: result.structuredContent ?? null,
  };
}
