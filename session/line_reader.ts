/**
 * Splits the parent's byte stream into protocol lines (docs/protocol.md
 * "Transport"): `\n`-terminated, a trailing `\r` dropped, UTF-8 checked, and
 * lines over the byte limit dropped without being held in memory whole.
 *
 * @module
 */

/** One input line, numbered from 1, or why it could not be read. */
export type InputLine =
  | { line: number; text: string }
  | { line: number; error: "invalid_json" | "line_too_long"; message: string };

/**
 * Reads lines from `stream`.
 *
 * Guarantees: every `\n`-terminated line (and a final unterminated one) is
 * yielded exactly once, in order; a line longer than `maxBytes` yields
 * `line_too_long` and at most `maxBytes` of it is ever buffered; bytes that
 * are not UTF-8 yield `invalid_json`. Blank lines are skipped but counted.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let parts: Uint8Array[] = [];
  let size = 0;
  let dropping = false;
  let lineNo = 0;

  const finish = (): InputLine | undefined => {
    lineNo++;
    if (dropping) {
      dropping = false;
      return {
        line: lineNo,
        error: "line_too_long",
        message:
          `line ${lineNo} is longer than ${maxBytes} bytes (--max-line-bytes); it was dropped`,
      };
    }
    let bytes: Uint8Array;
    if (parts.length === 1) bytes = parts[0];
    else {
      bytes = new Uint8Array(size);
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.length;
      }
    }
    parts = [];
    size = 0;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) {
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return {
        line: lineNo,
        error: "invalid_json",
        message: `line ${lineNo} is not valid UTF-8`,
      };
    }
    if (text.trim() === "") return undefined;
    return { line: lineNo, text };
  };

  const take = (chunk: Uint8Array) => {
    if (dropping) return;
    if (size + chunk.length > maxBytes) {
      dropping = true;
      parts = [];
      size = 0;
      return;
    }
    // Copy: the stream may reuse its buffer.
    parts.push(chunk.slice());
    size += chunk.length;
  };

  for await (const chunk of stream) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        take(chunk.subarray(start));
        break;
      }
      take(chunk.subarray(start, nl));
      const out = finish();
      if (out) yield out;
      start = nl + 1;
    }
  }
  if (size > 0 || dropping) {
    const out = finish();
    if (out) yield out;
  }
}

/**
 * Reads a few lines once through {@linkcode readLines} from a file in
 * `dir` (made and removed here), whose byte stream is of the kind stdin's
 * is: the code of the stream and of the splitter is compiled on its first
 * use (a few milliseconds), and this spends that in idle time instead of
 * in the parent's first line. Never fails.
 */
export async function warmLineReader(dir: string): Promise<void> {
  const path = `${dir}/input-warmup.jsonl`;
  try {
    Deno.writeTextFileSync(
      path,
      '{"type":"control_request","request_id":"w","request":{}}\n'.repeat(3),
    );
    // The stream closes the file at its end.
    const file = Deno.openSync(path);
    for await (const _ of readLines(file.readable, 1 << 20)) {
      // Nothing: only the reading matters.
    }
  } catch {
    /* a read-only WAVE_HOME: nothing warmed */
  } finally {
    try {
      Deno.removeSync(path);
    } catch { /* never made */ }
  }
}
