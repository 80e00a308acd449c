/**
 * Transcripts of audio and video files for the tools (read_files), made in
 * the main thread, which holds the speech-to-text key: a worker asks
 * through the executor's narrow channel, names a path its call was granted,
 * and gets text back (docs/design.md "The sandbox").
 *
 * A file in a format the API takes, and under its size limit, goes as it
 * is; any other, and a file over the limit, is converted with ffmpeg to
 * 16 kHz mono MP3 in chunks, whose transcripts are joined. Transcripts are
 * kept per file version (path, size, mtime) for the session, so paging
 * through one asks the API once.
 *
 * @module
 */

import { basename, extname } from "../tools/kernel/posix_path.ts";
import { convertToChunks } from "./_media_convert.ts";
import type { ApiKey } from "./models/api_key.ts";
import { parseSttModelId } from "./models/model_id.ts";
import {
  requestTranscript,
  TranscriptionRequestError,
} from "./models/transcription.ts";
import { findOnPath } from "../tools/kernel/programs.ts";
import {
  openRegularFile,
  type RegularFile,
} from "../tools/kernel/regular_file.ts";

/**
 * The formats OpenAI's transcription API takes, by extension: a file in
 * one of these goes as it is.
 */
export const API_FORMATS: readonly string[] = [
  "flac",
  "mp3",
  "mp4",
  "mpeg",
  "mpga",
  "m4a",
  "ogg",
  "wav",
  "webm",
];

/** The largest file sent as it is: the API's limit of 25 MB. */
export const MAX_UPLOAD_BYTES = 25_000_000;

/**
 * The longest chunk of converted audio, in seconds: 20 minutes of 32
 * kbit/s MP3 is 4.8 MB, well under the limit.
 */
export const CHUNK_SECONDS = 1200;

/** How long ffmpeg, or one request, may take: 10 minutes. */
export const STEP_TIMEOUT_MS = 600_000;

/** Transcripts kept per session (the newest). */
const KEPT = 32;

/** A transcript that could not be made: `message` for the model, `structured` for the parent. */
export class TranscriptionError extends Error {
  /** Metadata for the tool result's `structured`. */
  readonly structured: Record<string, unknown>;
  /** `message` says what failed and what to do; it never names the key. */
  constructor(message: string, structured: Record<string, unknown>) {
    super(message);
    this.name = "TranscriptionError";
    this.structured = structured;
  }
}

/** What a {@linkcode Transcriber} is made with. */
export interface TranscriberOptions {
  /** `--stt-model`: `openai:NAME`. */
  model: string;
  /** `--stt-base-url`. */
  baseUrl?: string;
  /** The key read at start (`Config.sttApiKey`). */
  apiKey?: ApiKey;
  /** Where ffmpeg is looked for (default: wave's `PATH`, at each conversion). */
  path?: string;
  /** The largest file sent as it is (default {@linkcode MAX_UPLOAD_BYTES}). */
  maxUploadBytes?: number;
  /** The longest converted chunk (default {@linkcode CHUNK_SECONDS}). */
  chunkSeconds?: number;
  /** ffmpeg's and each request's timeout (default {@linkcode STEP_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Makes transcripts with the session's speech-to-text model. */
export class Transcriber {
  #options: TranscriberOptions;
  #name: string;
  #kept = new Map<string, Promise<string>>();

  /** A transcriber for `options.model`, which must be `openai:NAME`. */
  constructor(options: TranscriberOptions) {
    const id = parseSttModelId(options.model);
    if ("problem" in id) throw new Error(id.problem);
    this.#options = options;
    this.#name = id.name;
  }

  /**
   * The transcript of the media file at `real` (a real path the caller
   * checked), and, given `expected`, of that very file (its device and
   * inode, as the caller opened it): a path that names another file by
   * now (a swapped symlink, a renamed directory) is refused, and the file
   * is read from the descriptor opened here, never by its path again.
   * Guarantees: the same file version is sent once per session; the
   * request and ffmpeg stop when `signal` aborts; every failure rejects
   * with a {@linkcode TranscriptionError} saying what to do (which flag,
   * what to install, what the API said), never with the key.
   */
  async transcribe(
    real: string,
    signal: AbortSignal,
    expected?: { dev: number; ino: number },
  ): Promise<string> {
    let file: RegularFile;
    try {
      // Opened without waiting: a named pipe swapped in is refused.
      file = openRegularFile(real);
    } catch (error) {
      throw new TranscriptionError(
        `it cannot be read: ${(error as Error).message}`,
        { type: "transcription_failed" },
      );
    }
    if (
      expected && (file.dev !== expected.dev || file.ino !== expected.ino)
    ) {
      file.close();
      throw new TranscriptionError(
        "it was replaced while it was being read (another process renamed or linked something on its path); read it again",
        { type: "file_changed" },
      );
    }
    const key = `${file.dev}:${file.ino}\0${file.size}\0${file.mtime}`;
    let made = this.#kept.get(key);
    if (made) file.close();
    else {
      made = this.#make(file, basename(real), file.size, signal);
      this.#kept.set(key, made);
      made.catch(() => this.#kept.delete(key));
      while (this.#kept.size > KEPT) {
        this.#kept.delete(this.#kept.keys().next().value!);
      }
    }
    return await made;
  }

  /** Transcribes the open `file` (named `name`, `size` bytes); closes it. */
  async #make(
    file: RegularFile,
    name: string,
    size: number,
    signal: AbortSignal,
  ) {
    try {
      return await this.#transcribeOpen(file, name, size, signal);
    } finally {
      try {
        file.close();
      } catch { /* closed already */ }
    }
  }

  async #transcribeOpen(
    file: RegularFile,
    name: string,
    size: number,
    signal: AbortSignal,
  ) {
    const ext = extname(name).slice(1).toLowerCase();
    const max = this.#options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
    if (API_FORMATS.includes(ext) && size <= max) {
      return await this.#request(
        await new Response(file.readable()).bytes(),
        name,
        signal,
      );
    }
    const why = API_FORMATS.includes(ext)
      ? `it is ${megabytes(size)}, over the speech-to-text API's limit of ${
        megabytes(max)
      }, so it must be split`
      : `the speech-to-text API does not take .${ext} files, so it must be converted`;
    const ffmpeg = findOnPath(
      "ffmpeg",
      this.#options.path ?? Deno.env.get("PATH") ?? "",
    );
    if (!ffmpeg) {
      throw new TranscriptionError(
        `${why}, which needs ffmpeg, and ffmpeg is not installed: install it (Debian, Ubuntu: apt-get install ffmpeg), or make a copy in one of ${
          API_FORMATS.join(", ")
        } under ${megabytes(max)} and read that`,
        { type: "ffmpeg_missing" },
      );
    }
    const dir = await Deno.makeTempDir({ prefix: "wave-stt-" });
    try {
      // ffmpeg reads a private copy made from the descriptor: given the
      // path, it would open whatever the path names by then.
      const input = `${dir}/input${ext ? `.${ext}` : ""}`;
      const copy = await Deno.open(input, {
        write: true,
        createNew: true,
        mode: 0o600,
      });
      // The pipe closes the copy, at the end and on an error. Not kept
      // open (preventClose): the pipe can then settle before its last
      // write is made.
      await file.readable().pipeTo(copy.writable);
      const out = `${dir}/chunks`;
      await Deno.mkdir(out);
      const chunks = await convertToChunks(input, out, {
        ffmpeg,
        chunkSeconds: this.#options.chunkSeconds ?? CHUNK_SECONDS,
        signal: this.#bounded(signal),
      }).catch((error) => {
        if (signal.aborted) throw interrupted();
        throw new TranscriptionError(
          `${why}, and ${
            error instanceof DOMException && error.name === "TimeoutError"
              ? `ffmpeg did not finish within ${minutes(this.#timeout)}`
              : (error as Error).message
          }`,
          { type: "conversion_failed" },
        );
      });
      const texts: string[] = [];
      for (const chunk of chunks) {
        const text = await this.#request(
          await Deno.readFile(chunk),
          basename(chunk),
          signal,
        );
        texts.push(text.trim());
      }
      return texts.filter((t) => t !== "").join("\n");
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }

  get #timeout(): number {
    return this.#options.timeoutMs ?? STEP_TIMEOUT_MS;
  }

  #bounded(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, AbortSignal.timeout(this.#timeout)]);
  }

  async #request(
    bytes: Uint8Array,
    fileName: string,
    signal: AbortSignal,
  ): Promise<string> {
    try {
      return await requestTranscript(
        {
          model: this.#name,
          baseUrl: this.#options.baseUrl,
          apiKey: this.#options.apiKey,
        },
        bytes,
        fileName,
        this.#bounded(signal),
      );
    } catch (error) {
      if (signal.aborted) throw interrupted();
      if (error instanceof TranscriptionRequestError) {
        throw new TranscriptionError(error.message, {
          type: "transcription_failed",
          status: error.status ?? null,
        });
      }
      if (error instanceof DOMException && error.name === "TimeoutError") {
        throw new TranscriptionError(
          `the speech-to-text API did not answer within ${
            minutes(this.#timeout)
          }`,
          { type: "transcription_failed", status: null },
        );
      }
      throw error;
    }
  }
}

function interrupted(): TranscriptionError {
  return new TranscriptionError("the transcription was interrupted", {
    type: "interrupted",
  });
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 100_000) / 10} MB`;
}

function minutes(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} s`;
}
