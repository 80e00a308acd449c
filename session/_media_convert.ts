/**
 * Audio for a speech-to-text API out of any media file, with ffmpeg: the
 * audio track only, 16 kHz mono MP3 at 32 kbit/s (what speech models hear
 * anyway), in chunks of a given length so each stays under the API's size
 * limit. Private to the transcriber; runs in the main thread.
 *
 * @module
 */

import { join } from "../tools/kernel/posix_path.ts";

/** What one conversion is given. */
export interface ConvertOptions {
  /** The ffmpeg binary. */
  ffmpeg: string;
  /** The longest chunk, in seconds. */
  chunkSeconds: number;
  /** Kills ffmpeg when it aborts (an interrupt, the timeout). */
  signal: AbortSignal;
}

/** ffmpeg failed: its exit and the end of what it said. */
export class ConvertError extends Error {
  /** `message` names ffmpeg's status and its last words. */
  constructor(message: string) {
    super(message);
    this.name = "ConvertError";
  }
}

/**
 * The demuxers ffmpeg may read a file with: formats that hold their media
 * in the one file. A playlist or a script (`hls`, `dash`, `concat`, image
 * sequences) names other files, which ffmpeg would open with wave's rights
 * and no approval: a model could write a playlist that points outside the
 * workspace (`talk.mkv` holding an HLS list of `/home/u/call.mp3`), and
 * ffmpeg finds a format by the content, whatever the name says.
 */
export const MEDIA_DEMUXERS: readonly string[] = [
  "aac",
  "aiff",
  "amr",
  "ape",
  "asf",
  "au",
  "avi",
  "caf",
  "flac",
  "flv",
  "matroska",
  "mov",
  "mp3",
  "mpeg",
  "mpegts",
  "ogg",
  "w64",
  "wav",
  "wv",
];

/**
 * Converts `input` into MP3 chunks in `outDir` (which must be empty) and
 * returns their paths in order. Guarantees: ffmpeg runs with stdin from
 * /dev/null, no shell, reads `input` only (no other file, no network:
 * {@linkcode MEDIA_DEMUXERS}), and is killed when `signal` aborts (then this
 * rejects with the signal's reason); a failing ffmpeg rejects with a
 * {@linkcode ConvertError} holding the last lines of its stderr; a file
 * with no audio track is such a failure.
 */
export async function convertToChunks(
  input: string,
  outDir: string,
  options: ConvertOptions,
): Promise<string[]> {
  const command = new Deno.Command(options.ffmpeg, {
    args: [
      "-hide_banner",
      "-nostdin",
      "-loglevel",
      "error",
      // The input file, read by a demuxer that opens nothing else.
      "-protocol_whitelist",
      "file",
      "-format_whitelist",
      MEDIA_DEMUXERS.join(","),
      "-i",
      input,
      "-map",
      "0:a:0",
      "-vn",
      "-ac",
      "1",
      "-ar",
      "16000",
      "-c:a",
      "libmp3lame",
      "-b:a",
      "32k",
      "-f",
      "segment",
      "-segment_time",
      String(options.chunkSeconds),
      "-reset_timestamps",
      "1",
      join(outDir, "chunk_%05d.mp3"),
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    signal: options.signal,
  });
  const { code, stderr } = await command.output();
  options.signal.throwIfAborted();
  if (code !== 0) {
    const said = new TextDecoder().decode(stderr).trim().split("\n")
      .slice(-3).join(" / ");
    throw new ConvertError(
      `ffmpeg could not convert it (exit ${code}${said ? `: ${said}` : ""})`,
    );
  }
  const chunks: string[] = [];
  for await (const entry of Deno.readDir(outDir)) {
    if (entry.isFile && entry.name.endsWith(".mp3")) {
      chunks.push(join(outDir, entry.name));
    }
  }
  if (chunks.length === 0) {
    throw new ConvertError("ffmpeg found no audio in it");
  }
  return chunks.sort();
}
