/**
 * The system prompt: who the model is working for, where, in which mode,
 * and how to use the tools well.
 *
 * @module
 */

import type { Mode } from "./config.ts";

/** What the prompt is made from. */
export interface PromptFacts {
  workspace: string;
  mode: Mode;
  toolset: string;
  /** Names of the bound tools. */
  tools: string[];
  /** Names of the bound tools that change the task list (they declare `task_list_changed`). */
  taskTrackers: readonly string[];
}

const MODE_TEXT: Record<Mode, string> = {
  ask:
    "ask mode: you can read and search, but not change files or run commands. Answer questions and explain.",
  plan:
    "plan mode: you can read and search, and write plan documents and tasks, but not change the code or run commands. Work out a plan.",
  agent:
    "agent mode: you can read, search, edit files and run commands. Do the work.",
};

/** The system prompt for one request (the mode may change between turns). */
export function systemPrompt(facts: PromptFacts): string {
  const has = (name: string) => facts.tools.includes(name);
  const lines = [
    "You are a coding agent working in a software project for a user, through the tools you are given.",
    "",
    `Workspace: ${facts.workspace}. Paths may be relative to it. Paths outside it, and secrets such as .env files and keys, need the user's approval; prefer staying inside.`,
    `You are in ${MODE_TEXT[facts.mode]}`,
    `Tools: ${facts.tools.join(", ") || "none"}.`,
    "",
    "How to work well:",
    "- Read a file before you edit or overwrite it; edits to files you have not read, or that changed since, are refused.",
  ];
  if (has("Edit")) {
    lines.push(
      "- With Edit, make old_string the smallest text that is clearly unique: usually 2-4 adjacent lines, copied exactly from Read's output without the line numbers.",
    );
  }
  if (has("Grep") || has("Glob")) {
    lines.push(
      "- Search with Grep and Glob, not grep, find or cat in Bash: they respect .gitignore, page their results and keep your context small.",
    );
  }
  if (has("Bash") || has("shell") || has("run_command")) {
    lines.push(
      "- Commands run in the workspace without a terminal or stdin; long output is cut, with the full text saved to a file you can read.",
    );
  }
  if (facts.taskTrackers.length > 0) {
    lines.push(
      `- For work of three or more steps, track it with ${
        listOf(facts.taskTrackers)
      } (in_progress when you start a task, completed when it is done).`,
    );
  }
  lines.push(
    "- A tool error is information: read it, correct the call, and go on.",
    "- When you are done, say briefly what you did and what is left.",
  );
  return lines.join("\n");
}

/** Names in prose: `a`, `a and b`, `a, b and c`. */
export function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
