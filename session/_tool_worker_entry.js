// @ts-check
/// <reference lib="deno.worker" />
/**
 * The first code a sandbox worker runs: plain JavaScript, with nothing to
 * transpile, that confines the worker (its first message, `confine`) and
 * only then imports the worker's own code (`_tool_worker.ts`).
 *
 * The order is the point. Landlock holds the thread that restricts itself
 * and the threads it starts afterwards; the asynchronous file ops run on
 * the runtime's blocking pool, and Deno starts threads there when it must
 * transpile a module (a cold or unwritable cache, a source just changed).
 * A worker that loaded TypeScript before confining itself kept such threads
 * for their keep-alive (10 s), and an extra tool module's
 * `await Deno.readTextFile` ran on them outside its rules
 * (tests/e2e/sandbox_test.ts, "layer 2 (Landlock)" with a cold cache).
 *
 * Messages that come while the worker's code loads wait here and are
 * handed on in order.
 *
 * @module
 */

import { restrictThread } from "../tools/kernel/_landlock.js";

// Tool modules build their schemas with an inert stand-in of zod here
// (tools/kernel/zod.ts says why): marked before any of them loads.
/** @type {Record<symbol, unknown>} */ (globalThis)[
  Symbol.for("wave.sandbox_worker")
] = true;

// stdout carries protocol lines only: a tool's stray console.log must not reach it.
console.log = console.error;
console.info = console.error;
console.debug = console.error;
console.table = console.error;
console.dir = console.error;

/** @import { FromWorker, ToWorker } from "./_worker_protocol.ts" */

// A worker that ends itself is not seen to end by the main thread: its
// calls would wait for their deadline, a command's for ever. A tool that
// ends it (`self.close()`, `Deno.exit()`, Node's `process.exit()`, which
// calls it) says so first, and the main thread answers them.
const closeWorker = self.close.bind(self);
/** @param {string} how */
function ending(how) {
  /** @type {FromWorker} */
  const message = { type: "ending", how };
  self.postMessage(message);
  closeWorker();
}
self.close = () => ending("self.close()");
Deno.exit = (/** @type {number | undefined} */ code) => {
  ending(`Deno.exit(${code ?? ""})`);
  throw new Error("the sandbox worker is ending");
};

/** @type {ToWorker[]} */
const waiting = [];
let loading = false;

/**
 * Restricts this worker's thread to its roots and gives up FFI. What the
 * tools do on this thread, and the threads and programs it starts from now
 * on, is held by the kernel. Returns why it could not, or null.
 *
 * @param {Extract<ToWorker, { type: "confine" }>["rules"]} rules
 * @returns {string | null}
 */
function confine(rules) {
  const why = restrictThread(rules);
  try {
    Deno.permissions.revokeSync({ name: "ffi" });
  } catch { /* never granted */ }
  return why;
}

/**
 * The worker could not be confined: it says why and from then on takes no
 * message, loads nothing and runs no call (the executor ends it and
 * answers its calls). Fails closed: a call that came meanwhile is dropped.
 *
 * @param {string} why
 */
function refuse(why) {
  waiting.length = 0;
  self.onmessage = null;
  /** @type {FromWorker} */
  const message = { type: "unconfined", why };
  self.postMessage(message);
}

/** Imports the worker's code and prepares it, then hands it what came meanwhile, in order. */
async function load() {
  const { handle, prepare } = await import("./_tool_worker.ts");
  await prepare();
  if (self.onmessage === null) return; // refused meanwhile
  self.onmessage = (/** @type {MessageEvent<ToWorker>} */ event) => {
    if (event.data.type === "confine") {
      refuse("confine came after the worker's code had loaded");
    } else handle(event.data);
  };
  for (const message of waiting.splice(0)) handle(message);
}

self.onmessage = (/** @type {MessageEvent<ToWorker>} */ event) => {
  const message = event.data;
  if (message.type === "confine") {
    // The executor sends it first; later, the worker's code may have
    // started threads the restriction would not hold.
    const why = loading
      ? "confine came after the worker's code had begun to load"
      : confine(message.rules);
    if (why) return refuse(why);
  } else waiting.push(message);
  if (!loading) {
    loading = true;
    load();
  }
};
