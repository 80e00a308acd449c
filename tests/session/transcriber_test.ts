/**
 * Transcripts in the main thread: the multipart request a speech-to-text
 * API receives (a mock server on 127.0.0.1 parses it), formats sent as
 * they are, converted or split with ffmpeg, and the errors that say what
 * to do.
 */
import assert from "node:assert/strict";
import { ApiKey } from "../../session/models/api_key.ts";
import { requestTranscript } from "../../session/models/transcription.ts";
import { Transcriber, TranscriptionError } from "../../session/transcriber.ts";
import { findOnPath } from "../../tools/kernel/programs.ts";
import {
  hlsPlaylist,
  MockStt,
  recordingElsewhere,
  spokenWav,
} from "../_mock_stt.ts";
import { tempDir } from "../_temp.ts";

const dir = await tempDir({ prefix: "wave-stt-test-" });
const wav = `${dir}/hello.wav`;
const noEspeak = await spokenWav(wav, "hello world");
if (noEspeak) console.error(`skipping the spoken-WAV tests: ${noEspeak}`);
const noFfmpeg = findOnPath("ffmpeg") ? undefined : "ffmpeg is not installed";
if (noFfmpeg) console.error(`skipping the conversion tests: ${noFfmpeg}`);

async function withStt(fn: (stt: MockStt) => Promise<void>): Promise<void> {
  const stt = new MockStt();
  try {
    await fn(stt);
  } finally {
    await stt.close();
  }
}

const never = new AbortController().signal;

Deno.test("stt request: multipart/form-data with file, model and response_format=text; the key only as a bearer token", () =>
  withStt(async (stt) => {
    stt.script("hello world\n");
    const bytes = new Uint8Array([82, 73, 70, 70, 0, 1, 2, 255]);
    const text = await requestTranscript(
      { model: "whisper-1", baseUrl: stt.url, apiKey: new ApiKey("sk-1") },
      bytes,
      "talk.wav",
    );
    assert.equal(text, "hello world\n");
    const [got] = stt.requests;
    assert.equal(got.method, "POST");
    assert.equal(got.path, "/v1/audio/transcriptions");
    assert.match(got.contentType, /^multipart\/form-data; boundary=/);
    assert.equal(got.authorization, "Bearer sk-1");
    assert.deepEqual(got.fields, ["file", "model", "response_format"]);
    assert.equal(got.fileName, "talk.wav");
    assert.deepEqual(got.file, bytes);
    assert.equal(got.model, "whisper-1");
    assert.equal(got.responseFormat, "text");
    // A local server's "none" key, or none at all: no header.
    await requestTranscript(
      { model: "m", baseUrl: `${stt.url}/`, apiKey: new ApiKey("none") },
      bytes,
      "a.mp3",
    );
    assert.equal(stt.requests[1].authorization, null);
  }));

Deno.test("stt request: a refusal names the URL, the status and what the API said", () =>
  withStt(async (stt) => {
    stt.script({ status: 401, body: '{"error":"bad key"}' });
    await assert.rejects(
      requestTranscript(
        { model: "whisper-1", baseUrl: stt.url },
        new Uint8Array([1]),
        "a.wav",
      ),
      {
        name: "TranscriptionRequestError",
        message:
          `the speech-to-text API at ${stt.url}/audio/transcriptions answered 401 Unauthorized: {"error":"bad key"} (check OPENAI_API_KEY and --stt-base-url)`,
      },
    );
  }));

Deno.test({
  name:
    "transcriber: a WAV spoken by espeak-ng goes as it is, once per file version",
  ignore: !!noEspeak,
  fn: () =>
    withStt(async (stt) => {
      stt.script("Hello world.\n");
      const t = new Transcriber({
        model: "openai:whisper-1",
        baseUrl: stt.url,
      });
      assert.equal(await t.transcribe(wav, never), "Hello world.\n");
      assert.equal(await t.transcribe(wav, never), "Hello world.\n");
      assert.equal(stt.requests.length, 1);
      const [got] = stt.requests;
      assert.equal(got.fileName, "hello.wav");
      assert.equal(got.model, "whisper-1");
      assert.deepEqual(got.file, await Deno.readFile(wav));
      assert.equal(new TextDecoder().decode(got.file.slice(0, 4)), "RIFF");
    }),
});

Deno.test("transcriber: a format the API does not take, without ffmpeg, says what to install or convert", () =>
  withStt(async (stt) => {
    const opus = `${dir}/talk.opus`;
    await Deno.writeFile(opus, new Uint8Array([0x4f, 0x67, 0x67, 0x53]));
    const t = new Transcriber({
      model: "openai:whisper-1",
      baseUrl: stt.url,
      path: "/nonexistent",
    });
    const error = await t.transcribe(opus, never).catch((e) => e);
    assert.ok(error instanceof TranscriptionError);
    assert.equal(
      error.message,
      "the speech-to-text API does not take .opus files, so it must be converted, which needs ffmpeg, and ffmpeg is not installed: install it (Debian, Ubuntu: apt-get install ffmpeg), or make a copy in one of flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm under 25 MB and read that",
    );
    assert.deepEqual(error.structured, { type: "ffmpeg_missing" });
    // A file over the limit, too.
    const big = new Transcriber({
      model: "openai:whisper-1",
      baseUrl: stt.url,
      path: "/nonexistent",
      maxUploadBytes: 2_000_000,
    });
    const large = `${dir}/large.wav`;
    await Deno.writeFile(large, new Uint8Array(3_000_000));
    const over = await big.transcribe(large, never).catch((e) => e);
    assert.equal(
      over.message,
      "it is 3 MB, over the speech-to-text API's limit of 2 MB, so it must be split, which needs ffmpeg, and ffmpeg is not installed: install it (Debian, Ubuntu: apt-get install ffmpeg), or make a copy in one of flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm under 2 MB and read that",
    );
    assert.equal(stt.requests.length, 0);
  }));

Deno.test({
  name:
    "transcriber: another format is converted with ffmpeg to 16 kHz mono MP3",
  ignore: !!(noEspeak || noFfmpeg),
  fn: () =>
    withStt(async (stt) => {
      stt.script("hello world");
      const mkv = `${dir}/hello.mkv`;
      await Deno.copyFile(wav, mkv);
      const t = new Transcriber({
        model: "openai:whisper-1",
        baseUrl: stt.url,
      });
      assert.equal(await t.transcribe(mkv, never), "hello world");
      assert.equal(stt.requests.length, 1);
      const [got] = stt.requests;
      assert.equal(got.fileName, "chunk_00000.mp3");
      assert.equal(got.model, "whisper-1");
      const sent = `${dir}/sent.mp3`;
      await Deno.writeFile(sent, got.file);
      const probe = await new Deno.Command("ffprobe", {
        args: [
          "-v",
          "error",
          "-show_entries",
          "stream=codec_name,sample_rate,channels",
          "-of",
          "csv=p=0",
          sent,
        ],
      }).output();
      assert.equal(
        new TextDecoder().decode(probe.stdout).trim(),
        "mp3,16000,1",
      );
    }),
});

Deno.test({
  name:
    "transcriber: a file over the API's limit is split with ffmpeg, and the transcripts joined in order",
  ignore: !!(noEspeak || noFfmpeg),
  fn: () =>
    withStt(async (stt) => {
      stt.script("hello", " world ", "");
      const t = new Transcriber({
        model: "openai:whisper-1",
        baseUrl: stt.url,
        maxUploadBytes: 1000,
        chunkSeconds: 0.5,
      });
      assert.equal(await t.transcribe(wav, never), "hello\nworld");
      assert.ok(stt.requests.length >= 2, `${stt.requests.length} chunks`);
      assert.deepEqual(
        stt.requests.map((r) => r.fileName),
        stt.requests.map((_, k) => `chunk_0000${k}.mp3`),
      );
    }),
});

Deno.test({
  name: "transcriber: what ffmpeg cannot convert is an error with its words",
  ignore: !!noFfmpeg,
  fn: () =>
    withStt(async (stt) => {
      const junk = `${dir}/junk.avi`;
      await Deno.writeTextFile(junk, "not a video at all\n");
      const t = new Transcriber({
        model: "openai:whisper-1",
        baseUrl: stt.url,
      });
      const error = await t.transcribe(junk, never).catch((e) => e);
      assert.ok(error instanceof TranscriptionError);
      assert.match(
        error.message,
        /^the speech-to-text API does not take \.avi files, so it must be converted, and ffmpeg could not convert it \(exit \d+: .+\)$/,
      );
      assert.deepEqual(error.structured, { type: "conversion_failed" });
      assert.equal(stt.requests.length, 0);
    }),
});

Deno.test("transcriber: a path that names another file than the one the worker opened is refused, and nothing is sent", () =>
  withStt(async (stt) => {
    const t = new Transcriber({ model: "openai:whisper-1", baseUrl: stt.url });
    const path = `${dir}/swapped.wav`;
    await Deno.writeFile(path, new TextEncoder().encode("RIFF"));
    const info = await Deno.stat(path);
    // What the worker opened: another inode than the one the path names now.
    const error = await t.transcribe(path, never, {
      dev: info.dev,
      ino: (info.ino ?? 0) + 1,
    }).catch((e) => e);
    assert.ok(error instanceof TranscriptionError);
    assert.equal(
      error.message,
      "it was replaced while it was being read (another process renamed or linked something on its path); read it again",
    );
    assert.deepEqual(error.structured, { type: "file_changed" });
    assert.equal(stt.requests.length, 0);
    // The very file the worker opened goes through.
    stt.script("swapped");
    assert.equal(
      await t.transcribe(path, never, { dev: info.dev, ino: info.ino ?? 0 }),
      "swapped",
    );
  }));

Deno.test({
  name:
    "transcriber: a playlist or a script named as media (an HLS list in .mkv, an ffconcat script in .avi) makes ffmpeg open no other file: it is refused, and nothing is sent",
  ignore: !!(noEspeak || noFfmpeg),
  fn: () =>
    withStt(async (stt) => {
      const mp3 = await recordingElsewhere(wav);
      const playlists: [string, string][] = [
        ["talk.mkv", hlsPlaylist(mp3)],
        ["talk.avi", `ffconcat version 1.0\nfile '${mp3}'\n`],
      ];
      const t = new Transcriber({
        model: "openai:whisper-1",
        baseUrl: stt.url,
      });
      for (const [name, text] of playlists) {
        await Deno.writeTextFile(`${dir}/${name}`, text);
        const error = await t.transcribe(`${dir}/${name}`, never).catch((e) =>
          e
        );
        assert.ok(error instanceof TranscriptionError, String(error));
        assert.deepEqual(error.structured, { type: "conversion_failed" });
        assert.match(error.message, /ffmpeg could not convert it/);
      }
      assert.equal(stt.requests.length, 0);
    }),
});
