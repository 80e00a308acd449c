/**
 * `--model replay:FILE`: a scripted model. Each request is answered with
 * the script's next reply (text and tool calls), through the same loop as a
 * real model, so parents get deterministic runs and the demo needs no API.
 *
 * The script is JSON: `{"model"?: string, "replies": [{"content": [blocks],
 * "stop_reason"?: string}]}`, where a block is `{"type":"text","text":…}` or
 * `{"type":"tool_use","name":…,"input":…,"id"?:…}`.
 *
 * @module
 */

import { z } from "zod";
import { describeIssues } from "../inbound.ts";
import {
  ModelError,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
} from "./provider.ts";

const Script = z.object({
  model: z.string().default("replay"),
  replies: z.array(z.object({
    content: z.array(z.union([
      z.object({ type: z.literal("text"), text: z.string() }),
      z.object({
        type: z.literal("tool_use"),
        id: z.string().optional(),
        name: z.string(),
        input: z.record(z.string(), z.unknown()),
      }),
    ])),
    stop_reason: z.string().optional(),
  })).min(1),
});

/** A model that replays a script. */
export class ReplayProvider implements ModelProvider {
  readonly id: string;
  #replies: z.output<typeof Script>["replies"];
  #model: string;
  #next = 0;
  #calls = 0;

  private constructor(file: string, script: z.output<typeof Script>) {
    this.id = `replay:${file}`;
    this.#replies = script.replies;
    this.#model = script.model;
  }

  /** Loads a script; a missing or malformed file is an error that says what is wrong. */
  static async load(file: string): Promise<ReplayProvider> {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      throw new Error(
        `cannot read the replay script ${file}: ${(error as Error).message}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(
        `the replay script ${file} is not JSON: ${(error as Error).message}`,
      );
    }
    const parsed = Script.safeParse(json);
    if (!parsed.success) {
      throw new Error(
        `the replay script ${file} is malformed: ${
          describeIssues(parsed.error)
        }`,
      );
    }
    return new ReplayProvider(file, parsed.data);
  }

  complete(_request: ModelRequest, signal: AbortSignal): Promise<ModelReply> {
    if (signal.aborted) {
      return Promise.reject(new DOMException("aborted", "AbortError"));
    }
    const reply = this.#replies[this.#next];
    if (!reply) {
      return Promise.reject(
        new ModelError(
          `the replay script has no reply left (it has ${this.#replies.length})`,
          false,
        ),
      );
    }
    this.#next++;
    const call = ++this.#calls;
    const content: ModelReply["content"] = reply.content.map((b, i) =>
      b.type === "text" ? b : {
        type: "tool_use",
        id: b.id ?? `toolu_replay_${call}_${i}`,
        name: b.name,
        input: b.input,
      }
    );
    return Promise.resolve({
      content,
      stopReason: reply.stop_reason ??
        (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
      usage: { input_tokens: 0, output_tokens: 0 },
      model: this.#model,
    });
  }
}
