/**
 * A mock speech-to-text server on 127.0.0.1 that speaks OpenAI's audio
 * transcription wire format: `POST /v1/audio/transcriptions` with a
 * multipart/form-data body (`file`, `model`, `response_format`), answered
 * with the transcript as text. It parses each body as a server would and
 * records what it got; tests script the answers, failures included.
 *
 * @module
 */

import { tempDir } from "./_temp.ts";

/** One request the server received, parsed from its multipart body. */
export interface SttRequest {
  method: string;
  path: string;
  /** The request's `content-type` header (multipart, with its boundary). */
  contentType: string;
  authorization: string | null;
  fileName: string;
  file: Uint8Array;
  model: string | null;
  responseFormat: string | null;
  /** Every form field's name, in order. */
  fields: string[];
}

/** An answer: the transcript as text, or a status with a body. */
export type SttAnswer = string | { status: number; body: string };

/** Makes a WAV of `words` spoken by espeak-ng, or says why it cannot. */
export async function spokenWav(
  path: string,
  words: string,
): Promise<string | undefined> {
  try {
    const { code, stderr } = await new Deno.Command("espeak-ng", {
      args: ["-w", path, words],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      return `espeak-ng failed: ${new TextDecoder().decode(stderr)}`;
    }
    return undefined;
  } catch {
    return "espeak-ng is not installed (Debian: apt-get install espeak-ng)";
  }
}

/**
 * `wav` as an MP3 in a directory of its own: a recording outside the
 * workspace, which only a playlist naming it would reach.
 */
export async function recordingElsewhere(wav: string): Promise<string> {
  const mp3 = `${await tempDir({ prefix: "wave-elsewhere-" })}/call.mp3`;
  const made = await new Deno.Command("ffmpeg", {
    args: ["-loglevel", "error", "-i", wav, mp3],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!made.success) {
    throw new Error(`ffmpeg: ${new TextDecoder().decode(made.stderr)}`);
  }
  return mp3;
}

/** An HLS playlist of the one segment `path`, as a model could write it under a media name. */
export function hlsPlaylist(path: string): string {
  return `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2,\n${path}\n#EXT-X-ENDLIST\n`;
}

/** A running mock speech-to-text server. */
export class MockStt {
  /** Every request received, in order. */
  readonly requests: SttRequest[] = [];
  readonly #answers: SttAnswer[] = [];
  readonly #server: Deno.HttpServer;

  /** Listens on 127.0.0.1, on a free port. */
  constructor() {
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
    }, (req) => this.#handle(req));
  }

  /** The base URL to give `--stt-base-url` (ends with `/v1`). */
  get url(): string {
    const addr = this.#server.addr as Deno.NetAddr;
    return `http://127.0.0.1:${addr.port}/v1`;
  }

  /** Queues answers; each request takes the next one (the last repeats). */
  script(...answers: SttAnswer[]): this {
    this.#answers.push(...answers);
    return this;
  }

  /** Stops the server. */
  async close(): Promise<void> {
    await this.#server.shutdown();
  }

  async #handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const contentType = req.headers.get("content-type") ?? "";
    if (req.method !== "POST" || path !== "/v1/audio/transcriptions") {
      return new Response("not found", { status: 404 });
    }
    const form = await req.formData();
    const file = form.get("file");
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : null;
    };
    this.requests.push({
      method: req.method,
      path,
      contentType,
      authorization: req.headers.get("authorization"),
      fileName: file instanceof File ? file.name : "",
      file: file instanceof File
        ? new Uint8Array(await file.arrayBuffer())
        : new Uint8Array(),
      model: field("model"),
      responseFormat: field("response_format"),
      fields: [...form.keys()],
    });
    const answer = this.#answers.length > 1
      ? this.#answers.shift()!
      : this.#answers[0] ?? "";
    if (typeof answer === "string") {
      return new Response(answer, {
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    return new Response(answer.body, {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  }
}
