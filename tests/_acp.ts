/**
 * Test harness for `wave acp`: the official ACP SDK's client app as the
 * editor, spawning the real CLI and talking ACP over its stdio.
 *
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { waveArgs } from "../scripts/flags.ts";
import { waitUntil } from "./_waiting.ts";
import { DENO_DIR } from "./_wave.ts";
import { MockModel } from "./_mock_model.ts";
import { tempDir } from "./_temp.ts";

export { acp };

/** How the test answers a permission request: an option id, or "cancelled". */
export type PermissionAnswer = (
  request: acp.RequestPermissionRequest,
) => string;

/** Options of {@linkcode startAcp}. */
export interface AcpOptions {
  /** Extra flags after `wave acp`. */
  args?: string[];
  /** WAVE_HOME (default: a new temp dir). */
  waveHome?: string;
  /** The workspace (default: a new temp dir). */
  workspace?: string;
  /** Extra environment. */
  env?: Record<string, string>;
  /** Answers permission requests (default: reject). */
  permission?: PermissionAnswer;
  /**
   * The editor's open buffers, by absolute path: the client answers
   * `fs/read_text_file` from them (else from the disk, as an editor
   * does) and `fs/write_text_file` into them, never touching the disk.
   * The client must still offer `fs` in its `initialize`.
   */
  buffers?: Map<string, string>;
  /** The command (default: the CLI through `deno run`). */
  command?: { command: string; args: string[]; cwd?: string };
}

/** A running `wave acp` and the client connected to it. */
export interface AcpSession {
  agent: acp.ClientContext;
  child: Deno.ChildProcess;
  workspace: string;
  waveHome: string;
  /** Every session/update received, in order. */
  updates: acp.SessionNotification[];
  /** Every permission request received, in order. */
  permissions: acp.RequestPermissionRequest[];
  /** Every `terminal/create` received (each refused: the test client runs nothing). */
  terminalCreates: acp.CreateTerminalRequest[];
  /** Every `fs/*` request received, in order. */
  fsRequests: (
    | { method: "read"; params: acp.ReadTextFileRequest }
    | { method: "write"; params: acp.WriteTextFileRequest }
  )[];
  stderr(): string;
  /** Waits for an update matching `match` (20 s). */
  waitForUpdate(
    match: (update: acp.SessionUpdate) => boolean,
    what: string,
  ): Promise<acp.SessionUpdate>;
  /** Ends stdin and waits for wave to exit; its exit code. */
  close(): Promise<number>;
}

/** Spawns `wave acp` and connects the SDK's client to it. */
export async function startAcp(options: AcpOptions = {}): Promise<AcpSession> {
  const workspace = options.workspace ??
    await Deno.realPath(await tempDir({ prefix: "wave-ws-" }));
  const waveHome = options.waveHome ??
    await tempDir({ prefix: "wave-home-" });
  const command = options.command ??
    {
      command: Deno.execPath(),
      args: waveArgs(["acp", ...options.args ?? []]),
    };
  const child = new Deno.Command(command.command, {
    args: command.args,
    cwd: command.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: {
      WAVE_HOME: waveHome,
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      DENO_DIR,
      ...options.env,
    },
    clearEnv: true,
  }).spawn();
  let stderr = "";
  (async () => {
    for await (
      const chunk of child.stderr.pipeThrough(new TextDecoderStream())
    ) {
      stderr += chunk;
    }
  })();
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const answer = options.permission ?? (() => "reject_once");
  const fsRequests: AcpSession["fsRequests"] = [];
  const buffers = options.buffers ?? new Map<string, string>();
  const terminalCreates: acp.CreateTerminalRequest[] = [];
  const connection = acp.client({ name: "wave-test" })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      terminalCreates.push(params);
      throw new acp.RequestError(-32603, "the test client runs no commands");
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      fsRequests.push({ method: "read", params });
      return {
        content: buffers.get(params.path) ??
          await Deno.readTextFile(params.path),
      };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      fsRequests.push({ method: "write", params });
      buffers.set(params.path, params.content);
      return {};
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const optionId = answer(params);
      return optionId === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId } };
    })
    .connect(acp.ndJsonStream(child.stdin, child.stdout));
  return {
    agent: connection.agent,
    child,
    workspace,
    waveHome,
    updates,
    permissions,
    fsRequests,
    terminalCreates,
    stderr: () => stderr,
    waitForUpdate: (match, what) =>
      waitUntil(
        () => updates.map((n) => n.update).find(match),
        what,
        {
          detail: () =>
            JSON.stringify(updates.map((n) => n.update)).slice(-3000),
        },
      ),
    async close() {
      connection.close();
      try {
        await child.stdin.close();
      } catch { /* already closed by the connection */ }
      const { code } = await child.status;
      return code;
    },
  };
}

/** The updates of one kind a session received, in order. */
export function updatesOf<K extends acp.SessionUpdate["sessionUpdate"]>(
  wave: AcpSession,
  kind: K,
): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return wave.updates.map((n) => n.update).filter((
    u,
  ): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> =>
    u.sessionUpdate === kind
  );
}

/** The update that ended tool call `id` (completed or failed), if one came. */
export function finished(wave: AcpSession, id: string) {
  return updatesOf(wave, "tool_call_update").find((u) =>
    u.toolCallId === id && (u.status === "completed" || u.status === "failed")
  );
}

/** The model key the ACP tests give wave (a secret it must not leak). */
export const ACP_TEST_KEY = "sk-test-secret-key-0123456789";

/**
 * Runs `fn` with `wave acp` whose model is a fresh mock Anthropic server,
 * and ends both after it.
 */
export async function withAcp(
  options: AcpOptions,
  fn: (wave: AcpSession, mock: MockModel) => Promise<void>,
): Promise<void> {
  const mock = new MockModel();
  const wave = await startAcp({
    ...options,
    args: [
      "--model",
      "anthropic:test-model",
      "--base-url",
      mock.url,
      ...options.args ?? [],
    ],
    env: { ANTHROPIC_API_KEY: ACP_TEST_KEY, ...options.env },
  });
  try {
    await fn(wave, mock);
  } finally {
    await wave.close();
    await mock.close();
  }
}

/** Initializes the client with `clientCapabilities` and opens a session in the workspace; its id. */
export async function newSession(
  wave: AcpSession,
  clientCapabilities: acp.ClientCapabilities = {},
): Promise<string> {
  await wave.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities,
  });
  const { sessionId } = await wave.agent.request(
    acp.methods.agent.session.new,
    { cwd: wave.workspace, mcpServers: [] },
  );
  return sessionId;
}
