/**
 * Claude Code's handshake, `control_request` `initialize` (the Claude Agent
 * SDK sends it first): what it carries is applied to the session (the
 * system prompt, structured output's schema, the parent's hooks) and the
 * answer says what wave offers (no slash commands, the models it knows,
 * where its key came from) and what of the request it could not honour.
 *
 * @module
 */

import type { Config } from "./config.ts";
import type { InitializeRequest } from "./control_requests.ts";
import { CLAUDE_ALIASES } from "./models/model_id.ts";
import type { InitializeAnswer } from "./outbound.ts";
import { ParentHooks } from "./parent_hooks.ts";
import type { ParentRequests } from "./parent_requests.ts";
import type { SessionMode } from "./session_mode.ts";
import type { ToolCalls } from "./tool_calls.ts";
import type { McpServers } from "./mcp/servers.ts";
import { VERSION } from "./version.ts";

/** The parts of a session `initialize` changes. */
export interface InitializeTarget {
  /** The session's config as it is now: read, never changed. */
  config: Config;
  /**
   * Makes `config` the session's config for the turns to come: the one
   * initialize made from the session's, which it does not change (its
   * objects may be shared: the CLI's parsed flags, a library caller's,
   * another session's).
   */
  reconfigure(config: Config): void;
  calls: ToolCalls;
  mode: SessionMode;
  requests: ParentRequests;
  transcriptPath: string;
  /** Installs the parent's turn hooks (UserPromptSubmit, Stop). */
  setTurnHooks(hooks: ParentHooks): void;
  /** Tells the parent something as a `system/warning`. */
  warn(text: string): void;
  /** The session's MCP servers, made on first use. */
  openMcp(): Promise<McpServers>;
  /**
   * Writes `system/init` again, with the tools and MCP servers the session
   * has now (Claude Code writes it at each turn; wave once more when
   * initialize brought servers the first one could not list).
   */
  announce(): void;
}

/**
 * Applies `request` to the session and resolves with the answer once the
 * MCP servers it names (`mcpServers`, and the parent's own
 * `sdkMcpServers`) connected or failed. What wave cannot honour
 * (subagents, hook events it never calls) is listed in the answer's
 * `warnings` and sent as `system/warning` too.
 */
export async function initializeSession(
  request: InitializeRequest,
  target: InitializeTarget,
): Promise<InitializeAnswer> {
  const config = configAfterInitialize(target.config, request);
  if (config !== target.config) target.reconfigure(config);
  const warnings: string[] = [];
  let hooksApplied: boolean | undefined;
  if (request.hooks) {
    const hooks = new ParentHooks(request.hooks, target.requests, {
      sessionId: config.sessionId,
      transcriptPath: target.transcriptPath,
      cwd: config.workspace,
      permissionMode: () => target.mode.permissionName,
    });
    hooks.onMessage = target.warn;
    target.calls.hooks = hooks;
    target.setTurnHooks(hooks);
    hooksApplied = true;
    for (const event of hooks.ignored) {
      warnings.push(
        `the ${event} hooks were registered but wave never calls them (it calls PreToolUse, PostToolUse, UserPromptSubmit and Stop)`,
      );
    }
  }
  const agents = Object.keys(request.agents ?? {});
  if (agents.length > 0) {
    warnings.push(
      `wave cannot run subagents yet, so the agents ${
        agents.join(", ")
      } were not registered`,
    );
  }
  for (const warning of warnings) target.warn(warning);
  const serverEntries = request.mcpServers ?? {};
  const hosted = request.sdkMcpServers ?? [];
  if (Object.keys(serverEntries).length > 0 || hosted.length > 0) {
    const servers = await target.openMcp();
    await Promise.all([
      servers.connect(serverEntries),
      servers.connectHosted(hosted),
    ]);
    // Their tools and statuses, as the first system/init could not say.
    if (config.claudeCompat) target.announce();
  }
  const keySource = config.apiKey ? "ANTHROPIC_API_KEY" : "none";
  return {
    commands: [],
    agents: [],
    output_style: "default",
    available_output_styles: ["default"],
    models: modelsOffered(config.model),
    account: {
      apiKeySource: config.model?.startsWith("anthropic:") ? keySource : "none",
      apiProvider: "firstParty",
    },
    ...(hooksApplied !== undefined ? { hooks_applied: hooksApplied } : {}),
    claude_code_version: `wave ${VERSION}`,
    warnings,
    ...(request.mcpServers ? { mcp_servers_applied: true } : {}),
  };
}

/**
 * The session's settings for the turns to come after `request`: a new
 * config when the request changes any (what initialize gives wins over the
 * flags, as it does in Claude Code), else `config` itself. `config` and
 * the objects in it are left as they were.
 */
export function configAfterInitialize(
  config: Config,
  request: InitializeRequest,
): Config {
  const { systemPrompt, appendSystemPrompt, jsonSchema } = request;
  if (
    systemPrompt === undefined && appendSystemPrompt === undefined &&
    !jsonSchema
  ) return config;
  return {
    ...config,
    systemPrompt: {
      replace: systemPrompt === undefined
        ? config.systemPrompt.replace
        : Array.isArray(systemPrompt)
        ? systemPrompt.join("\n\n")
        : systemPrompt,
      append: appendSystemPrompt ?? config.systemPrompt.append,
    },
    jsonSchema: jsonSchema || config.jsonSchema,
  };
}

/** The models `set_model` may name: Claude's aliases, and the session's own. */
function modelsOffered(current: string | null): InitializeAnswer["models"] {
  const models = Object.entries(CLAUDE_ALIASES).map(([alias, name]) => ({
    value: alias,
    displayName: alias[0].toUpperCase() + alias.slice(1),
    description: name,
  }));
  if (current && !current.startsWith("replay:")) {
    const name = current.slice(current.indexOf(":") + 1);
    if (!Object.values(CLAUDE_ALIASES).includes(name)) {
      models.unshift({ value: name, displayName: name, description: current });
    }
  }
  return models;
}
