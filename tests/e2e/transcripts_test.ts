/**
 * End-to-end: read_files gives audio and video as their transcript, made
 * by the main thread through a mock speech-to-text server on 127.0.0.1
 * (`--stt-model openai:whisper-1 --stt-base-url …`), against the real CLI.
 */

import assert from "node:assert/strict";
import {
  hlsPlaylist,
  MockStt,
  recordingElsewhere,
  spokenWav,
} from "../_mock_stt.ts";
import { type WaveProcess, withWave } from "../_wave.ts";
import { tempFile } from "../_temp.ts";
import { findOnPath } from "../../tools/kernel/programs.ts";

const spoken = await tempFile({ suffix: ".wav" });
const noEspeak = await spokenWav(spoken, "hello world");
if (noEspeak) console.error(`skipping the spoken-WAV test: ${noEspeak}`);

async function withStt(
  args: string[],
  fn: (wave: WaveProcess, stt: MockStt) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const stt = new MockStt();
  try {
    await withWave({
      args: [
        "--toolset",
        "files",
        "--stt-model",
        "openai:whisper-1",
        "--stt-base-url",
        stt.url,
        ...args,
      ],
      env: { OPENAI_API_KEY: "sk-test-stt", ...env },
    }, (wave) => fn(wave, stt));
  } finally {
    await stt.close();
  }
}

Deno.test({
  name:
    "e2e 004: read_files of a WAV spoken by espeak-ng is the transcript the speech-to-text server gave, paged by lines",
  ignore: !!noEspeak,
  fn: () =>
    withStt([], async (wave, stt) => {
      stt.script("Hello world. This is wave.\n");
      const bytes = await Deno.readFile(spoken);
      await Deno.writeFile(`${wave.workspace}/hello.wav`, bytes);
      const r = await wave.callTool("read_files", {
        files: [{ path: "hello.wav" }],
      });
      assert.equal(r.is_error, false);
      assert.equal(
        r.content,
        "==> hello.wav <==\n[transcript of audio (WAV)]\n1\tHello world.\n2\tThis is wave.",
      );
      assert.deepEqual(r.structured.files[0], {
        path: `${wave.workspace}/hello.wav`,
        type: "transcript",
        format: "audio (WAV)",
        totalLines: 2,
        startLine: 1,
        numLines: 2,
        nextOffset: null,
      });
      assert.equal(stt.requests.length, 1);
      const [got] = stt.requests;
      assert.equal(got.path, "/v1/audio/transcriptions");
      assert.match(got.contentType, /^multipart\/form-data; boundary=/);
      assert.equal(got.authorization, "Bearer sk-test-stt");
      assert.equal(got.fileName, "hello.wav");
      assert.equal(got.model, "whisper-1");
      assert.equal(got.responseFormat, "text");
      assert.deepEqual(got.file, bytes);
      // The next page comes from the transcript wave kept: no second request.
      const next = await wave.callTool("read_files", {
        files: [{ path: "hello.wav", offset: 2 }],
      });
      assert.equal(
        next.content,
        "==> hello.wav <==\n[transcript of audio (WAV)]\n2\tThis is wave.",
      );
      assert.equal(stt.requests.length, 1);
    }),
});

Deno.test("e2e 004: without --stt-model, reading audio is an error naming the flag", () =>
  withWave({ args: ["--toolset", "files"] }, async (wave) => {
    wave.put("talk.mp3", "ID3\u0003\u0000");
    const r = await wave.callTool("read_files", {
      files: [{ path: "talk.mp3" }],
    });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      "==> talk.mp3 <==\nError: talk.mp3 is audio (MP3): reading it means its transcript, and no speech-to-text model is configured: start wave with --stt-model openai:NAME (e.g. openai:whisper-1, with OPENAI_API_KEY), or add --stt-base-url URL for a compatible server such as whisper.cpp's.",
    );
  }));

Deno.test("e2e 004: a format the API does not take, with no ffmpeg on PATH, says what to install", () =>
  withStt(["--shell-sandbox", "none"], async (wave, stt) => {
    wave.put("talk.opus", "OggS");
    const r = await wave.callTool("read_files", {
      files: [{ path: "talk.opus" }],
    });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      "==> talk.opus <==\nError: talk.opus is audio (Opus): reading it means its transcript, and the speech-to-text API does not take .opus files, so it must be converted, which needs ffmpeg, and ffmpeg is not installed: install it (Debian, Ubuntu: apt-get install ffmpeg), or make a copy in one of flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm under 25 MB and read that.",
    );
    assert.equal(r.structured.files[0].detail.type, "ffmpeg_missing");
    assert.equal(stt.requests.length, 0);
  }, { PATH: "/nonexistent" }));

Deno.test("e2e 004: the transcript channel reads only a path the call named", () => {
  const stt = new MockStt();
  return withWave({
    args: [
      "--stt-model",
      "openai:whisper-1",
      "--stt-base-url",
      stt.url,
    ],
    fixtureTools: ["transcribe.ts"],
  }, async (wave) => {
    wave.put("named.wav", "RIFF");
    wave.put("other.wav", "RIFF");
    stt.script("named");
    const ok = await wave.callTool("Transcribe", { path: "named.wav" });
    assert.equal(ok.content, "named");
    // In the workspace but not named: the main thread refuses it.
    const other = `${wave.workspace}/other.wav`;
    const r = await wave.callTool("Transcribe", {
      path: "named.wav",
      ask: other,
    });
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      `${other} is not a file this call named, so it cannot be transcribed`,
    );
    // Outside: the worker cannot even open it.
    const outside = await wave.callTool("Transcribe", {
      path: "named.wav",
      ask: "/etc/passwd",
    });
    assert.equal(outside.is_error, true);
    assert.equal(
      outside.content,
      "/etc/passwd cannot be read: the sandbox refused access (not a file this call was granted)",
    );
    assert.deepEqual(stt.requests.map((r) => r.fileName), ["named.wav"]);
  }).finally(() => stt.close());
});

Deno.test({
  name:
    "e2e 004: a playlist the model wrote under a media name (an HLS list in talk.mkv) does not make ffmpeg read a recording outside the workspace: read_files says it could not convert it, nothing goes to the speech-to-text server, nothing is asked",
  ignore: !!noEspeak || !findOnPath("ffmpeg"),
  fn: () =>
    withStt(["--approvals", "deny"], async (wave, stt) => {
      stt.script("the outside recording\n");
      const mp3 = await recordingElsewhere(spoken);
      const direct = await wave.callTool("read_files", {
        files: [{ path: mp3 }],
      });
      assert.equal(direct.is_error, true);
      const written = await wave.callTool("edit_file", {
        path: "talk.mkv",
        mode: "write",
        content: hlsPlaylist(mp3),
      });
      assert.equal(written.is_error, false, JSON.stringify(written));
      const r = await wave.callTool("read_files", {
        files: [{ path: "talk.mkv" }],
      });
      assert.equal(r.is_error, true, JSON.stringify(r));
      assert.match(
        String(r.content),
        /^==> talk\.mkv <==\nError: talk\.mkv is video \(Matroska\): .*ffmpeg could not convert it/s,
      );
      assert.equal(stt.requests.length, 0);
      assert.equal(
        wave.messages.filter((m) => m.request?.subtype === "can_use_tool")
          .length,
        0,
      );
    }),
});
