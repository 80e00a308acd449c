/**
 * The first line of a stream, read before anything heavy is loaded, with
 * the stream handed on whole: `wave mcp` and `wave acp` answer a client's
 * `initialize` from it at once (issue 17's start-up), and their SDK then
 * reads every line, that one included.
 *
 * Runs before the first answer: it imports nothing.
 *
 * @module
 */

/** What {@linkcode peekFirstLine} read. */
export interface PeekedStream {
  /** The first line (UTF-8, without its newline), or null: none within the limit, or the stream ended first. */
  line: string | null;
  /** Every byte of the original stream, the first line's included, unread. */
  stream: ReadableStream<Uint8Array>;
}

/**
 * Reads `stream` up to its first newline, at most `maxBytes`. Never loses
 * a byte: what was read is the start of the returned stream, then the
 * rest follows as it arrives.
 */
export async function peekFirstLine(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<PeekedStream> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let line: string | null = null;
  let ended = false;
  while (true) {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    chunks.push(value);
    const nl = value.indexOf(10);
    if (nl !== -1) {
      const bytes = new Uint8Array(size + nl);
      let at = 0;
      for (const chunk of chunks.slice(0, -1)) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      bytes.set(value.subarray(0, nl), at);
      try {
        line = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch { /* not UTF-8: no line to answer; the front says why */ }
      break;
    }
    size += value.length;
    if (size > maxBytes) break;
  }
  const read = chunks;
  return {
    line,
    stream: new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of read) controller.enqueue(chunk);
        if (ended) controller.close();
      },
      async pull(controller) {
        if (ended) return;
        const { value, done } = await reader.read();
        if (done) {
          ended = true;
          controller.close();
        } else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    }),
  };
}
