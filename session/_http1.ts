/**
 * One HTTP/1.1 POST over a connection of its own, for the early first
 * request (`early_request.ts`): a first `fetch` in a process loads Deno's
 * request, header, response and stream classes (~7 ms of the thread,
 * between `system/init` and the request), where a connection and a write
 * cost under 1 ms. The connection is opened before the request is known
 * (when the first line is still on its way) and the request is written
 * as `fetch` writes it: the same headers, `fetch`'s own included
 * (`accept-encoding`, `accept-language`, `accept` when not given).
 *
 * The {@linkcode Response} is made only when asked for (when the SDK takes
 * it over, after the session loaded): until then nothing of `fetch`'s
 * machinery loads. Its body is the response's, its framing (length,
 * chunks, the connection's end) and its encoding (gzip, deflate, br)
 * undone, as `fetch` undoes them.
 *
 * Runs before the session loads: it imports nothing.
 *
 * @module
 */

/** The status line and headers of a response. */
interface Head {
  status: number;
  statusText: string;
  headers: [string, string][];
}

/** The headers `fetch` adds to every request (Deno 2.9), when not given. */
const FETCH_HEADERS: [string, string][] = [
  ["accept", "*/*"],
  ["accept-encoding", "gzip,br"],
  ["accept-language", "*"],
];

/** The longest response head read, in bytes. */
const MAX_HEAD = 64 * 1024;
/** Bytes one read of the connection takes at most. */
const READ_BYTES = 64 * 1024;

/** Opens a connection to `url`'s host (TLS for https, offering HTTP/1.1 only). */
export function connectTo(url: URL): Promise<Deno.Conn> {
  const https = url.protocol === "https:";
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port ? Number(url.port) : https ? 443 : 80;
  const connection: Promise<Deno.Conn> = https
    ? Deno.connectTls({ hostname, port, alpnProtocols: ["http/1.1"] })
    : Deno.connect({ hostname, port });
  connection.catch(() => {});
  return connection;
}

/** `bytes` a character each, as fetch reads a header (TextDecoder's "latin1" is windows-1252). */
function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.length; at += 8192) {
    text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  }
  return text;
}

/** Buffered reading of a connection: lines, and bytes as they come. */
class Source {
  #conn: Deno.Conn;
  #buffer: Uint8Array = new Uint8Array(0);
  /** Where each read lands (one for all: a stream makes many small reads). */
  #chunk = new Uint8Array(READ_BYTES);

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Reads more; false at the connection's end. */
  async #fill(): Promise<boolean> {
    const n = await this.#conn.read(this.#chunk);
    if (n === null) return false;
    const joined = new Uint8Array(this.#buffer.length + n);
    joined.set(this.#buffer);
    joined.set(this.#chunk.subarray(0, n), this.#buffer.length);
    this.#buffer = joined;
    return true;
  }

  /** The bytes up to the next CRLF (without it); throws past `max` bytes or at the end. */
  async line(max: number): Promise<string> {
    let from = 0;
    while (true) {
      const at = this.#buffer.indexOf(10, from);
      if (at > 0 && this.#buffer[at - 1] === 13) {
        const text = latin1(this.#buffer.subarray(0, at - 1));
        this.#buffer = this.#buffer.subarray(at + 1);
        return text;
      }
      if (at !== -1) from = at + 1;
      else from = this.#buffer.length;
      if (this.#buffer.length > max) throw new TypeError("a line too long");
      if (!(await this.#fill())) {
        throw new TypeError("the connection ended within a response");
      }
    }
  }

  /** At most `max` bytes, waiting for some; null at the end. */
  async take(max = Infinity): Promise<Uint8Array | null> {
    if (this.#buffer.length === 0 && !(await this.#fill())) return null;
    const n = Math.min(max, this.#buffer.length);
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }
}

/** Reads a response's head, past any 1xx interim one. */
async function readHead(source: Source): Promise<Head> {
  while (true) {
    const status = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(
      await source.line(MAX_HEAD),
    );
    if (!status) throw new TypeError("not an HTTP/1.1 response");
    const headers: [string, string][] = [];
    let size = 0;
    while (true) {
      const line = await source.line(MAX_HEAD);
      if (line === "") break;
      size += line.length;
      if (size > MAX_HEAD) throw new TypeError("a response head too long");
      const colon = line.indexOf(":");
      if (colon <= 0) throw new TypeError("a malformed response header");
      headers.push([
        line.slice(0, colon).trim().toLowerCase(),
        line.slice(colon + 1).trim(),
      ]);
    }
    const code = Number(status[1]);
    if (code >= 100 && code < 200) continue;
    return { status: code, statusText: status[2] ?? "", headers };
  }
}

/** The body's bytes, its framing undone. */
async function* bodyOf(
  source: Source,
  head: Head,
): AsyncGenerator<Uint8Array> {
  if ([204, 205, 304].includes(head.status)) return;
  const header = (name: string) => head.headers.find(([n]) => n === name)?.[1];
  if (/chunked/i.test(header("transfer-encoding") ?? "")) {
    while (true) {
      const size = parseInt((await source.line(MAX_HEAD)).split(";")[0], 16);
      if (!Number.isInteger(size) || size < 0) {
        throw new TypeError("a malformed chunk");
      }
      if (size === 0) {
        while ((await source.line(MAX_HEAD)) !== "") { /* trailers */ }
        return;
      }
      for (let left = size; left > 0;) {
        const part = await source.take(left);
        if (part === null) {
          throw new TypeError("the connection ended within a chunk");
        }
        left -= part.length;
        yield part;
      }
      if ((await source.line(2)) !== "") {
        throw new TypeError("a malformed chunk");
      }
    }
  }
  const length = header("content-length");
  if (length !== undefined) {
    for (let left = Number(length); left > 0;) {
      const part = await source.take(left);
      if (part === null) {
        throw new TypeError("the connection ended within the body");
      }
      left -= part.length;
      yield part;
    }
    return;
  }
  for (let part; (part = await source.take()) !== null;) yield part;
}

const ENCODINGS: Record<string, CompressionFormat | "brotli"> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli",
};

/**
 * A POST of `body` to `url` over `connection`, written at once.
 * Guarantees: the request is written with exactly `headers` and the ones
 * `fetch` adds; `signal` aborting closes the connection, and every promise
 * and the body's stream then fail with its reason; the connection is
 * closed once the body was read, or failed.
 */
export class Http1Post {
  /** Settles with the response's head (or fails: a failed connection, a malformed response, an abort). */
  readonly head: Promise<Head>;
  #source: Promise<Source>;
  #signal: AbortSignal;
  #conn: Promise<Deno.Conn>;

  constructor(
    connection: Promise<Deno.Conn>,
    url: URL,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ) {
    this.#signal = signal;
    this.#conn = connection;
    const close = () => connection.then((c) => c.close()).catch(() => {});
    if (signal.aborted) close();
    signal.addEventListener("abort", close, { once: true });
    const bytes = new TextEncoder().encode(body);
    const given = new Set(Object.keys(headers));
    const lines = [`POST ${url.pathname}${url.search} HTTP/1.1`];
    lines.push(`host: ${url.host}`);
    for (const [name, value] of FETCH_HEADERS) {
      if (!given.has(name)) lines.push(`${name}: ${value}`);
    }
    for (const [name, value] of Object.entries(headers)) {
      lines.push(`${name}: ${value}`);
    }
    lines.push(`content-length: ${bytes.length}`, "", "");
    const request = lines.join("\r\n");
    // Header values go out as fetch sends them: a byte per character
    // (a ByteString); no line break, nothing past U+00FF.
    const broken = lines.some((line) => /[\r\n\0]|[^\0-\xff]/.test(line));
    const written = connection.then(async (conn) => {
      if (broken) {
        throw new TypeError(
          "a header with a line break or a non-byte character",
        );
      }
      const head = new Uint8Array(request.length);
      for (let i = 0; i < request.length; i++) head[i] = request.charCodeAt(i);
      const all = new Uint8Array(head.length + bytes.length);
      all.set(head);
      all.set(bytes, head.length);
      for (let at = 0; at < all.length;) {
        at += await conn.write(all.subarray(at));
      }
      return new Source(conn);
    });
    this.#source = this.#failing(written);
    this.head = this.#failing(this.#source.then(readHead));
    this.head.catch(() => close());
  }

  /** `promise`, failing with the abort's reason once aborted. */
  #failing<T>(promise: Promise<T>): Promise<T> {
    return promise.catch((error) => {
      throw this.#signal.aborted ? this.#signal.reason : error;
    });
  }

  /** The response, as `fetch` would give it (made now: this loads `fetch`'s classes). */
  async response(): Promise<Response> {
    const head = await this.head;
    const source = await this.#source;
    const close = () => this.#conn.then((c) => c.close()).catch(() => {});
    const chunks = bodyOf(source, head);
    const signal = this.#signal;
    let body: ReadableStream<Uint8Array> | null = new ReadableStream<
      Uint8Array
    >({
      async pull(controller) {
        try {
          const { value, done } = await chunks.next();
          if (done) {
            close();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          close();
          controller.error(signal.aborted ? signal.reason : error);
        }
      },
      cancel() {
        close();
      },
    });
    let headers = head.headers;
    const encoding = headers.find(([n]) => n === "content-encoding")?.[1]
      .toLowerCase();
    if (encoding && encoding !== "identity") {
      const format = ENCODINGS[encoding];
      if (!format) {
        close();
        throw new TypeError(`an unknown content encoding: ${encoding}`);
      }
      body = body.pipeThrough(
        new DecompressionStream(format as CompressionFormat) as unknown as {
          writable: WritableStream<Uint8Array>;
          readable: ReadableStream<Uint8Array>;
        },
      );
      // fetch hands on the decoded body without these.
      headers = headers.filter(([n]) =>
        n !== "content-encoding" && n !== "content-length"
      );
    }
    if ([204, 205, 304].includes(head.status)) {
      close();
      body = null;
    }
    return new Response(body, {
      status: head.status,
      statusText: head.statusText,
      headers,
    });
  }
}
