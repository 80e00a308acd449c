/**
 * Helpers of the document reader tests: the fixtures, a read of one, and
 * the ToolError a failed read must be.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ToolError } from "../../../../tools/kernel/tool_error.ts";
import {
  type DocumentKind,
  type DocumentPart,
  readDocument,
} from "../../../../tools/_core/documents/mod.ts";

/** The folder of the committed document fixtures. */
export const FIXTURES = fileURLToPath(
  new URL("../../../fixtures/documents/", import.meta.url),
);

/** Reads a fixture (or any path) as `kind`, shown as its base name. */
export function read(
  path: string,
  kind: DocumentKind,
  range?: { offset: number; limit: number },
  signal: AbortSignal = new AbortController().signal,
): Promise<DocumentPart> {
  const real = path.startsWith("/") ? path : FIXTURES + path;
  return readDocument(
    real,
    real.slice(real.lastIndexOf("/") + 1),
    kind,
    range,
    signal,
  );
}

/** Asserts that `promise` rejects with a ToolError of exactly this message and `structured.type`. */
export async function assertToolError(
  promise: Promise<unknown>,
  message: string,
  type: string,
): Promise<void> {
  const error = await promise.then(
    () => assert.fail("expected a ToolError"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ToolError, `not a ToolError: ${error}`);
  assert.equal(error.message, message);
  assert.equal((error.structured as { type: string }).type, type);
}

/**
 * A signal that reads as aborted from its `after`-th look on: shows that a
 * reader looks between units without timing anything.
 */
export function abortsAfter(after: number): AbortSignal {
  const signal = new AbortController().signal;
  let looks = 0;
  Object.defineProperty(signal, "aborted", { get: () => ++looks > after });
  return signal;
}
