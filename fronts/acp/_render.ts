/**
 * How `wave acp` shows the core's typed values in ACP's words: a tool as a
 * tool call (kind, title, locations), a result as tool-call content (text,
 * images, diffs), the task list as a plan, the modes as session modes, a
 * transcript as the updates that replay it, and ACP prompt content as the
 * blocks the agent loop takes.
 *
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { isAbsolute, resolve } from "../../tools/kernel/posix_path.ts";
import type { Block } from "../../session/messages.ts";
import type { CallResult } from "../../session/tool_calls.ts";
import type { TranscriptEntry } from "../../session/transcript.ts";
import { type Mode, MODES } from "../../tools/kernel/modes.ts";
import {
  base64Image,
  type ToolContent,
  type ToolDefinition,
} from "../../tools/kernel/tool.ts";
import type { TaskListView } from "../../tools/kernel/tasks.ts";

/** The longest command output a running tool call shows (its end). */
export const SHOWN_OUTPUT_CHARS = 64 * 1024;

/**
 * A tool's ACP kind, from its declared mode and scopes (the core knows no
 * tool by name, nor does this front): bound in `ask` mode it reads, or
 * searches when it runs a program; otherwise it executes commands, edits
 * the workspace, or (writing only wave's own state: tasks, plans) thinks.
 */
export function toolKind(
  def: Pick<ToolDefinition, "mode" | "scopes">,
): acp.ToolKind {
  const runs = (def.scopes.run?.length ?? 0) > 0;
  if (def.mode === "ask") return runs ? "search" : "read";
  if (runs) return "execute";
  return def.scopes.write === true ? "edit" : "think";
}

/** The paths a call's input names, absolute (relative ones against `workspace`). */
export function locationsOf(
  def: Pick<ToolDefinition, "paths"> | undefined,
  input: unknown,
  workspace: string,
): acp.ToolCallLocation[] {
  try {
    return (def?.paths?.(input) ?? []).map(({ path }) => ({
      path: isAbsolute(path) ? path : resolve(workspace, path),
    }));
  } catch {
    return [];
  }
}

/** A title for the call: the tool, and what it works on (its first path, or its first text field). */
export function titleOf(
  name: string,
  input: unknown,
  locations: acp.ToolCallLocation[],
): string {
  if (locations.length > 0) return `${name} ${locations[0].path}`;
  if (input && typeof input === "object") {
    const text = Object.values(input).find((v) => typeof v === "string");
    if (typeof text === "string" && text !== "") {
      const line = text.split("\n")[0];
      return `${name}: ${line.length > 120 ? `${line.slice(0, 119)}…` : line}`;
    }
  }
  return name;
}

/** A tool's content (text and images) as ACP tool-call content. */
export function contentOf(content: ToolContent): acp.ToolCallContent[] {
  const blocks = typeof content === "string"
    ? [{ type: "text" as const, text: content }]
    : content;
  return blocks.map((block) => ({
    type: "content",
    content: block.type === "text" ? { type: "text", text: block.text } : {
      type: "image",
      data: block.source.data,
      mimeType: block.source.media_type,
    },
  }));
}

/**
 * The two sides of a unified diff's hunks (context lines on both), for
 * ACP's diff content; null when `diff` has no hunk.
 */
export function sidesOfDiff(
  diff: string,
): { oldText: string; newText: string } | null {
  const old: string[] = [];
  const now: string[] = [];
  let inHunk = false;
  for (const line of diff.split("\n")) {
    if (line.startsWith("@@")) {
      inHunk = true;
      continue;
    }
    if (!inHunk || line.startsWith("\\")) continue;
    if (line.startsWith("-")) old.push(line.slice(1));
    else if (line.startsWith("+")) now.push(line.slice(1));
    else if (line.startsWith(" ")) {
      old.push(line.slice(1));
      now.push(line.slice(1));
    }
  }
  if (!inHunk) return null;
  return { oldText: old.join("\n"), newText: now.join("\n") };
}

/**
 * A finished call as a `tool_call_update`: completed or failed, its content,
 * and for a change to a file (a structured result with `path` and a
 * unified `diff`) ACP's diff content and the first changed line.
 */
export function finishedCall(
  result: Pick<CallResult, "content" | "is_error" | "structured">,
): Omit<acp.ToolCallUpdate, "toolCallId"> {
  const content = contentOf(result.content);
  const structured = result.structured as Record<string, unknown> | null;
  const update: Omit<acp.ToolCallUpdate, "toolCallId"> = {
    status: result.is_error ? "failed" : "completed",
    rawOutput: structured,
  };
  if (
    structured && typeof structured.path === "string" &&
    typeof structured.diff === "string"
  ) {
    const sides = sidesOfDiff(structured.diff);
    if (sides) {
      content.unshift({ type: "diff", path: structured.path, ...sides });
    }
    const line = structured.firstChangedLine;
    update.locations = [{
      path: structured.path,
      ...(typeof line === "number" ? { line } : {}),
    }];
  }
  update.content = content;
  return update;
}

/** The task list (spec 003) as an ACP plan: each task that is not deleted, with its status. */
export function planOf(view: TaskListView): acp.Plan {
  return {
    entries: view.tasks.map((task) => ({
      content: task.subject,
      priority: "medium",
      status: task.status === "in_progress"
        ? "in_progress"
        : task.status === "completed"
        ? "completed"
        : "pending",
    })),
  };
}

const MODE_TEXT: Record<Mode, { name: string; description: string }> = {
  ask: { name: "Ask", description: "only the tools that read and search" },
  plan: {
    name: "Plan",
    description: "also the tools that write wave's own state (tasks, plans)",
  },
  agent: { name: "Agent", description: "every tool: edits and commands too" },
};

/** wave's modes as ACP session modes, `current` the one the session is in. */
export function modesOf(current: Mode): acp.SessionModeState {
  return {
    currentModeId: current,
    availableModes: MODES.map((id) => ({ id, ...MODE_TEXT[id] })),
  };
}

/**
 * ACP prompt content as the blocks a user turn takes: text and images as
 * they are, an embedded resource (the editor's context) as text naming its
 * URI, a resource link as a Markdown link.
 */
export function promptBlocks(prompt: acp.ContentBlock[]): Block[] {
  const blocks: Block[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case "text":
        blocks.push({ type: "text", text: block.text });
        break;
      case "image":
        blocks.push(base64Image(block.mimeType, block.data));
        break;
      case "resource": {
        const resource = block.resource as { uri: string; text?: string };
        if (typeof resource.text === "string") {
          blocks.push({
            type: "text",
            text:
              `<context uri="${resource.uri}">\n${resource.text}\n</context>`,
          });
        } else {blocks.push({
            type: "text",
            text: `[${resource.uri}](${resource.uri})`,
          });}
        break;
      }
      case "resource_link":
        blocks.push({ type: "text", text: `[@${block.name}](${block.uri})` });
        break;
      default:
        blocks.push({
          type: "text",
          text: `[a ${block.type} block, which wave does not take]`,
        });
    }
  }
  return blocks;
}

/** Finds the definition of a tool by name, for kinds, titles and locations. */
export type DefinitionOf = (
  name: string,
) => Pick<ToolDefinition, "mode" | "scopes" | "paths"> | undefined;

/** A `tool_call` update for a call the model asked for. */
export function toolCallOf(
  id: string,
  name: string,
  input: unknown,
  definitionOf: DefinitionOf,
  workspace: string,
): acp.ToolCall {
  const def = definitionOf(name);
  const locations = locationsOf(def, input, workspace);
  return {
    toolCallId: id,
    title: titleOf(name, input, locations),
    kind: def ? toolKind(def) : "other",
    status: "pending",
    locations,
    rawInput: input,
  };
}

/**
 * The updates that replay a transcript (`session/load`): the user's
 * messages, the model's text, and each tool call with its result. Messages
 * wave added for the model (task reminders) are not shown.
 */
export function replayOf(
  entries: TranscriptEntry[],
  definitionOf: DefinitionOf,
  workspace: string,
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  for (const entry of entries) {
    if (entry.isMeta) continue;
    const { message } = entry;
    const blocks = typeof message.content === "string"
      ? [{ type: "text" as const, text: message.content }]
      : message.content;
    for (const block of blocks) {
      if (block.type === "text") {
        updates.push({
          sessionUpdate: message.role === "user"
            ? "user_message_chunk"
            : "agent_message_chunk",
          content: { type: "text", text: block.text },
        });
      } else if (block.type === "image") {
        updates.push({
          sessionUpdate: "user_message_chunk",
          content: {
            type: "image",
            data: block.source.data,
            mimeType: block.source.media_type,
          },
        });
      } else if (block.type === "tool_use") {
        updates.push({
          sessionUpdate: "tool_call",
          ...toolCallOf(
            block.id,
            block.name,
            block.input,
            definitionOf,
            workspace,
          ),
        });
      } else if (block.type === "tool_result") {
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: block.tool_use_id,
          ...finishedCall({
            content: block.content,
            is_error: !!block.is_error,
            structured: entry.toolUseResults?.[block.tool_use_id] ?? null,
          }),
        });
      }
    }
  }
  return updates;
}
