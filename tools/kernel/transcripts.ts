/**
 * What a tool says when it needs a transcript and the session has no
 * speech-to-text model (`ToolContext.transcribe`).
 *
 * @module
 */

import { ToolError } from "./tool_error.ts";

/**
 * The error of `ctx.transcribe` in a session started without
 * `--stt-model`: it names the flag and how to set it, and says nothing of
 * any file (the tool says which).
 */
export function noSttModelError(): ToolError {
  return new ToolError(
    "no speech-to-text model is configured: start wave with --stt-model openai:NAME (e.g. openai:whisper-1, with OPENAI_API_KEY), or add --stt-base-url URL for a compatible server such as whisper.cpp's",
    { type: "no_stt_model" },
  );
}
