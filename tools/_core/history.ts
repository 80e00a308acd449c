/**
 * File history: the content a file had before a tool changed it, kept under
 * `WAVE_HOME/history/<session>/`, so a change can be undone (DevFlow's
 * write_file, spec 004's file_history and restore).
 *
 * An append-only `index.jsonl` lists versions; each version's bytes are a
 * file of their own. A version of a file that did not exist says so, and
 * restoring it removes the file.
 *
 * @module
 */

import { join } from "node:path";
import { atomicWrite } from "../kernel/atomic_write.ts";
import type { ToolContext } from "../kernel/tool.ts";
import { readFileBytes, readTextFile } from "../kernel/read_file.ts";

/** One recorded version. */
export interface Version {
  /** Unique within the session's history. */
  id: string;
  /** The real path of the file. */
  path: string;
  /** When it was recorded (just before the change). */
  at: string;
  /** The tool whose change it precedes. */
  tool: string;
  /** Whether the file existed then. */
  existed: boolean;
  size: number;
}

function historyDir(ctx: ToolContext): string {
  return join(ctx.waveHome, "history", ctx.sessionId);
}

/** Every version recorded in this session, oldest first. */
export async function listVersions(ctx: ToolContext): Promise<Version[]> {
  let text: string;
  try {
    text = await readTextFile(join(historyDir(ctx), "index.jsonl"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return text.split("\n").filter((l) => l.trim()).flatMap((l) => {
    try {
      return [JSON.parse(l) as Version];
    } catch {
      return []; // a line cut short by a crash
    }
  });
}

/**
 * Records what `real` holds now, `bytes` (`null`: nothing, the change
 * creates it), before `tool` changes it. Returns the version. The bytes go
 * through the atomic writer; the index line is one append.
 */
export async function recordVersion(
  ctx: ToolContext,
  real: string,
  tool: string,
  bytes: Uint8Array | null,
): Promise<Version> {
  const dir = historyDir(ctx);
  Deno.mkdirSync(dir, { recursive: true });
  const id = `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  const version: Version = {
    id,
    path: real,
    at: new Date().toISOString(),
    tool,
    existed: bytes !== null,
    size: bytes?.length ?? 0,
  };
  if (bytes) await atomicWrite(join(dir, `${id}.bin`), bytes);
  using index = Deno.openSync(join(dir, "index.jsonl"), {
    append: true,
    create: true,
  });
  await index.write(new TextEncoder().encode(JSON.stringify(version) + "\n"));
  return version;
}

/** The bytes of a version (`null` for a version in which the file did not exist). */
export async function versionBytes(
  ctx: ToolContext,
  version: Version,
): Promise<Uint8Array | null> {
  return version.existed
    ? await readFileBytes(join(historyDir(ctx), `${version.id}.bin`))
    : null;
}
