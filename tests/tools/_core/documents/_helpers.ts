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
import { tempDir } from "../../../_temp.ts";

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

/**
 * A copy of a ZIP archive whose central directory declares `size` as the
 * unpacked size of `name`: a ZIP bomb's header without its bulk.
 */
export function withDeclaredSize(
  zip: Uint8Array,
  name: string,
  size: number,
): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const encoded = new TextEncoder().encode(name);
  for (let i = 0; i + 46 <= out.length; i++) {
    if (view.getUint32(i, true) !== 0x02014b50) continue;
    const length = view.getUint16(i + 28, true);
    const entry = out.subarray(i + 46, i + 46 + length);
    if (length === encoded.length && entry.every((b, j) => b === encoded[j])) {
      view.setUint32(i + 24, size, true);
      return out;
    }
  }
  throw new Error(`${name} is not in the archive`);
}

/** A CFB (OLE2) container's first bytes, as a legacy or encrypted Office file starts. */
export function cfb(streamName?: string): Uint8Array {
  const magic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
  const name = streamName
    ? [...streamName].flatMap((c) => [c.charCodeAt(0), 0])
    : [];
  const out = new Uint8Array(1536);
  out.set(magic);
  out.set(name, 1024);
  return out;
}

/** Runs `fn` with a fresh temporary folder, removed afterwards. */
export async function withTempDir(
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await tempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
