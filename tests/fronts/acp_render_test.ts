/** How `wave acp` renders the core's values in ACP's words (fronts/acp/_render.ts). */
import assert from "node:assert/strict";
import {
  finishedCall,
  planOf,
  promptBlocks,
  sidesOfDiff,
  toolKind,
} from "../../fronts/acp/_render.ts";
import { loadTool } from "../../tools/loaders.ts";
import { TOOLSETS } from "../../tools/toolsets.ts";

Deno.test("acp: every tool of every toolset gets its kind from its mode and scopes", async () => {
  const kinds: Record<string, string> = {};
  for (const [toolset, entries] of Object.entries(TOOLSETS)) {
    for (const entry of entries) {
      kinds[`${toolset}:${entry.name}`] = toolKind(
        await loadTool(`builtin:${entry.module}`),
      );
    }
  }
  assert.equal(kinds["wave:Read"], "read");
  assert.equal(kinds["wave:Grep"], "search");
  assert.equal(kinds["wave:Glob"], "search");
  assert.equal(kinds["wave:Edit"], "edit");
  assert.equal(kinds["wave:Write"], "edit");
  assert.equal(kinds["wave:Bash"], "execute");
  assert.equal(kinds["wave:TaskUpdate"], "think");
  assert.equal(kinds["sata:shell"], "execute");
  assert.equal(kinds["sata:write_plan"], "edit");
  assert.equal(kinds["devflow:run_command"], "execute");
  assert.equal(kinds["devflow:search_files"], "search");
  assert.equal(kinds["devflow:read_file"], "read");
});

Deno.test("acp: a unified diff's hunks become the two sides of ACP's diff content", () => {
  const diff = [
    "--- a.txt",
    "+++ a.txt",
    "@@ -1,3 +1,3 @@",
    " one",
    "-two",
    "+TWO",
    " three",
    "@@ -9,2 +9,3 @@",
    " nine",
    "+nine and a half",
    " ten",
    "\\ No newline at end of file",
  ].join("\n");
  assert.deepEqual(sidesOfDiff(diff), {
    oldText: "one\ntwo\nthree\nnine\nten",
    newText: "one\nTWO\nthree\nnine\nnine and a half\nten",
  });
  assert.equal(sidesOfDiff("no hunk here"), null);
  const update = finishedCall({
    content: "Edited a.txt",
    is_error: false,
    structured: { path: "/ws/a.txt", diff, firstChangedLine: 2 },
  });
  assert.equal(update.status, "completed");
  assert.equal(update.content?.[0].type, "diff");
  assert.deepEqual(update.locations, [{ path: "/ws/a.txt", line: 2 }]);
  assert.deepEqual(
    finishedCall({ content: "boom", is_error: true, structured: null }),
    {
      status: "failed",
      rawOutput: null,
      content: [{ type: "content", content: { type: "text", text: "boom" } }],
    },
  );
});

Deno.test("acp: prompt content becomes the blocks of a user turn; the task list a plan", () => {
  assert.deepEqual(
    promptBlocks([
      { type: "text", text: "look" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "file:///ws/a.ts", text: "let a = 1;" },
      },
      { type: "resource_link", uri: "file:///ws/b.ts", name: "b.ts" },
    ]),
    [
      { type: "text", text: "look" },
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: "AAAA" },
      },
      {
        type: "text",
        text: '<context uri="file:///ws/a.ts">\nlet a = 1;\n</context>',
      },
      { type: "text", text: "[@b.ts](file:///ws/b.ts)" },
    ],
  );
  assert.deepEqual(
    planOf({
      tasks: [
        { id: "1", subject: "a", status: "completed" },
        { id: "2", subject: "b", status: "in_progress" },
        { id: "3", subject: "c", status: "pending" },
      ],
      visible: true,
    }).entries.map((e) => [e.content, e.status]),
    [["a", "completed"], ["b", "in_progress"], ["c", "pending"]],
  );
});
