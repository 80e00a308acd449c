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
} from "../tools/kernel/tool.ts";
import { zodSchemaOf } from "../tools/kernel/tool.ts";
import { loadTool } from "../tools/loaders.ts";

/** A tool the session can bind. */
export interface RegisteredTool {
  def: ToolDefinition;
  /** The reference a sandbox worker loads the module by (see `loadTool`). */
  module: string;
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
   * Which tools the session offers (`--tools`, a bare `--disallowedTools`
   * name): the others are as if not in the toolset. Asked on each lookup,
   * so a rule added later applies from then on.
   */
  offers: (name: string) => boolean = () => true;

  /** The tool named `name`, bound or not, if the session offers it. */
  get(name: string): RegisteredTool | undefined {
    return this.offers(name) ? this.#tools.get(name) : undefined;
  }

  /** Every offered tool's name, in toolset order. */
  names(): string[] {
    return [...this.#tools.keys()].filter((name) => this.offers(name));
  }

  /** The offered tools bound in `mode`, in toolset order. */
  bound(mode: Mode): RegisteredTool[] {
    return [...this.#tools.values()].filter((t) =>
      boundIn(t.def.mode, mode) && this.offers(t.def.name)
    );
  }

  /**
   * The names of the tools whose definitions declare they emit `event`
   * (`emits`), in toolset order; with `mode`, only those bound in it.
   */
  emitters(event: ToolEventType, mode?: Mode): string[] {
    const tools = mode
      ? this.bound(mode)
      : [...this.#tools.values()].filter((t) => this.offers(t.def.name));
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
