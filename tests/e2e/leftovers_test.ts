/**
 * End-to-end: what a writer killed mid-write leaves (`.NAME.XXXXXXXX.wave-tmp`,
 * `.wave-old`) is swept when wave starts (the workspace's top) and before a
 * write in its directory, never while a live process holds it, and no search
 * or listing shows it meanwhile.
 */

import assert from "node:assert/strict";
import { withWave } from "../_wave.ts";
import { waitUntil } from "../_waiting.ts";
import { tempDir } from "../_temp.ts";

/** The writer's second names in `dir`. */
function leftovers(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name)
    .filter((name) => /\.wave-(tmp|old)$/.test(name)).sort();
}

Deno.test("e2e leftovers: swept at start and before a write in their directory, a live writer's kept, never listed", async () => {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-ws-" }),
  );
  await Deno.mkdir(`${workspace}/src`);
  const put = (path: string, text: string) =>
    Deno.writeTextFileSync(`${workspace}/${path}`, text);
  put("a.txt", "a needle\n");
  put(".a.txt.0123abcd.wave-tmp", "a needle, half writ");
  put(".big.bin.89abcdef.wave-old", "needle");
  put("src/b.txt", "b\n");
  put("src/.b.txt.0123abcd.wave-tmp", "b needle, half writ");
  // A writer of another process, alive: its lock says so.
  put(".live.txt.fedcba98.wave-tmp", "being written");
  using live = await Deno.open(`${workspace}/.live.txt.fedcba98.wave-tmp`, {
    read: true,
  });
  await live.lock(true);

  await withWave({ workspace }, async (wave) => {
    // The start's sweep runs in the background, after system/init.
    await waitUntil(
      () => leftovers(workspace).length === 1,
      "the workspace's top swept",
    );
    assert.deepEqual(leftovers(workspace), [".live.txt.fedcba98.wave-tmp"]);
    assert.deepEqual(leftovers(`${workspace}/src`), [
      ".b.txt.0123abcd.wave-tmp",
    ]);

    // Meanwhile no search or listing shows what is left.
    const glob = await wave.callTool("Glob", { pattern: "**/*" });
    assert.deepEqual(glob.structured.files.sort(), ["a.txt", "src/b.txt"]);
    const grep = await wave.callTool("Grep", { pattern: "needle" });
    assert.equal(grep.content, "Found 1 file\na.txt");

    // A write in src/ sweeps src/ first.
    const write = await wave.callTool("Write", {
      file_path: "src/c.txt",
      content: "c\n",
    });
    assert.equal(write.is_error, false, write.content);
    assert.deepEqual(leftovers(`${workspace}/src`), []);
  });
  assert.deepEqual(leftovers(workspace), [".live.txt.fedcba98.wave-tmp"]);
});

Deno.test("e2e leftovers: wave killed with SIGKILL during large writes leaves nothing the next wave does not sweep", async () => {
  const workspace = await Deno.realPath(
    await tempDir({ prefix: "wave-ws-" }),
  );
  const content = "x".repeat(4 << 20);
  Deno.writeTextFileSync(`${workspace}/big.txt`, content);
  // Kill wave with writes in flight, until one kill leaves a second name behind (at most 20 tries).
  let left: string[] = [];
  for (let trial = 0; trial < 20 && left.length === 0; trial++) {
    await withWave({ workspace, args: ["--toolset", "sata"] }, async (wave) => {
      for (let k = 0; k < 8; k++) {
        await wave.sendCall(`w${k}`, "write", {
          Path: "big.txt",
          Content: content,
        });
      }
      await wave.waitFor((m) => m.response?.request_id === "w0");
      // withWave ends it with SIGKILL, writes still queued or running.
    });
    left = leftovers(workspace);
  }
  assert.notDeepEqual(left, [], "20 kills during writes left no temp file");
  await withWave({ workspace }, async () => {
    await waitUntil(
      () => leftovers(workspace).length === 0,
      "the leftovers swept",
    );
  });
  assert.equal(Deno.readTextFileSync(`${workspace}/big.txt`), content);
});
