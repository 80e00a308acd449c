/**
 * The editor's buffers through ACP's `fs/read_text_file` and
 * `fs/write_text_file` (issue 17): when the client offers both, the core
 * reads and writes the text of files through it (the editor's unsaved
 * state is the truth), behind the same resolver, approvals and write
 * queue as the disk. With one of the two, or none, wave uses the disk: a
 * change must go back where the text it starts from came from.
 *
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import type { EditorBuffers } from "../../session/editor_buffers.ts";

/** Whether the client serves both reads and writes of its buffers. */
export function offersBuffers(
  capabilities: acp.ClientCapabilities | undefined,
): boolean {
  return capabilities?.fs?.readTextFile === true &&
    capabilities?.fs?.writeTextFile === true;
}

/**
 * The core's {@linkcode EditorBuffers} over the client: a call's buffers
 * are asked in the session the call belongs to; a call the client was not
 * told of in that session (`isCall`), such as a warm-up's, or one with no
 * client connected, works on the disk.
 */
export function clientBuffers(
  client: () => acp.AgentContext | undefined,
  isCall: (sessionId: string, toolUseId: string) => boolean,
): EditorBuffers {
  return (toolUseId, sessionId) => {
    const connected = client();
    if (!isCall(sessionId, toolUseId) || !connected) return undefined;
    return {
      read: async (path, signal) =>
        (await connected.request(
          acp.methods.client.fs.readTextFile,
          { sessionId, path },
          { cancellationSignal: signal },
        )).content,
      write: async (path, content, signal) => {
        await connected.request(
          acp.methods.client.fs.writeTextFile,
          { sessionId, path, content },
          { cancellationSignal: signal },
        );
      },
    };
  };
}
