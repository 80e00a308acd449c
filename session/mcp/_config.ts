/**
 * An MCP server's entry, as Claude Code's `--mcp-config` gives it
 * (`{"mcpServers": {"<name>": entry}}`): stdio (`type` absent or
 * `"stdio"`: `command`, `args`, `env`), streamable HTTP (`"http"`: `url`,
 * `headers`), SSE (`"sse"`), or a server the parent hosts (`"sdk"`).
 *
 * @module
 */

import { z } from "zod";
import { describeIssues } from "../inbound.ts";

const Strings = z.record(z.string(), z.string());

const Stdio = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: Strings.default({}),
});
const Remote = z.looseObject({
  type: z.enum(["http", "sse"]),
  url: z.url({ protocol: /^https?$/ }),
  headers: Strings.default({}),
});
const Sdk = z.looseObject({
  type: z.literal("sdk"),
  name: z.string().optional(),
});

/** A checked server entry. */
export type ServerEntry =
  | {
    type: "stdio";
    command: string;
    args: string[];
    env: Record<string, string>;
  }
  | { type: "http" | "sse"; url: string; headers: Record<string, string> }
  | { type: "sdk" };

/** The entry `value` as a {@linkcode ServerEntry}, or what is wrong with it. */
export function parseEntry(value: unknown): ServerEntry | { error: string } {
  const type = typeof value === "object" && value !== null
    ? (value as { type?: unknown }).type
    : undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: "an entry must be an object" };
  }
  if (type === undefined || type === "stdio") {
    const parsed = Stdio.safeParse(value);
    return parsed.success
      ? { ...parsed.data, type: "stdio" }
      : { error: describeIssues(parsed.error) };
  }
  if (type === "http" || type === "sse") {
    const parsed = Remote.safeParse(value);
    return parsed.success
      ? { type, url: parsed.data.url, headers: parsed.data.headers }
      : { error: describeIssues(parsed.error) };
  }
  if (type === "sdk") {
    const parsed = Sdk.safeParse(value);
    return parsed.success
      ? { type: "sdk" }
      : { error: describeIssues(parsed.error) };
  }
  return {
    error: `type: ${
      JSON.stringify(type)?.slice(0, 40)
    } is no server type wave connects to (stdio, http, sse, sdk)`,
  };
}
