/**
 * `wave acp`: the session core as an Agent Client Protocol agent on stdio
 * (issue 17), for editors (Zed's `agent_servers`, JetBrains, Neovim). The
 * CLI loads this entry only for `wave acp`, so the ACP SDK stays out of the
 * stream-json start-up.
 *
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import type { Config } from "../../session/config.ts";
import type { ServeOptions, SessionIO } from "../../session/server.ts";
import { AcpFront } from "./_agent.ts";

/**
 * Serves ACP until the client closes the connection (stdin ends) or
 * `signal` aborts, and resolves with the exit code as the stream-json
 * `serve` does: 0 after the input ended, 1 after `signal`. Either way
 * approvals still waiting are denied, turns interrupted, and every worker
 * and child process group ended before it resolves. `io.stdout` carries
 * ACP's JSON-RPC only; logs go to stderr. A session's workspace is the
 * `cwd` its client gives (`session/new`, `session/load`).
 */
export async function serve(
  config: Config,
  io: SessionIO,
  options: ServeOptions,
  signal?: AbortSignal,
): Promise<number> {
  const front = new AcpFront(config, options.modules, options.onWarmup);
  // The SDK writes one message a chunk; a second answer to an initialize
  // already answered (early.ts) is not written.
  let answered = options.answered;
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    async write(bytes) {
      if (answered !== undefined) {
        let message;
        try {
          message = JSON.parse(decoder.decode(bytes));
        } catch { /* not one whole message: written as it is */ }
        if (message?.id === answered && !("method" in message)) {
          answered = undefined;
          return;
        }
      }
      for (let at = 0; at < bytes.length;) {
        at += await io.stdout.write(bytes.subarray(at));
      }
    },
  });
  const connection = front.app().connect(
    acp.ndJsonStream(output, io.stdin, {
      maxMessageBytes: config.maxLineBytes,
    }),
  );
  const how = await Promise.race([
    connection.closed.then(() => "eof" as const, () => "eof" as const),
    new Promise<"signal">((resolve) => {
      if (signal?.aborted) resolve("signal");
      else {signal?.addEventListener("abort", () => resolve("signal"), {
          once: true,
        });}
    }),
  ]);
  await front.close(
    how === "eof"
      ? "the ACP client closed the connection, so no approval can arrive"
      : "wave is shutting down",
  );
  if (how === "signal") connection.close();
  return how === "signal" ? 1 : 0;
}
