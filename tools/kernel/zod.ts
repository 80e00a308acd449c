/**
 * The `z` tool modules build their input schemas with: zod's own on the
 * main thread, which validates every call's input, and an inert stand-in
 * in a sandbox worker, which never validates: it runs `run` on input the
 * main thread has parsed already. zod costs a worker some 30 ms to load
 * and 4.5 MB of heap (two warm workers, and a one-off worker for each
 * call with an approved outside path), for schemas the worker only builds
 * as a tool module's top level runs.
 *
 * The stand-in takes any builder chain (`z.object({...}).describe(...)`)
 * and builds nothing. Whatever would read a schema throws: validating
 * (`parse`, `safeParse` and their async forms), listing its keys or
 * properties (`Object.keys(schema.shape)`), iterating it, `instanceof`,
 * turning it into a string or JSON. Code that came to rely on a schema in
 * a worker fails loudly instead of going on with an empty answer. An extra tool module
 * (`--tool-module`) that imports zod itself gets zod's own everywhere.
 *
 * Which one a thread gets is decided once, when this module is first
 * evaluated there: the sandbox worker's entry (`session/_tool_worker_entry.js`)
 * marks its global scope with {@linkcode SANDBOX_WORKER} before it loads
 * any tool.
 *
 * @module
 */

import type { z as Zod } from "zod";

/** The mark a sandbox worker's entry sets on its global scope (to `true`). */
export const SANDBOX_WORKER: unique symbol = Symbol.for(
  "wave.sandbox_worker",
) as never;

/** What reads a schema rather than builds one: each throws. */
const READERS = new Set<PropertyKey>([
  "parse",
  "safeParse",
  "parseAsync",
  "safeParseAsync",
  "decode",
  "encode",
  "safeDecode",
  "safeEncode",
  "toJSON",
  "toString",
  "valueOf",
  Symbol.toPrimitive,
  Symbol.iterator,
  Symbol.asyncIterator,
  Symbol.hasInstance,
]);

/** A builder chain that builds nothing and refuses to validate. */
function inertZod(): typeof Zod {
  const refuse = () => {
    throw new Error(
      "zod is not loaded in a sandbox worker: the main thread validates each call's input",
    );
  };
  const inert: unknown = new Proxy(function () {}, {
    get: (_target, key) => {
      if (READERS.has(key)) return refuse;
      // Not a thenable: `await` of a schema is the schema.
      if (key === "then") return undefined;
      return inert;
    },
    apply: () => inert,
    construct: () => inert as object,
    has: refuse,
    ownKeys: refuse,
    getOwnPropertyDescriptor: refuse,
  });
  return inert as typeof Zod;
}

/** zod's `z`, or in a sandbox worker its inert stand-in (see the module doc). */
export const z: typeof Zod =
  (globalThis as Record<symbol, unknown>)[SANDBOX_WORKER] === true
    ? inertZod()
    : (await import("zod")).z;
