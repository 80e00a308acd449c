/**
 * The tool registry: the selected toolset's definitions, loaded once, with
 * their JSON Schemas generated from their zod schemas (never written twice).
 *
 * @module
 */

import { z } from "zod";
import { boundIn, type Mode } from "../tools/kernel/modes.ts";
import type {
  Scopes,
  ToolDefinition,
  ToolEventType,
  ToolResult,
} from "../tools/kernel/tool.ts";
import { zodSchemaOf } from "../tools/kernel/tool.ts";
import { loadTool } from "../tools/loaders.ts";

/** A tool the session can bind. */
export interface RegisteredTool {
  def: ToolDefinition;
  /** The reference a sandbox worker loads the module by (see `loadTool`). */
  module: string;
  /**
   * Set for a tool served from outside wave (an MCP server's, session/mcp/):
   * it runs in the main thread through `call`, not in a sandbox worker,
   * after the same lookup, mode gate, validation, approvals and write
   * queue as every other call.
   */
  external?: ExternalTool;
}

/** How a tool served from outside wave is described and called. */
export interface ExternalTool {
  /** Its input's JSON Schema as its server gives it: what the model sees. */
  inputSchema: Record<string, unknown>;
  /**
   * Runs the call; `signal` aborts it (an interrupt cancels the request).
   * Resolves with an error result for every failure, never rejects.
   */
  call(input: unknown, signal: AbortSignal): Promise<ToolResult>;
}

/** A tool as `list_tools` describes it. */
export interface ToolDescription {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  scopes: { read: boolean; write: boolean | "state"; run: string[] };
}

function describeScopes(scopes: Scopes): ToolDescription["scopes"] {
  return {
    read: !!scopes.read,
    write: scopes.write ?? false,
    run: [...(scopes.run ?? [])],
  };
}

/** The tools of one session, by name. */
export class ToolRegistry {
  #tools = new Map<string, RegisteredTool>();
  #schemas = new Map<string, Record<string, unknown>>();
  #offers: (name: string) => boolean = () => true;

  /**
   * Offers only the tools whose names `offers` accepts (an allowed or
   * disallowed list): from now on every view of the registry (`get`,
   * `names`, `bound`, `emitters`, `describe`) leaves the others out,
   * tools added later (an MCP server's) included, and so does a registry
   * `derive`d from it.
   */
  setFilter(offers: (name: string) => boolean): void {
    this.#offers = offers;
  }

  /** The registered tools the filter lets through, in order. */
  #offered(): RegisteredTool[] {
    return [...this.#tools.values()].filter((t) => this.#offers(t.def.name));
  }

  /**
   * Loads the modules (by `loadTool` reference) and registers them, in
   * order. Each `{{name}}` in a description becomes `words[name]` (the
   * session's settings a model needs to know, such as `output_dir`).
   */
  static async load(
    modules: readonly string[],
    words: Readonly<Record<string, string>> = {},
  ): Promise<ToolRegistry> {
    const registry = new ToolRegistry();
    const defs = (await Promise.all(modules.map(loadTool))).map((def) => {
      let description = def.description;
      for (const [name, value] of Object.entries(words)) {
        description = description.replaceAll(`{{${name}}}`, value);
      }
      return description === def.description ? def : { ...def, description };
    });
    defs.forEach((def, i) => {
      if (registry.#tools.has(def.name)) {
        throw new Error(`two tools are named ${def.name}`);
      }
      registry.#tools.set(def.name, { def, module: modules[i] });
    });
    return registry;
  }

  /**
   * Adds tools after the toolset's (an MCP server's, once it connected),
   * in order; a name already registered is refused with an error and
   * nothing is added.
   */
  add(tools: readonly RegisteredTool[]): void {
    const names = new Set<string>();
    for (const { def } of tools) {
      if (this.#tools.has(def.name) || names.has(def.name)) {
        throw new Error(`two tools are named ${def.name}`);
      }
      names.add(def.name);
    }
    for (const tool of tools) this.#tools.set(tool.def.name, tool);
  }

  /** Removes the tools named (an MCP server's that went away). */
  remove(names: Iterable<string>): void {
    for (const name of names) {
      this.#tools.delete(name);
      this.#schemas.delete(name);
    }
  }

  /**
   * A registry with this one's tools, to which tools can be added that
   * this one does not see (the MCP servers of one ACP session).
   */
  derive(): ToolRegistry {
    const registry = new ToolRegistry();
    registry.#offers = this.#offers;
    for (const [name, tool] of this.#tools) registry.#tools.set(name, tool);
    for (const [name, schema] of this.#schemas) {
      registry.#schemas.set(name, schema);
    }
    return registry;
  }

  /** The tool named `name`, bound or not. */
  get(name: string): RegisteredTool | undefined {
    return this.#offers(name) ? this.#tools.get(name) : undefined;
  }

  /** Every offered tool's name, in toolset order. */
  names(): string[] {
    return this.#offered().map((t) => t.def.name);
  }

  /** The offered tools bound in `mode`, in toolset order. */
  bound(mode: Mode): RegisteredTool[] {
    return this.#offered().filter((t) => boundIn(t.def.mode, mode));
  }

  /**
   * The names of the tools whose definitions declare they emit `event`
   * (`emits`), in toolset order; with `mode`, only those bound in it.
   */
  emitters(event: ToolEventType, mode?: Mode): string[] {
    const tools = mode ? this.bound(mode) : this.#offered();
    return tools.filter((t) => t.def.emits?.includes(event)).map((t) =>
      t.def.name
    );
  }

  /** The JSON Schema of a tool's input, as the model sees it. */
  inputSchema(name: string): Record<string, unknown> {
    let schema = this.#schemas.get(name);
    if (!schema) {
      const tool = this.#tools.get(name);
      if (!tool) throw new Error(`no tool named ${name}`);
      if (tool.external) return tool.external.inputSchema;
      const { $schema: _, ...rest } = z.toJSONSchema(zodSchemaOf(tool.def), {
        io: "input",
      }) as Record<string, unknown>;
      schema = rest;
      this.#schemas.set(name, schema);
    }
    return schema;
  }

  /** The bound tools as `list_tools` answers them. */
  describe(mode: Mode): ToolDescription[] {
    return this.bound(mode).map(({ def }) => ({
      name: def.name,
      description: def.description,
      input_schema: this.inputSchema(def.name),
      scopes: describeScopes(def.scopes),
    }));
  }
}
