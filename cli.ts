/**
 * The wave binary: flags → config → the stdio session (docs/protocol.md),
 * or, for `wave mcp` and `wave acp`, that front's entry (`fronts/`).
 *
 * `system/init` is written before anything heavy is loaded, so a parent
 * sees wave alive within a few milliseconds of an empty Deno start. The
 * other fronts load their SDK only in their entry.
 *
 * @module
 */

import { parseFlags } from "./session/config.ts";
import { initMessage } from "./session/init.ts";
import { claimTranscript, transcriptPath } from "./session/transcript_claim.ts";
import { builtinRef, TOOLSET_NAMES, TOOLSETS } from "./tools/toolsets.ts";
import { boundIn } from "./tools/kernel/modes.ts";
import { peekFirstLine } from "./session/_first_line.ts";
// Small, and needed before the first answer of wave mcp and wave acp.
import { answerEarly as mcpEarly } from "./fronts/mcp/early.ts";
import { answerEarly as acpEarly } from "./fronts/acp/early.ts";
import type { StartedCore } from "./session/core_start.ts";

// stdout carries protocol lines only.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

const encoder = new TextEncoder();

/**
 * `--debug-file`: every line wave logs (to stderr) is appended to `file`
 * too, with its time. The file is opened once, at start: a command that
 * later puts a link in its place (it may lie in the workspace) does not
 * send wave's log into a file the link names.
 */
function logToo(
  file: string,
  config: { sessionId: string; workspace: string },
): void {
  const log = console.error;
  let sink: Deno.FsFile | undefined;
  try {
    sink = Deno.openSync(file, { append: true, create: true, mode: 0o600 });
  } catch (error) {
    log(`wave: cannot open the debug file ${file}: ${error}`);
    return;
  }
  console.error = (...data: unknown[]) => {
    log(...data);
    const text = data.map((d) =>
      typeof d === "string" ? d : Deno.inspect(d, { colors: false })
    ).join(" ");
    try {
      const bytes = encoder.encode(`${new Date().toISOString()} ${text}\n`);
      let offset = 0;
      while (offset < bytes.length) {
        offset += sink.writeSync(bytes.subarray(offset));
      }
    } catch { /* the log is best effort; stderr has it */ }
  };
  console.log = console.info = console.debug = console.error;
  console.error(`wave: session ${config.sessionId} in ${config.workspace}`);
}

/** How long the session's import waits for a first line to send early. */
const EARLY_LINE_WAIT_MS = 20;

/**
 * Resolves after `ms`. Through AbortSignal.timeout, not setTimeout: the
 * first setTimeout of a process costs about 5 ms (Deno 2.9), which would
 * stand between a first line and its early request; this costs 0.4 ms.
 */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) =>
    AbortSignal.timeout(ms).addEventListener("abort", () => resolve(), {
      once: true,
    })
  );
}

/**
 * How long the session's import waits, after an early request was sent,
 * for its answer to begin. The import holds the thread, and a request
 * still connecting (DNS, TCP, TLS) or writing would make no progress
 * meanwhile; the model then works while the session loads. A local server
 * answers within milliseconds; a remote API has connected and has the
 * request long before it answers.
 */
const EARLY_SEND_WAIT_MS = 150;

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function writeSync(out: typeof Deno.stdout, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += out.writeSync(bytes.subarray(offset));
}

// `wave report`: a page of a past session; its renderers load only here.
// (Made when used: the first URL parsed costs a fifth of a millisecond.)
const reportModule = () =>
  new URL("./session/report/command.ts", import.meta.url).href;
type ReportModule = typeof import("./session/report/command.ts");
if (Deno.args[0] === "report") {
  const { reportCommand } = await import(reportModule()) as ReportModule;
  const done = await reportCommand(Deno.args.slice(1), Deno.env);
  if (done.stdout) writeSync(Deno.stdout, done.stdout);
  if (done.stderr) writeSync(Deno.stderr, done.stderr);
  Deno.exit(done.code);
}

const TOOL_RULES = new URL("./session/tool_rules.ts", import.meta.url).href;
const outcome = parseFlags(Deno.args, Deno.env, TOOLSET_NAMES);
if (outcome.kind === "exit") {
  if (outcome.stdout) writeSync(Deno.stdout, outcome.stdout);
  if (outcome.stderr) writeSync(Deno.stderr, outcome.stderr);
  Deno.exit(outcome.code);
}
const { config } = outcome;
// A session that has a transcript (resumed, continued, or named by
// --session-id) is this process's alone: another wave appending to it too
// would interleave two histories in one transcript.
const transcriptFile = transcriptPath(config.waveHome, config.sessionId);
if (
  config.persistSession && !config.forkFrom && isFile(transcriptFile) &&
  !claimTranscript(transcriptFile)
) {
  writeSync(
    Deno.stderr,
    `wave: session ${config.sessionId} is open in another wave process; resume it once that one has ended, or fork it (--fork-session)\n`,
  );
  Deno.exit(2);
}
const entries = TOOLSETS[config.toolset];
if (config.debugFile) logToo(config.debugFile, config);

const streamJson = config.front === "stream-json";
// With extra tool modules the names are only known once they load: serve writes init then.
// The other fronts' stdout carries their own protocol only.
// With MCP servers, init says how each fared: serve writes it once they have.
const initSent = streamJson && config.toolModules.length === 0 &&
  Object.keys(config.mcpServers).length === 0;
/** The tools system/init named, when the CLI wrote it. */
let announced: string[] = [];
if (initSent) {
  let offered = (_name: string) => true;
  // --tools and bare --disallowedTools names shape the list; their module
  // loads only then.
  if (config.tools || config.toolRules.deny.length > 0) {
    const { isOffered, parseToolRule } = await import(
      TOOL_RULES
    ) as typeof import("./session/tool_rules.ts");
    const deny = config.toolRules.deny.map(parseToolRule);
    offered = (name) => isOffered(name, config.tools, deny);
  }
  announced = entries.filter((e) =>
    boundIn(e.mode, config.mode) && offered(e.name)
  ).map((e) => e.name);
  writeSync(
    Deno.stdout,
    JSON.stringify(initMessage(config, announced)) + "\n",
  );
}

// wave mcp, wave acp: the client's initialize is answered now, before the
// SDK and the tools load; the front reads it too, and does not answer twice.
let stdin: ReadableStream<Uint8Array> | undefined;
let answered: string | number | undefined;
// (Not with --listen: then stdin is no MCP input, and may be a terminal.)
// Read from Deno.stdin itself: its stream costs milliseconds to set up,
// which the answer need not wait for.
if (!streamJson && !config.listen) {
  const answerEarly = config.front === "mcp" ? mcpEarly : acpEarly;
  ({ stdin, answered } = await answerEarly(
    config,
    Deno.stdin,
    (text) => writeSync(Deno.stdout, text),
  ));
}

// The first user turn's model request goes out before the session loads
// (session/early_request.ts), where it is fully known now. The session's
// import holds the thread for tens of milliseconds, and no request makes
// progress meanwhile: a first line that comes at once, as parents send it,
// is read and its request sent first (until its answer begins, or for
// EARLY_SEND_WAIT_MS); a parent that waits longer than EARLY_LINE_WAIT_MS
// does not make the session wait (its line is read by then or later).
const EARLY = new URL("./session/early_request.ts", import.meta.url).href;
type EarlyModule = typeof import("./session/early_request.ts");
let earlyStdin: ReadableStream<Uint8Array> | undefined;
let early: ReturnType<EarlyModule["sendEarly"]> | undefined;
if (initSent && config.model && !config.listen) {
  // The read starts first, and the module loads while the line comes.
  const peeked = peekFirstLine(Deno.stdin, config.maxLineBytes, "yield");
  const {
    earlyRequestBlocker,
    proxyVariable,
    sendEarly,
    streamOf,
    warmFetch,
  } = await import(EARLY) as EarlyModule;
  if (earlyRequestBlocker(config, Deno.env) === null) {
    // Through fetch only where a proxy is set (fetch honours it); else
    // over a connection of its own, opened now.
    const viaFetch = proxyVariable(Deno.env) !== null;
    if (viaFetch) warmFetch();
    const sending = sendEarly(
      config,
      announced,
      peeked,
      viaFetch ? fetch : undefined,
    );
    early = sending;
    const request = await Promise.race([
      sending.lineRead.then(() => sending.request),
      delay(EARLY_LINE_WAIT_MS).then(() => undefined),
    ]);
    if (request) {
      await Promise.race([request.responded, delay(EARLY_SEND_WAIT_MS)]);
    }
  }
  // Made now, after the request: the first ReadableStream of a process
  // loads Deno's streams (~2 ms).
  earlyStdin = streamOf(peeked);
}

// A small module (the session's graph has it too). The config holds the
// model key now, and the early request has it: no later reader needs the
// variables, and they are gone before wave starts any worker or process.
const ENVIRONMENT = new URL("./session/environment.ts", import.meta.url).href;
const {
  capabilityBound,
  forgetModelKeys,
  forgetNodeCoverage,
  unconfinedRootWarning,
} = await import(ENVIRONMENT) as typeof import("./session/environment.ts");
forgetModelKeys(Deno.env);
forgetNodeCoverage(Deno.env);

// The file readers' worker boots now, on its own thread, and loads the
// read-only tools while this one loads the session: a first Read or Grep
// soon after init does not wait for both in turn. (ACP opens a core per
// session, each in its own workspace; it starts its own.)
const CORE_START = new URL("./session/core_start.ts", import.meta.url).href;
let started: StartedCore | undefined;
if (config.front !== "acp") {
  const { bootReaders, startCore } = await import(
    CORE_START
  ) as typeof import("./session/core_start.ts");
  try {
    started = await startCore(config);
    await bootReaders(
      started,
      entries.filter((e) => e.mode === "ask").map(builtinRef),
    );
  } catch { /* the session's core starts its own, and says what failed */ }
}

// A computed specifier: Deno prepares every module a literal import() can
// reach before the program starts, and the session's graph (the tools, zod,
// the model SDKs) would double the time to system/init. scripts/compile.ts
// --includes it.
const SERVER = new URL("./session/server.ts", import.meta.url).href;
// bubblewrap's probe starts now and runs while the session loads (its
// module is in the session's graph, so it loads no sooner than needed).
const SANDBOX = new URL("./session/command_sandbox.ts", import.meta.url).href;
import(SANDBOX).then((
  { CommandSandbox }: typeof import("./session/command_sandbox.ts"),
) => CommandSandbox.for(config)).catch(() => {});
const FRONT = new URL(`./fronts/${config.front}/main.ts`, import.meta.url).href;
const { serve } = await import(
  streamJson ? SERVER : FRONT
) as typeof import("./session/server.ts");

const warning = unconfinedRootWarning(
  config.shellSandbox,
  Deno.uid(),
  capabilityBound(),
);
if (warning) writeSync(Deno.stderr, `wave: warning: ${warning}\n`);

const shutdown = new AbortController();
let exitCode = 0;
for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
  Deno.addSignalListener(signal, () => {
    exitCode = code;
    shutdown.abort();
  });
}

/** `--report FILE`: the session's page, however it ended. */
async function writeSessionReport(): Promise<void> {
  if (!config.reportFile) return;
  const { reportAtEnd } = await import(reportModule()) as ReportModule;
  await reportAtEnd(config.waveHome, config.sessionId, config.reportFile);
}

let code: number;
try {
  const result = await serve(
    config,
    {
      stdin: stdin ?? earlyStdin ?? Deno.stdin.readable,
      stdout: Deno.stdout,
    },
    {
      modules: [...entries.map(builtinRef), ...config.toolModules],
      initSent,
      answered,
      early: early?.request,
      started,
    },
    shutdown.signal,
  );
  code = result === 0 ? 0 : exitCode || result;
} catch (error) {
  console.error("wave: fatal:", error);
  code = 1;
}
await writeSessionReport();
Deno.exit(code);
