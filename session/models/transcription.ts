/**
 * One request to a speech-to-text API: OpenAI's audio transcription
 * endpoint (`POST <base>/audio/transcriptions`, multipart/form-data with
 * `file`, `model` and `response_format=text`), which compatible servers
 * (whisper.cpp's, vLLM, LocalAI, Groq …) speak too. Runs in the main
 * thread only: it holds the key.
 *
 * @module
 */

import type { ApiKey } from "./api_key.ts";

/** OpenAI's API, when `--stt-base-url` is not given. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Where and with what a transcription request goes. */
export interface SttEndpoint {
  /** The model's name (`--stt-model openai:NAME`'s NAME). */
  model: string;
  /** The API's base URL, up to and with `/v1` (default {@linkcode OPENAI_BASE_URL}). */
  baseUrl?: string;
  /** The key, sent as a bearer token; none (or `"none"`) sends no header. */
  apiKey?: ApiKey;
}

/** A request the API refused or could not answer; `status` is the HTTP status, when there was one. */
export class TranscriptionRequestError extends Error {
  /** The HTTP status, or undefined when no answer came. */
  readonly status?: number;
  /** `message` says what happened, for a person and a model. */
  constructor(message: string, status?: number) {
    super(message);
    this.name = "TranscriptionRequestError";
    this.status = status;
  }
}

/** How much of an error body a message quotes. */
const QUOTED = 300;

/**
 * Sends one audio file's bytes to the transcription endpoint and returns
 * the transcript as the API gave it (`response_format=text`; a JSON body
 * `{text}` is read too, for servers that ignore the format).
 *
 * Guarantees: the request carries the file under `fileName` (whose
 * extension is how the API knows the format), the model and the format,
 * and the key only in the `Authorization` header; it stops when `signal`
 * aborts. Any failure (no answer, a non-2xx status) rejects with a
 * {@linkcode TranscriptionRequestError} saying the URL, the status and the
 * start of the body.
 */
export async function requestTranscript(
  endpoint: SttEndpoint,
  bytes: Uint8Array,
  fileName: string,
  signal?: AbortSignal,
): Promise<string> {
  const url = `${
    (endpoint.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, "")
  }/audio/transcriptions`;
  const form = new FormData();
  form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), fileName);
  form.append("model", endpoint.model);
  form.append("response_format", "text");
  const key = endpoint.apiKey?.reveal();
  const headers: Record<string, string> = { accept: "text/plain" };
  if (key && key !== "none") headers.authorization = `Bearer ${key}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      body: form,
      headers,
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new TranscriptionRequestError(
      `the speech-to-text API at ${url} could not be reached: ${
        (error as Error).message
      }`,
    );
  }
  const body = await response.text();
  if (!response.ok) {
    const quoted = body.trim().slice(0, QUOTED);
    throw new TranscriptionRequestError(
      `the speech-to-text API at ${url} answered ${response.status} ${response.statusText}${
        quoted ? `: ${quoted}` : ""
      }${
        response.status === 401 || response.status === 403
          ? " (check OPENAI_API_KEY and --stt-base-url)"
          : ""
      }`,
      response.status,
    );
  }
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    try {
      const parsed = JSON.parse(body);
      if (typeof parsed?.text === "string") return parsed.text;
    } catch {
      // Not JSON after all: the text as it came.
    }
  }
  return body;
}
