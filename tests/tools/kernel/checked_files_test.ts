/**
 * checked_files: within a call, a file opened under a path the call's
 * check judged must be what the check judged (its identity, a link's own,
 * or nothing); outside a call nothing is held; the call's own writes are.
 */

import assert from "node:assert/strict";
import { tempDir } from "../../_temp.ts";
import {
  pinChecked,
  withCheckedFiles,
} from "../../../tools/kernel/checked_files.ts";
import { openRegularFile } from "../../../tools/kernel/regular_file.ts";
import {
  NOTHING_THERE,
  resolveInWorkspace,
} from "../../../tools/kernel/workspace.ts";
import { atomicWrite } from "../../../tools/kernel/atomic_write.ts";
import { ToolError } from "../../../tools/kernel/tool_error.ts";

/** Opens and closes `path` as a reading tool does; the error, if it threw. */
function openError(path: string): unknown {
  try {
    openRegularFile(path, "f").close();
    return undefined;
  } catch (error) {
    return error;
  }
}

function assertChanged(error: unknown): void {
  assert.ok(error instanceof ToolError, String(error));
  assert.equal(
    error.message,
    "f changed while the call ran: another file was put under its name after the check, so it was not read. Try again.",
  );
  assert.deepEqual(error.structured, { type: "changed_during_call" });
}

/** A workspace with `f` (an ordinary file) and `.env`. */
async function workspace(): Promise<string> {
  const root = await Deno.realPath(await tempDir({ prefix: "wave-pins-" }));
  await Deno.writeTextFile(`${root}/f`, "fine\n");
  await Deno.writeTextFile(`${root}/.env`, "SECRET=1\n");
  return root;
}

Deno.test("checked files: the resolver's identity is lstat's of the real path, inside or outside, or nothing there", async () => {
  const root = await workspace();
  const info = Deno.lstatSync(`${root}/f`);
  assert.equal(
    resolveInWorkspace(root, "f").identity,
    `${info.dev}:${info.ino}`,
  );
  assert.equal(resolveInWorkspace(root, "new.txt").identity, NOTHING_THERE);
  // Outside too: a path the parent approves is held to what it approved.
  const outside = await Deno.makeTempFile();
  const outsideInfo = Deno.lstatSync(outside);
  assert.equal(
    resolveInWorkspace(root, outside).identity,
    `${outsideInfo.dev}:${outsideInfo.ino}`,
  );
  await Deno.remove(outside);
});

for (
  const [swap, make] of [
    [
      "a symbolic link to .env",
      (root: string) => Deno.symlinkSync(`${root}/.env`, `${root}/g`),
    ],
    [
      "a hard link to .env",
      (root: string) => Deno.linkSync(`${root}/.env`, `${root}/g`),
    ],
    [
      "another file",
      (root: string) => Deno.writeTextFileSync(`${root}/g`, "other\n"),
    ],
  ] as const
) {
  Deno.test(`checked files: in a call, the checked file swapped for ${swap} is refused at the open`, async () => {
    const root = await workspace();
    await withCheckedFiles(async () => {
      const checked = resolveInWorkspace(root, "f");
      assert.equal(checked.sensitive, undefined);
      pinChecked(checked.real, checked.identity!);
      assert.equal(openError(checked.real), undefined);
      // Made beside it, then renamed over it: the swap is one step.
      make(root);
      await Deno.rename(`${root}/g`, `${root}/f`);
      assertChanged(openError(checked.real));
    });
    // The same open outside the call: nothing holds it.
    assert.equal(openError(`${root}/f`), undefined);
  });
}

Deno.test("checked files: a file put where the check found nothing is refused", async () => {
  const root = await workspace();
  withCheckedFiles(() => {
    const checked = resolveInWorkspace(root, "g");
    pinChecked(checked.real, checked.identity!);
    Deno.symlinkSync(`${root}/.env`, `${root}/g`);
    assertChanged(openError(checked.real));
  });
});

Deno.test("checked files: what the call wrote itself is read back", async () => {
  const root = await workspace();
  await withCheckedFiles(async () => {
    for (const name of ["f", "new.txt"]) {
      const checked = resolveInWorkspace(root, name);
      pinChecked(checked.real, checked.identity!);
      await atomicWrite(checked.real, "written\n");
      assert.equal(openError(checked.real), undefined);
    }
  });
});

Deno.test("checked files: each call holds its own pins", async () => {
  const root = await workspace();
  const checked = resolveInWorkspace(root, "f");
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const first = withCheckedFiles(async () => {
    pinChecked(checked.real, checked.identity!);
    await held;
    return openError(checked.real);
  });
  // A later call judged the file rewritten meanwhile: its own pin.
  Deno.writeTextFileSync(`${root}/g`, "new\n");
  Deno.renameSync(`${root}/g`, `${root}/f`);
  const second = withCheckedFiles(() => {
    const again = resolveInWorkspace(root, "f");
    pinChecked(again.real, again.identity!);
    return openError(again.real);
  });
  release();
  assert.equal(second, undefined);
  assertChanged(await first);
});
