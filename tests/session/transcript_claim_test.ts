/** A session's transcript is held by one process at a time (session/transcript_claim.ts). */

import assert from "node:assert/strict";
import {
  claimTranscript,
  releaseTranscript,
  transcriptPath,
} from "../../session/transcript_claim.ts";
import { Transcript } from "../../session/transcript.ts";
import { tempDir } from "../_temp.ts";

/** Whether another holder (another open file: flock is per open file) could take the lock now; it lets go at once. */
function freeElsewhere(path: string): boolean {
  using other = Deno.openSync(path, { read: true });
  const took = other.tryLockSync(true);
  if (took) other.unlockSync();
  return took;
}

Deno.test("transcript claim: held from the claim (the file made if missing) until released; a second claim here is the same one", async () => {
  const path = transcriptPath(await tempDir(), "s1");
  assert.equal(claimTranscript(path), true);
  assert.equal(Deno.statSync(path).size, 0);
  assert.equal(freeElsewhere(path), false);
  assert.equal(claimTranscript(path), true);
  releaseTranscript(path);
  assert.equal(freeElsewhere(path), true);
  releaseTranscript(path); // again: nothing to give up
});

Deno.test("transcript claim: one another holder has is refused, and a transcript held elsewhere is never written to", async () => {
  const path = transcriptPath(await tempDir(), "s2");
  Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  Deno.writeTextFileSync(path, "");
  using holder = Deno.openSync(path, { read: true });
  holder.lockSync(true);
  assert.equal(claimTranscript(path), false);
  const errors: unknown[][] = [];
  const error = console.error;
  console.error = (...args) => void errors.push(args);
  try {
    const transcript = new Transcript(path);
    await transcript.append({ type: "result", subtype: "success" } as never);
    holder.unlockSync();
    // Refused once, refused for good: its earlier lines are missing.
    await transcript.append({ type: "result", subtype: "success" } as never);
    await transcript.release();
  } finally {
    console.error = error;
  }
  assert.equal(Deno.readTextFileSync(path), "");
  assert.deepEqual(errors, [[
    `wave: another wave process has the session of ${path} open; this one's messages are not recorded`,
  ]]);
});

Deno.test("transcript claim: a transcript's first append claims it, and release gives it up once its appends are on disk", async () => {
  const path = transcriptPath(await tempDir(), "s3");
  const transcript = new Transcript(path);
  const appended = transcript.append(
    { type: "result", subtype: "success" } as never,
  );
  await appended;
  assert.equal(freeElsewhere(path), false);
  await transcript.release();
  assert.equal(freeElsewhere(path), true);
  assert.match(Deno.readTextFileSync(path), /"subtype":"success"/);
});

Deno.test("transcript claim: once released, a late append (a turn that outlived its session's close) writes nothing and takes no claim, saying so", async () => {
  const path = transcriptPath(await tempDir(), "s4");
  const transcript = new Transcript(path);
  await transcript.append({ type: "result", subtype: "success" } as never);
  await transcript.release();
  const before = Deno.readTextFileSync(path);
  const errors: unknown[][] = [];
  const error = console.error;
  console.error = (...args) => void errors.push(args);
  try {
    await transcript.append({ type: "result", subtype: "late" } as never);
  } finally {
    console.error = error;
  }
  assert.equal(Deno.readTextFileSync(path), before);
  assert.equal(freeElsewhere(path), true);
  assert.deepEqual(errors, [[
    `wave: the session of ${path} has ended; a late message of it is not recorded`,
  ]]);
});
