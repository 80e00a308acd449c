import assert from "node:assert/strict";
import { callBuffers } from "../../session/editor_buffers.ts";
import type { ToolError } from "../../tools/kernel/tool.ts";

Deno.test("callBuffers: reads only paths the call named, writes only those it named for writing, and the editor's failure names the path", async () => {
  const asked: string[] = [];
  const serve = callBuffers(
    {
      read: (path) => {
        asked.push(`read ${path}`);
        return path === "/w/gone"
          ? Promise.reject(new Error("no such buffer"))
          : Promise.resolve(`text of ${path}`);
      },
      write: (path, text) => {
        asked.push(`write ${path} ${text}`);
        return Promise.resolve();
      },
    },
    new Set(["/w/a", "/w/b", "/w/gone"]),
    new Set(["/w/b"]),
    new AbortController().signal,
  );
  assert.equal(await serve("/w/a"), "text of /w/a");
  assert.equal(await serve("/w/b", "new"), "");
  await assert.rejects(serve("/w/c"), (error: ToolError) => {
    assert.equal(
      error.message,
      "/w/c is not a file this call named, so the editor's buffer of it is not read",
    );
    assert.deepEqual(error.structured, { type: "not_granted" });
    return true;
  });
  await assert.rejects(serve("/w/a", "x"), (error: ToolError) => {
    assert.equal(
      error.message,
      "/w/a is not a file this call named for writing, so the editor's buffer of it is not written",
    );
    return true;
  });
  await assert.rejects(serve("/w/gone"), (error: ToolError) => {
    assert.equal(
      error.message,
      "the editor could not give the text of /w/gone: no such buffer",
    );
    assert.deepEqual(error.structured, { type: "buffer_failed" });
    return true;
  });
  assert.deepEqual(asked, ["read /w/a", "write /w/b new", "read /w/gone"]);
});
