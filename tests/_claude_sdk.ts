/**
 * Drives wave through the real Claude Agent SDK (`query()`), as a program
 * written for Claude Code would: `pathToClaudeCodeExecutable` names wave's
 * launcher (bin/wave), and the model is the mock Anthropic server.
 *
 * @module
 */

import {
  type Options,
  query,
  type SDKMessage,
  type SDKResultMessage,
  type SDKSystemMessage,
  type SDKUserMessage,
} from "@anthropic-ai/claude-agent-sdk";
import { MockModel, type MockStep } from "./_mock_model.ts";

export { callStep, textStep } from "./_mock_model.ts";
import { DENO_DIR, ROOT } from "./_wave.ts";
import { tempDir } from "./_temp.ts";

/** wave's launcher, the executable a Claude Agent SDK parent starts. */
export const LAUNCHER = `${ROOT}bin/wave`;

/** A workspace, a WAVE_HOME and a mock model for one SDK session. */
export class SdkSession {
  readonly model = new MockModel();
  readonly workspace: string;
  readonly waveHome: string;

  private constructor(workspace: string, waveHome: string) {
    this.workspace = workspace;
    this.waveHome = waveHome;
  }

  /** A new session with `files` in its workspace. */
  static async open(files: Record<string, string> = {}): Promise<SdkSession> {
    const workspace = await Deno.realPath(await tempDir());
    const waveHome = await tempDir();
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${workspace}/${name}`, text);
    }
    return new SdkSession(workspace, waveHome);
  }

  /** Scripts the model's replies. */
  script(...steps: MockStep[]): this {
    this.model.script(...steps);
    return this;
  }

  /** The options every query of this session starts with. */
  options(extra: Options = {}): Options {
    return {
      pathToClaudeCodeExecutable: LAUNCHER,
      cwd: this.workspace,
      model: "claude-sonnet-5-5",
      // The SDK's spawn keeps only what env says: the model's server and
      // key, wave's state and deno, as a parent's own environment would.
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: Deno.env.get("HOME") ?? "/root",
        DENO_DIR,
        WAVE_DENO: Deno.execPath(),
        WAVE_HOME: this.waveHome,
        ANTHROPIC_BASE_URL: this.model.url,
        ANTHROPIC_API_KEY: "sk-test-wave",
      },
      mcpServersDelivery: "argv",
      stderr: (text: string) => {
        if (Deno.env.get("WAVE_TEST_STDERR")) console.error(text);
      },
      ...extra,
    } as Options;
  }

  /** Runs `prompt` to the end and returns every message the SDK yielded. */
  async run(
    prompt: string | AsyncIterable<SDKUserMessage>,
    extra: Options = {},
  ): Promise<SDKMessage[]> {
    const messages: SDKMessage[] = [];
    for await (
      const message of query({ prompt, options: this.options(extra) })
    ) {
      messages.push(message);
    }
    return messages;
  }

  /** Ends the mock model and removes the directories. */
  async close(): Promise<void> {
    await this.model.close();
    await Deno.remove(this.workspace, { recursive: true }).catch(() => {});
    await Deno.remove(this.waveHome, { recursive: true }).catch(() => {});
  }
}

/** A prompt that stays open (streaming input) until `end` is called: what interrupt and the control methods need. */
export function openPrompt(first: string): {
  messages: AsyncIterable<SDKUserMessage>;
  send(text: string): void;
  end(): void;
} {
  const queue: SDKUserMessage[] = [userMessage(first)];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    messages: (async function* () {
      while (true) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((resolve) => wake = resolve);
      }
    })(),
    send(text) {
      queue.push(userMessage(text));
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

function userMessage(text: string): SDKUserMessage {
  return {
    type: "user",
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    session_id: "",
  } as SDKUserMessage;
}

/** The messages of one type (and subtype). */
export function ofType<T extends SDKMessage["type"]>(
  messages: SDKMessage[],
  type: T,
  subtype?: string,
): Extract<SDKMessage, { type: T }>[] {
  return messages.filter((m) =>
    m.type === type &&
    (subtype === undefined || (m as { subtype?: string }).subtype === subtype)
  ) as Extract<SDKMessage, { type: T }>[];
}

/** The session's `system/init`. */
export function initOf(messages: SDKMessage[]): SDKSystemMessage {
  const init = messages.find((m) =>
    m.type === "system" && (m as { subtype?: string }).subtype === "init"
  );
  if (!init) throw new Error("no system/init");
  return init as SDKSystemMessage;
}

/** The results, in order. */
export function resultsOf(messages: SDKMessage[]): SDKResultMessage[] {
  return messages.filter((m) => m.type === "result") as SDKResultMessage[];
}

/** The tool results the SDK yielded, in order: each user message's first block. */
export function toolResults(
  messages: SDKMessage[],
): { tool_use_id: string; content: string; is_error: boolean }[] {
  return messages.filter((m) => m.type === "user").map((m) => {
    const block = ((m as SDKUserMessage).message.content as {
      tool_use_id: string;
      content: unknown;
      is_error?: boolean;
    }[])[0];
    return {
      tool_use_id: block.tool_use_id,
      content: typeof block.content === "string"
        ? block.content
        : JSON.stringify(block.content),
      is_error: block.is_error ?? false,
    };
  });
}
