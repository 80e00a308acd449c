/**
 * openRegularFile and readPrefix: a file opened to be read never waits on a
 * named pipe, refuses whatever is not a regular file by what it opened, and
 * fails as Deno's own open does.
 */

import assert from "node:assert/strict";
import { tempDir } from "../../_temp.ts";
import {
  openRegularFile,
  readPrefix,
} from "../../../tools/kernel/regular_file.ts";
import { ToolError } from "../../../tools/kernel/tool_error.ts";
import {
  readFileBytes,
  readFileBytesSync,
} from "../../../tools/kernel/read_file.ts";

const REFUSED =
  " is a named pipe (FIFO), not a regular file; file tools do not open it, since reading it could wait forever. Use a command if you mean to.";

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(made.code, 0);
}

/** How many descriptors this process holds open on `path` (other tests run beside this one). */
function openOn(path: string): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`) === path) count++;
    } catch { /* closed meanwhile */ }
  }
  return count;
}

Deno.test("openRegularFile: a regular file's size, identity and time are those a stat sees, and its bytes read three ways", async () => {
  const dir = await tempDir();
  const bytes = new Uint8Array(200_000).map((_, i) => (i * 7) % 251);
  Deno.writeFileSync(`${dir}/f`, bytes);
  const info = Deno.statSync(`${dir}/f`);
  {
    using file = openRegularFile(`${dir}/f`);
    assert.equal(file.size, 200_000);
    assert.equal(file.dev, info.dev);
    assert.equal(file.ino, info.ino);
    assert.equal(file.mtime, info.mtime!.getTime());
    const head = new Uint8Array(10);
    assert.equal(file.readSync(head), 10);
    assert.deepEqual(head, bytes.subarray(0, 10));
    const next = new Uint8Array(10);
    assert.equal(await file.read(next), 10);
    assert.deepEqual(next, bytes.subarray(10, 20));
    // The stream goes on from where reading stands.
    const rest = await new Response(file.readable(4096)).bytes();
    assert.deepEqual(rest, bytes.subarray(20));
  }
  assert.equal(openOn(`${dir}/f`), 0, "the descriptor is closed");
  assert.deepEqual(await readFileBytes(`${dir}/f`), bytes);
  assert.deepEqual(readFileBytesSync(`${dir}/f`), bytes);
});

Deno.test("openRegularFile: a named pipe is refused at once, with or without a writer, and nothing stays open", async () => {
  const dir = await tempDir();
  await mkfifo(`${dir}/pipe`);
  assert.throws(() => openRegularFile(`${dir}/pipe`, "pipe"), (error) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.message, `pipe${REFUSED}`);
    assert.deepEqual(error.structured, { type: "not_regular_file" });
    return true;
  });
  // A writer holding the pipe open (and writing) changes nothing.
  const writer = new Deno.Command("sh", {
    args: ["-c", `yes > '${dir}/pipe'`],
    stderr: "null",
  }).spawn();
  try {
    const opened = openRegularFile.bind(null, `${dir}/pipe`);
    for (let i = 0; i < 20; i++) {
      assert.throws(opened, (error) => error instanceof ToolError);
    }
    await assert.rejects(
      readFileBytes(`${dir}/pipe`),
      (error) => error instanceof ToolError,
    );
    // The bytes a kind is told by are the file's: never the pipe's.
    assert.throws(
      () => readPrefix(`${dir}/pipe`, 64, "pipe"),
      (error) =>
        error instanceof ToolError &&
        error.message.startsWith("pipe is a named pipe (FIFO)"),
    );
  } finally {
    writer.kill("SIGKILL");
    await writer.status;
  }
  assert.throws(() => readPrefix(`${dir}/pipe`, 64), ToolError, "no writer");
  assert.equal(openOn(`${dir}/pipe`), 0, "nothing stays open");
});

Deno.test("openRegularFile: a character device and a socket are refused; a directory, a missing file, a file as a parent and a link loop fail as Deno's open does", async () => {
  const dir = await tempDir();
  Deno.writeFileSync(`${dir}/f`, new Uint8Array(1));
  Deno.mkdirSync(`${dir}/d`);
  Deno.symlinkSync(`${dir}/loop`, `${dir}/loop`);
  assert.throws(
    () => openRegularFile("/dev/null", "null"),
    new ToolError(
      "null is a character device, not a regular file; file tools do not open it, since reading it could wait forever. Use a command if you mean to.",
      { type: "not_regular_file" },
    ),
  );
  // A socket cannot be opened at all (ENXIO): refused as what it is.
  const listener = Deno.listen({ transport: "unix", path: `${dir}/sock` });
  try {
    const refusal =
      " is a socket or a device with no driver, not a regular file; file tools do not open it, since reading it could wait forever. Use a command if you mean to.";
    assert.throws(
      () => openRegularFile(`${dir}/sock`, "sock"),
      new ToolError(`sock${refusal}`, { type: "not_regular_file" }),
    );
    assert.throws(
      () => readPrefix(`${dir}/sock`, 8),
      new ToolError(`${dir}/sock${refusal}`, { type: "not_regular_file" }),
    );
  } finally {
    listener.close();
  }
  const cases: [string, new (message: string) => Error, string][] = [
    [
      `${dir}/d`,
      Deno.errors.IsADirectory,
      `Is a directory (os error 21): open '${dir}/d'`,
    ],
    [
      `${dir}/none`,
      Deno.errors.NotFound,
      `No such file or directory (os error 2): open '${dir}/none'`,
    ],
    [
      `${dir}/f/x`,
      Deno.errors.NotADirectory,
      `Not a directory (os error 20): open '${dir}/f/x'`,
    ],
    [
      `${dir}/loop`,
      Deno.errors.FilesystemLoop,
      `Too many symbolic links encountered (os error 40): open '${dir}/loop'`,
    ],
  ];
  for (const [path, kind, message] of cases) {
    assert.throws(() => openRegularFile(path), (error) => {
      assert.ok(error instanceof kind, `${path}: ${error}`);
      assert.equal((error as Error).message, message);
      return true;
    });
    // readPrefix fails alike.
    assert.throws(() => readPrefix(path, 8), kind);
  }
});

Deno.test("readPrefix: at most the bound, from the start", async () => {
  const dir = await tempDir();
  Deno.writeTextFileSync(`${dir}/f`, "0123456789");
  assert.equal(new TextDecoder().decode(readPrefix(`${dir}/f`, 4)), "0123");
  assert.equal(
    new TextDecoder().decode(readPrefix(`${dir}/f`, 64)),
    "0123456789",
  );
});
