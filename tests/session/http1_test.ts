/** The early request's own HTTP/1.1 POST (session/_http1.ts), against real sockets: what it writes, and the responses it reads back as `fetch` would give them. */

import assert from "node:assert/strict";
import { connectTo, Http1Post } from "../../session/_http1.ts";
import { tempDir } from "../_temp.ts";

/**
 * A server on 127.0.0.1 that records the bytes of one connection's
 * request (until the body's length came) and answers with `pieces`, each
 * written separately, then closes.
 */
function rawServer(
  pieces: (string | Uint8Array)[],
  end: "wait" | "close" = "wait",
): {
  url: string;
  received: Promise<string>;
  ended: Promise<void>;
  close(): void;
} {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received = Promise.withResolvers<string>();
  const ended = Promise.withResolvers<void>();
  (async () => {
    const conn = await listener.accept();
    const buffer = new Uint8Array(1 << 20);
    let size = 0;
    while (true) {
      const n = await conn.read(buffer.subarray(size));
      if (n === null) break;
      size += n;
      const text = new TextDecoder().decode(buffer.subarray(0, size));
      const end = text.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(text);
      if (end !== -1 && length && size >= end + 4 + Number(length[1])) break;
    }
    received.resolve(new TextDecoder().decode(buffer.subarray(0, size)));
    for (const piece of pieces) {
      await conn.write(
        typeof piece === "string" ? new TextEncoder().encode(piece) : piece,
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Reads until the client closes its end (or closes first: a body
    // that ends with the connection).
    if (end === "close") {
      conn.close();
      ended.resolve();
      return;
    }
    try {
      while ((await conn.read(buffer)) !== null) { /* drain */ }
    } catch { /* reset */ }
    ended.resolve();
    conn.close();
  })().catch((error) => received.reject(error));
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    received: received.promise,
    ended: ended.promise,
    close: () => listener.close(),
  };
}

function post(url: string, headers: Record<string, string>, body: string) {
  const target = new URL(url);
  return new Http1Post(
    connectTo(target),
    target,
    headers,
    body,
    new AbortController().signal,
  );
}

Deno.test("Http1Post: writes the request fetch writes, the same headers a server sees", async () => {
  const seen: [string, string][][] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      seen.push([...req.headers]);
      await req.text();
      return new Response("ok");
    },
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/v1/messages?beta=true`;
    const headers = {
      "accept": "application/json",
      "user-agent": "Anthropic/JS 1.14.0",
      "content-type": "application/json",
      "x-api-key": "sk-é",
    };
    const body = '{"model":"m","content":"é"}';
    const sent = await fetch(url, { method: "POST", headers, body });
    await sent.text();
    const response = await post(url, headers, body).response();
    assert.equal(await response.text(), "ok");
    assert.deepEqual(seen[1], seen[0]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("Http1Post: the request line, host, fetch's headers only when not given, and the body's length in bytes", async () => {
  const server = rawServer(["HTTP/1.1 204 No Content\r\n\r\n"]);
  try {
    const request = post(
      `${server.url}/v1/chat/completions?x=1`,
      { "accept": "application/json", "authorization": "Bearer k" },
      "é",
    );
    const response = await request.response();
    assert.equal(response.status, 204);
    assert.equal(response.body, null);
    const port = new URL(server.url).port;
    assert.equal(
      await server.received,
      "POST /v1/chat/completions?x=1 HTTP/1.1\r\n" +
        `host: 127.0.0.1:${port}\r\n` +
        "accept-encoding: gzip,br\r\n" +
        "accept-language: *\r\n" +
        "accept: application/json\r\n" +
        "authorization: Bearer k\r\n" +
        "content-length: 2\r\n" +
        "\r\n" +
        "é",
    );
  } finally {
    server.close();
  }
});

Deno.test("Http1Post: a chunked body split anywhere (extensions, trailers), past an interim 103, is the body fetch gives; the connection is closed once read", async () => {
  const server = rawServer([
    "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n",
    "content-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
    "6;ext=1\r\ndata: \r\n1",
    "0\r\nhello worl",
    "d 1234\r\n",
    "0\r\nx-trailer: t\r\n\r\n",
  ]);
  try {
    const request = post(`${server.url}/v1/messages`, {}, "{}");
    await request.head;
    const response = await request.response();
    assert.equal(response.status, 200);
    assert.equal(response.statusText, "OK");
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(await response.text(), "data: hello world 1234");
    await server.ended;
  } finally {
    server.close();
  }
});

Deno.test("Http1Post: a body of a content-length, and one until the connection ends", async () => {
  const sized = rawServer([
    "HTTP/1.1 429 Too Many Requests\r\ncontent-length: 11\r\nretry-after: 1\r\n\r\nslow",
    " down",
    "!!",
  ]);
  const unsized = rawServer(
    ["HTTP/1.1 200 OK\r\n\r\nuntil ", "the end"],
    "close",
  );
  try {
    const response = await post(`${sized.url}/v1/messages`, {}, "{}")
      .response();
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.equal(await response.text(), "slow down!!");
    // The server closes after its pieces; the body ends with it.
    const rest = await post(`${unsized.url}/v1/messages`, {}, "{}")
      .response();
    assert.equal(await rest.text(), "until the end");
  } finally {
    sized.close();
    unsized.close();
  }
});

Deno.test("Http1Post: a gzip body is decoded, without the encoding's headers, as fetch does", async () => {
  const packed = new Uint8Array(
    await new Response(
      new Blob(["data: compressed\n\n"]).stream().pipeThrough(
        new CompressionStream("gzip"),
      ),
    ).arrayBuffer(),
  );
  const server = rawServer([
    `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${packed.length}\r\n\r\n`,
    packed,
  ]);
  try {
    const response = await post(`${server.url}/v1/messages`, {}, "{}")
      .response();
    assert.equal(response.headers.get("content-encoding"), null);
    assert.equal(response.headers.get("content-length"), null);
    assert.equal(await response.text(), "data: compressed\n\n");
  } finally {
    server.close();
  }
});

Deno.test("Http1Post: aborted mid-body, the stream fails with the abort's reason and the connection closes", async () => {
  const server = rawServer([
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n",
  ]);
  try {
    const target = new URL(`${server.url}/v1/messages`);
    const controller = new AbortController();
    const request = new Http1Post(
      connectTo(target),
      target,
      {},
      "{}",
      controller.signal,
    );
    const response = await request.response();
    const reader = response.body!.getReader();
    assert.equal(
      new TextDecoder().decode((await reader.read()).value),
      "first",
    );
    const reason = new DOMException("stopped", "AbortError");
    controller.abort(reason);
    await assert.rejects(reader.read(), (error) => error === reason);
    await server.ended;
  } finally {
    server.close();
  }
});

Deno.test("Http1Post: no connection, or a header with a line break, fails the head and the response with a TypeError; nothing is written", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const refused = post(`http://127.0.0.1:${port}/v1/messages`, {}, "{}");
  await assert.rejects(refused.head, Deno.errors.ConnectionRefused);
  await assert.rejects(refused.response(), Deno.errors.ConnectionRefused);

  const server = rawServer([]);
  try {
    const broken = post(`${server.url}/v1/messages`, {
      "x-api-key": "a\r\nx-injected: 1",
    }, "{}");
    await assert.rejects(broken.head, {
      name: "TypeError",
      message: "a header with a line break or a non-byte character",
    });
    await assert.rejects(broken.response(), TypeError);
    await server.ended;
    assert.equal(await server.received, "");
  } finally {
    server.close();
  }
});

/** Runs openssl with `args` in `dir`. */
async function openssl(dir: string, ...args: string[]): Promise<void> {
  const done = await new Deno.Command("openssl", { args, cwd: dir }).output();
  if (!done.success) throw new Error(new TextDecoder().decode(done.stderr));
}

Deno.test("Http1Post: over TLS (https, HTTP/1.1 offered), the certificate checked against the roots fetch trusts (DENO_CERT), a streamed body read", async () => {
  const dir = await tempDir({ prefix: "wave-tls-" });
  // A CA, and a certificate for localhost it signs.
  await openssl(
    dir,
    ..."req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign"
      .split(" "),
  );
  await openssl(
    dir,
    ..."req -newkey rsa:2048 -nodes -keyout key.pem -out leaf.csr -subj /CN=localhost"
      .split(" "),
  );
  await Deno.writeTextFile(
    `${dir}/ext.cnf`,
    "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  await openssl(
    dir,
    ..."x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem -days 1 -extfile ext.cnf"
      .split(" "),
  );
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: await Deno.readTextFile(`${dir}/cert.pem`),
    key: await Deno.readTextFile(`${dir}/key.pem`),
    onListen: () => {},
  }, async (req) => {
    const body = await req.text();
    const encoder = new TextEncoder();
    return new Response(
      new ReadableStream({
        async start(controller) {
          controller.enqueue(encoder.encode(`data: ${body}\n\n`));
          await new Promise((resolve) => setTimeout(resolve, 10));
          controller.enqueue(encoder.encode("data: end\n\n"));
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  });
  // DENO_CERT is read at start: a process of its own.
  const script = `${dir}/post.ts`;
  await Deno.writeTextFile(
    script,
    `import { connectTo, Http1Post } from ${
      JSON.stringify(new URL("../../session/_http1.ts", import.meta.url).href)
    };
const url = new URL("https://localhost:${server.addr.port}/v1/messages");
const post = new Http1Post(connectTo(url), url, {}, "hi", new AbortController().signal);
const response = await post.response();
console.log(JSON.stringify([response.status, await response.text()]));
`,
  );
  const run = (env: Record<string, string>) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--no-config", script],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
  try {
    const trusted = await run({ DENO_CERT: `${dir}/ca.pem` });
    assert.equal(
      new TextDecoder().decode(trusted.stdout),
      JSON.stringify([200, "data: hi\n\ndata: end\n\n"]) + "\n",
    );
    const untrusted = await run({});
    assert.equal(untrusted.success, false);
    assert.match(new TextDecoder().decode(untrusted.stderr), /certificate/);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
