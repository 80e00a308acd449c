/**
 * What the tests make in the temp directory goes when the test that made
 * it ends: its own temp dirs and files, and the workspaces and WAVE_HOMEs
 * the helpers make for the waves they start (stream-json, `wave acp`,
 * `wave mcp`) and for in-process sessions. The tests of one file run one
 * after another, in order: the second looks at what the first left.
 */

import assert from "node:assert/strict";
import { startAcp } from "./_acp.ts";
import { TestSession } from "./_context.ts";
import { startMcp } from "./_mcp.ts";
import { tempDir, tempDirSync, tempFile } from "./_temp.ts";
import { startWave } from "./_wave.ts";

/** What the first test made, by who made it. */
const made: Record<string, string> = {};
/** Made outside any test: kept until the file's tests end. */
const ofFile = await tempDir({ prefix: "wave-temp-test-" });

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test("temp: a test's temp dirs and files, and the helpers' workspaces and WAVE_HOMEs, exist while it runs", async () => {
  made.tempDir = await tempDir({ prefix: "wave-temp-test-" });
  await Deno.writeTextFile(`${made.tempDir}/inside.txt`, "kept until the end");
  made.tempDirSync = tempDirSync();
  made.tempFile = await tempFile();
  made.kept = await tempDir({ keep: "file" });
  const session = await TestSession.create();
  made["TestSession workspace"] = session.workspace;
  made["TestSession WAVE_HOME"] = session.waveHome;
  const wave = await startWave();
  wave.put("a.txt", "a file in the workspace\n");
  made["startWave workspace"] = wave.workspace;
  made["startWave WAVE_HOME"] = wave.waveHome;
  assert.equal((await wave.finish()).code, 0);
  const acp = await startAcp();
  made["startAcp workspace"] = acp.workspace;
  made["startAcp WAVE_HOME"] = acp.waveHome;
  await acp.close();
  const mcp = await startMcp();
  made["startMcp workspace"] = mcp.workspace;
  made["startMcp WAVE_HOME"] = mcp.waveHome;
  await mcp.close();
  for (const [who, path] of Object.entries(made)) {
    assert.ok(exists(path), `${who}: ${path} exists during the test`);
  }
});

Deno.test("temp: once that test has ended, all of it is gone, but what is kept for the file's tests stays", () => {
  assert.equal(Object.keys(made).length, 12, "the first test ran");
  const { kept, ...ofTest } = made;
  const left = Object.entries(ofTest).filter(([, path]) => exists(path));
  assert.deepEqual(left, []);
  assert.ok(exists(kept), `kept for the file: ${kept}`);
  assert.ok(exists(ofFile), `made outside a test: ${ofFile}`);
});
