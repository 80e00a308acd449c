import assert from "node:assert/strict";
import { historyDir } from "../../../tools/_core/history_dir.ts";
import {
  historyDirAsync,
  historyDirOfDigest,
} from "../../../tools/_core/history_key.ts";

Deno.test("history: the directory named by WebCrypto at start is the one the tools use", async () => {
  for (
    const workspace of [
      "/w",
      "/home/ana/projects/wave",
      "/tmp/espace de travail/ünïcödé",
      "/srv/日本語/repo",
    ]
  ) {
    const ctx = { workspace, waveHome: "/home/ana/.wave" };
    assert.equal(await historyDirAsync(ctx), historyDir(ctx));
  }
  // SHA-256("/w") = d1bb8ca354673cd5…: the key is its first 16 digits.
  assert.equal(
    await historyDirAsync({ workspace: "/w", waveHome: "/h" }),
    "/h/history/d1bb8ca354673cd5",
  );
});

Deno.test("history: the layout is WAVE_HOME/history/<16 hex digits>, whatever slashes WAVE_HOME ends with", () => {
  const hex = "0123456789abcdef".repeat(4);
  assert.equal(historyDirOfDigest("/h", hex), "/h/history/0123456789abcdef");
  assert.equal(historyDirOfDigest("/h/", hex), "/h/history/0123456789abcdef");
});
