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
  /**
   * Every byte of the original stream, the first line's included, unread;
   * made when first read (so the line can be answered before).
   */
  readonly stream: ReadableStream<Uint8Array>;
}

/**
 * A file read directly (`Deno.stdin`): its first bytes are read with
 * `readSync`, and only the rest through `readable`, whose stream machinery
 * costs milliseconds to set up; the first line is answered before that.
 */
export interface ByteSource {
  /**
   * Reads what is there, waiting for it on this thread: nothing else runs
   * before the first line is answered, and an asynchronous read costs a
   * round of the event loop more. Throwing `Deno.errors.WouldBlock` (a
   * non-blocking pipe) sends the reading to `readable`.
   */
  readSync(buffer: Uint8Array): number | null;
  /** Reads what is there, or waits for it without holding the thread (`peekFirstLine`'s `wait: "yield"`). */
  read?(buffer: Uint8Array): Promise<number | null>;
  readonly readable: ReadableStream<Uint8Array>;
}

/**
 * `bytes` as text, or null when they are not UTF-8. ASCII (what a client's
 * `initialize` is) is decoded without a TextDecoder, whose first use
 * costs a fifth of a millisecond.
 */
function utf8(bytes: Uint8Array): string | null {
  if (bytes.length <= ASCII_FAST && bytes.every((b) => b < 0x80)) {
    return String.fromCharCode(...bytes);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null; // not UTF-8: no line to answer; the front says why
  }
}

/** The longest line decoded by {@linkcode utf8}'s ASCII path (one call's arguments). */
const ASCII_FAST = 16 * 1024;

function isByteSource(
  source: ReadableStream<Uint8Array> | ByteSource,
): source is ByteSource {
  return typeof (source as Partial<ByteSource>).readSync === "function";
}

/** How much one direct read of a {@linkcode ByteSource} takes at most. */
const READ_BYTES = 64 * 1024;

/**
 * Reads `source` up to its first newline, at most `maxBytes`. Never loses
 * a byte: what was read is the start of the returned stream, then the
 * rest follows as it arrives. A {@linkcode ByteSource} is read holding
 * the thread (`wait: "block"`, nothing else is to run first), or with
 * `wait: "yield"` asynchronously (the session loads meanwhile).
 */
export async function peekFirstLine(
  source: ReadableStream<Uint8Array> | ByteSource,
  maxBytes: number,
  wait: "block" | "yield" = "block",
): Promise<PeekedStream> {
  // Not `instanceof ReadableStream`: the first touch of that global loads
  // Deno's streams, milliseconds before the line could be answered.
  const direct = isByteSource(source);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const rest = () => reader ??= (direct ? source.readable : source).getReader();
  // A source that cannot be read synchronously (a non-blocking pipe) is
  // read through its stream.
  let streaming = !direct;
  const next = async (): Promise<Uint8Array | null> => {
    if (direct && !streaming) {
      const buffer = new Uint8Array(READ_BYTES);
      if (wait === "yield" && source.read) {
        const n = await source.read(buffer);
        return n === null ? null : buffer.subarray(0, n);
      }
      if (wait === "yield") streaming = true;
      else {
        try {
          const n = source.readSync(buffer);
          return n === null ? null : buffer.subarray(0, n);
        } catch (error) {
          if (!(error instanceof Deno.errors.WouldBlock)) throw error;
          streaming = true;
        }
      }
    }
    const { value, done } = await rest().read();
    return done ? null : value;
  };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let line: string | null = null;
  let ended = false;
  while (true) {
    const value = await next();
    if (value === null) {
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
      line = utf8(bytes);
      break;
    }
    size += value.length;
    if (size > maxBytes) break;
  }
  const read = chunks;
  let stream: ReadableStream<Uint8Array> | undefined;
  // Made when first asked for, after the line is answered: the first
  // ReadableStream of a process costs milliseconds (Deno's streams load).
  const handOn = () =>
    stream ??= new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of read) controller.enqueue(chunk);
        if (ended) controller.close();
      },
      async pull(controller) {
        if (ended) return;
        const { value, done } = await rest().read();
        if (done) {
          ended = true;
          controller.close();
        } else controller.enqueue(value);
      },
      cancel(reason) {
        return rest().cancel(reason);
      },
    });
  return {
    line,
    get stream() {
      return handOn();
    },
  };
}

/** The input handed on after {@linkcode answerFirstLine}, and the id of the request it answered, if it did. */
export interface EarlyAnswered {
  stdin: ReadableStream<Uint8Array>;
  answered?: string | number;
}

/**
 * Reads the first line of `source` and, when `answer` makes an answer of
 * it (a client's `initialize`), writes that at once; hands on the whole
 * input, that line included, with the id it answered.
 */
export async function answerFirstLine(
  source: ReadableStream<Uint8Array> | ByteSource,
  maxBytes: number,
  answer: (line: string) => { id: string | number; answer: string } | null,
  write: (text: string) => void,
): Promise<EarlyAnswered> {
  const peeked = await peekFirstLine(source, maxBytes);
  const early = peeked.line === null ? null : answer(peeked.line);
  if (!early) return { stdin: peeked.stream };
  write(early.answer + "\n");
  return { stdin: peeked.stream, answered: early.id };
}
