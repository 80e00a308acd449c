/** What a transcript's first lines say (session/transcript_head.ts). */
import assert from "node:assert/strict";
import {
  parseTranscriptHead,
  readTranscriptHead,
  TITLE_CHARS,
  TRANSCRIPT_HEAD_BYTES,
} from "../../session/transcript_head.ts";
import { tempDir } from "../_temp.ts";

const line = (entry: unknown) => JSON.stringify(entry) + "\n";
const user = (content: unknown, isMeta?: boolean) =>
  line({
    type: "user",
    message: { role: "user", content },
    ...isMeta ? { isMeta } : {},
  });
const session = (cwd: string) => line({ type: "session", cwd });

Deno.test("transcript head: the session line's workspace and the first prompt's first non-empty line; task reminders and prompts with no text are passed over", () => {
  assert.deepEqual(
    parseTranscriptHead(
      session("/ws") + line({ type: "assistant", message: {} }) +
        user("a reminder", true) +
        user([{ type: "tool_result", tool_use_id: "t", content: "x" }]) +
        user([{ type: "text", text: "\n\n  first line \nsecond" }]) +
        user("a later prompt"),
    ),
    { cwd: "/ws", title: "first line" },
  );
  assert.deepEqual(parseTranscriptHead(""), {});
  // Written by another program, with spaces: read the same.
  assert.deepEqual(
    parseTranscriptHead(
      '{"type": "session", "cwd": "/ws/a"}\n' +
        '{"message": {"content": "spaced"}, "type" : "user"}\n',
    ),
    { cwd: "/ws/a", title: "spaced" },
  );
  // The workspace alone: the first prompt is not looked for.
  assert.deepEqual(
    parseTranscriptHead(session("/ws") + user("not wanted"), false),
    { cwd: "/ws" },
  );
  assert.deepEqual(parseTranscriptHead(user("no session line yet")), {
    title: "no session line yet",
  });
  // A line cut short by the head's end is skipped, not misread.
  assert.deepEqual(
    parseTranscriptHead(session("/ws") + user("cut").slice(0, 20)),
    { cwd: "/ws" },
  );
});

Deno.test("transcript head: a long title is cut by characters, never between the halves of one", () => {
  const cut = parseTranscriptHead(user("a".repeat(TITLE_CHARS - 2) + "😀😀😀"))
    .title!;
  assert.equal(cut, "a".repeat(TITLE_CHARS - 2) + "😀…");
  assert.equal(Array.from(cut).length, TITLE_CHARS);
  assert.ok(cut.isWellFormed());
  const exact = "b".repeat(TITLE_CHARS);
  assert.equal(parseTranscriptHead(user(exact)).title, exact);
});

Deno.test("transcript head: reading a transcript's start, whole or not", async () => {
  const dir = await tempDir();
  const path = `${dir}/t.jsonl`;
  const text = session("/ws") + user("x".repeat(TRANSCRIPT_HEAD_BYTES));
  await Deno.writeTextFile(path, text);
  assert.deepEqual(readTranscriptHead(path), {
    text: text.slice(0, TRANSCRIPT_HEAD_BYTES),
    whole: false,
  });
  assert.deepEqual(readTranscriptHead(path, 10), {
    text: text.slice(0, 10),
    whole: false,
  });
  // A first prompt longer than the head: its line is cut, so no title.
  assert.deepEqual(parseTranscriptHead(readTranscriptHead(path).text), {
    cwd: "/ws",
  });
  await Deno.writeTextFile(path, session("/ws"));
  assert.deepEqual(readTranscriptHead(path), {
    text: session("/ws"),
    whole: true,
  });
  assert.throws(
    () => readTranscriptHead(`${dir}/missing.jsonl`),
    Deno.errors.NotFound,
  );
});
