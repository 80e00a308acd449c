/**
 * `wave mcp`: the session core as an MCP server (issue 17), over stdio or,
 * with `--listen HOST:PORT`, streamable HTTP on a loopback address. The
 * CLI loads this entry only for `wave mcp`, so the MCP SDK stays out of
 * the stream-json start-up.
 *
 * @module
 */

import { noParentRequests, openCore } from "../../session/core.ts";
import type { Config } from "../../session/config.ts";
import type { ServeOptions, SessionIO } from "../../session/server.ts";
import { serveHttp } from "./_http.ts";
import { McpFront } from "./_server.ts";
import { LineTransport } from "./_stdio_transport.ts";

/**
 * Serves MCP until the input ends (stdio) or `signal` aborts, and
 * resolves with the exit code as the stream-json `serve` does: 0 after the
 * input ended and the calls in flight finished (approvals still waiting
 * are denied), 1 after `signal` (everything is interrupted). Either way
 * every worker is ended and every child process group killed before it
 * resolves. `io.stdout` carries JSON-RPC only; logs go to stderr.
 */
export async function serve(
  config: Config,
  io: SessionIO,
  options: ServeOptions,
  signal?: AbortSignal,
): Promise<number> {
  const front = new McpFront(config);
  const opening = openCore(config, {
    modules: options.modules,
    started: options.started,
    parent: front.parent,
    requests: noParentRequests("wave mcp"),
    onEvent: front.onEvent,
  });
  // On stdio the client's initialize is answered while the tools load.
  const transport = config.listen
    ? undefined
    : new LineTransport(io, config.maxLineBytes, options.answered);
  if (transport) await front.newServer().connect(transport);
  const core = await opening;
  front.attach(core);
  // Idle time until the first call: the tools' workers start now, as they
  // do for stream-json; each step waits while a call runs.
  const warmup = new AbortController();
  // Its sessions' commands spill each into its own directory: the first
  // command's process is made for the session (on stdio, the one there is).
  const warming = core.calls.prewarm({
    signal: warmup.signal,
    onCall: options.onWarmup?.call,
    firstCommand: false,
  }).then(() => options.onWarmup?.ended?.());
  if (transport) void front.prepareCommands();
  for (const warning of await core.warnings()) {
    console.error(`wave: warning: ${warning}`);
  }

  const stop = new Promise<"signal">((resolve) => {
    if (signal?.aborted) resolve("signal");
    else {
      signal?.addEventListener("abort", () => resolve("signal"), {
        once: true,
      });
    }
  });
  let how: "eof" | "signal";
  if (config.listen) {
    await serveHttp(
      front,
      config.listen,
      signal ?? new AbortController().signal,
      config.listenIdleMs,
    );
    how = "signal";
  } else {
    how = await Promise.race([
      transport!.ended.then(() => "eof" as const),
      stop,
    ]);
  }
  if (how === "eof") {
    core.approvals.close(
      "the MCP client closed its input, so no approval can arrive",
    );
    // Every request read gets its answer (the SDK's own, such as a late
    // initialize's, too) before the transport closes.
    const finished = await Promise.race([
      core.inFlight.settle().then(() => transport!.answered)
        .then(() => "settled" as const),
      stop,
    ]);
    if (finished === "signal") how = "signal";
  }
  if (how === "signal") {
    core.approvals.close("wave is shutting down");
    core.inFlight.interrupt();
    await core.inFlight.settleWithin(1500);
  }
  warmup.abort();
  await front.closeAll();
  await core.close();
  // Its call in flight, if any, ended with the workers: nothing of the
  // warm-up runs after serve resolves.
  await warming;
  return how === "signal" ? 1 : 0;
}
