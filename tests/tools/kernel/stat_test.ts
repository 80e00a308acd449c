/** The kernel's stat helpers: `null` for nothing there, errors otherwise. */
import assert from "node:assert/strict";
import {
  isAbsent,
  lstatOrNullSync,
  statOrNull,
} from "../../../tools/kernel/stat.ts";
import { tempDir } from "../../_temp.ts";

Deno.test("stat: nothing there, or below a file, is null; a dangling link is a link to lstat and nothing to stat", async () => {
  const dir = await tempDir();
  await Deno.writeTextFile(`${dir}/f`, "x");
  await Deno.symlink(`${dir}/gone`, `${dir}/dangling`);
  assert.equal(await statOrNull(`${dir}/missing`), null);
  assert.equal(await statOrNull(`${dir}/f/below`), null);
  assert.equal((await statOrNull(`${dir}/f`))?.size, 1);
  assert.equal(await statOrNull(`${dir}/dangling`), null);
  assert.equal(lstatOrNullSync(`${dir}/dangling`)?.isSymlink, true);
  assert.equal(lstatOrNullSync(`${dir}/f/below`), null);
  assert.equal(lstatOrNullSync(`${dir}/missing`), null);
});

Deno.test("stat: only not-found and not-a-directory count as absent", () => {
  assert.equal(isAbsent(new Deno.errors.NotFound()), true);
  assert.equal(isAbsent(new Deno.errors.NotADirectory()), true);
  assert.equal(isAbsent(new Deno.errors.PermissionDenied()), false);
  assert.equal(isAbsent(new Error("other")), false);
});
