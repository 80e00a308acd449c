import assert from "node:assert/strict";
import {
  type AtomicFs,
  atomicWrite,
  describeFsError,
  isWriterName,
  NotRegularFile,
  openRegular,
  RELEASE_IN_BACKGROUND,
  sweepLeftovers,
} from "../../../tools/kernel/atomic_write.ts";
import { tempDir } from "../../_temp.ts";

async function dirWith(name: string, text: string, mode = 0o640) {
  const dir = await tempDir();
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, mode);
  return { dir, path };
}

async function leftovers(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (/\.wave-(tmp|old)$/.test(e.name)) names.push(e.name);
  }
  return names;
}

Deno.test("000 atomic #1: the write goes to a temp file in the same directory, then is renamed", async () => {
  const { dir, path } = await dirWith("a.txt", "old");
  const seen: [string, string][] = [];
  const spy: AtomicFs = {
    write: (f, c) => f.write(c),
    rename: async (from, to) => {
      seen.push([from, to]);
      assert.equal(await Deno.readTextFile(from), "new bytes");
      assert.equal(await Deno.readTextFile(to), "old");
      await Deno.rename(from, to);
    },
  };
  const result = await atomicWrite(path, "new bytes", { fs: spy });
  assert.equal(result.existed, true);
  assert.equal(result.previousSize, 3);
  assert.equal(seen.length, 1);
  assert.equal(seen[0][1], path);
  assert.ok(seen[0][0].startsWith(`${dir}/.a.txt.`), seen[0][0]);
  assert.equal(await Deno.readTextFile(path), "new bytes");
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o640, "mode kept");
  assert.deepEqual(await leftovers(dir), []);
});

Deno.test("000 atomic #2: a failing rename leaves the old bytes and no temp file", async () => {
  const { dir, path } = await dirWith("b.txt", "keep me");
  const failing: AtomicFs = {
    write: (f, c) => f.write(c),
    rename: () =>
      Promise.reject(new Deno.errors.PermissionDenied("rename refused")),
  };
  await assert.rejects(
    atomicWrite(path, "replacement", { fs: failing }),
    Deno.errors.PermissionDenied,
  );
  assert.equal(await Deno.readTextFile(path), "keep me");
  assert.deepEqual(await leftovers(dir), []);
});

Deno.test("000 atomic #2: a short write then a full disk leaves the old bytes and no temp file", async () => {
  const { dir, path } = await dirWith("c.txt", "original");
  let calls = 0;
  const diskFull: AtomicFs = {
    write: async (f, c) => {
      if (calls++ === 0) {
        return await f.write(c.subarray(0, Math.ceil(c.length / 2)));
      }
      throw new Error("No space left on device (os error 28)");
    },
    rename: (a, b) => Deno.rename(a, b),
  };
  const error = await atomicWrite(path, "x".repeat(1000), { fs: diskFull })
    .catch((e) => e);
  assert.match(
    describeFsError(error, path),
    /^the disk is full; nothing was written to /,
  );
  assert.equal(await Deno.readTextFile(path), "original");
  assert.deepEqual(await leftovers(dir), []);
});

Deno.test("000 atomic: a write into a read-only directory fails cleanly", {
  ignore: Deno.uid() === 0,
}, async () => {
  const { dir, path } = await dirWith("d.txt", "stay");
  await Deno.chmod(dir, 0o555);
  try {
    const error = await atomicWrite(path, "nope").catch((e) => e);
    assert.ok(error instanceof Deno.errors.PermissionDenied);
    assert.equal(await Deno.readTextFile(path), "stay");
    assert.deepEqual(await leftovers(dir), []);
  } finally {
    await Deno.chmod(dir, 0o755);
  }
});

Deno.test("000 atomic: a read-only directory, for real, as root (chattr +i)", {
  ignore: Deno.uid() !== 0,
}, async () => {
  const { dir, path } = await dirWith("e.txt", "stay");
  const lock = await new Deno.Command("chattr", {
    args: ["+i", dir],
    stderr: "null",
  }).output()
    .catch(() => ({ success: false }));
  if (!lock.success) {
    console.error(
      "chattr is not available here; the fault-injection tests cover this path",
    );
    return;
  }
  try {
    const error = await atomicWrite(path, "nope").catch((e) => e);
    assert.ok(error instanceof Error);
    assert.equal(await Deno.readTextFile(path), "stay");
    assert.deepEqual(await leftovers(dir), []);
  } finally {
    await new Deno.Command("chattr", { args: ["-i", dir] }).output();
  }
});

Deno.test("000 atomic #1: a concurrent reader never sees a half-written file", async () => {
  const dir = await tempDir();
  const path = `${dir}/big.txt`;
  const a = "a".repeat(2 * 1024 * 1024);
  const b = "b".repeat(3 * 1024 * 1024);
  await Deno.writeTextFile(path, a);
  let stop = false;
  let reads = 0;
  const reader = (async () => {
    while (!stop) {
      const text = await Deno.readTextFile(path);
      reads++;
      assert.ok(
        text === a || text === b,
        `saw a partial file of ${text.length} bytes`,
      );
    }
  })();
  for (let i = 0; i < 20; i++) await atomicWrite(path, i % 2 ? a : b);
  stop = true;
  await reader;
  assert.ok(reads > 0);
});

Deno.test("atomic: new files get parents on request and the umask's mode", async () => {
  const dir = await tempDir();
  const path = `${dir}/x/y/z.txt`;
  await assert.rejects(atomicWrite(path, "1"), Deno.errors.NotFound);
  const result = await atomicWrite(path, "1", { createParents: true });
  assert.equal(result.existed, false);
  assert.equal(result.previousSize, undefined);
  assert.equal(await Deno.readTextFile(path), "1");
  const exec = await atomicWrite(`${dir}/run.sh`, "#!/bin/sh\n", {
    mode: 0o755,
  });
  assert.equal(exec.existed, false);
  assert.equal((await Deno.stat(`${dir}/run.sh`)).mode! & 0o777, 0o755);
});

Deno.test("atomic: a directory at the path is refused", async () => {
  const dir = await tempDir();
  await assert.rejects(atomicWrite(dir, "x"), Deno.errors.IsADirectory);
});

Deno.test("atomic: a large file replaced is freed in the background; an open reader keeps the old bytes", async () => {
  const big = "o".repeat(RELEASE_IN_BACKGROUND);
  const { dir, path } = await dirWith("big.txt", big, 0o600);
  using reader = await Deno.open(path);
  let kept: string[] = [];
  const spy: AtomicFs = {
    write: (f, c) => f.write(c),
    rename: async (from, to) => {
      // The old file has a second name while the rename drops its first.
      kept = (await leftovers(dir)).filter((n) => n.endsWith(".wave-old"));
      await Deno.rename(from, to);
    },
  };
  const result = await atomicWrite(path, "new", { fs: spy });
  assert.equal(kept.length, 1);
  assert.match(kept[0], /^\.big\.txt\.[0-9a-f]{8}\.wave-old$/);
  await result.released;
  assert.deepEqual(await leftovers(dir), []);
  assert.equal(await Deno.readTextFile(path), "new");
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  const old = new Uint8Array(big.length);
  let at = 0;
  while (at < old.length) {
    const n = await reader.read(old.subarray(at));
    if (n === null) break;
    at += n;
  }
  assert.equal(new TextDecoder().decode(old.subarray(0, at)), big);
});

Deno.test("atomic: where links are refused, a large file is replaced all the same", async () => {
  const { dir, path } = await dirWith(
    "big.txt",
    "o".repeat(RELEASE_IN_BACKGROUND),
  );
  const noLinks: AtomicFs = {
    write: (f, c) => f.write(c),
    rename: (a, b) => Deno.rename(a, b),
    link: () =>
      Promise.reject(new Deno.errors.PermissionDenied("no links here")),
  };
  const result = await atomicWrite(path, "new", { fs: noLinks });
  await result.released;
  assert.equal(await Deno.readTextFile(path), "new");
  assert.deepEqual(await leftovers(dir), []);
});

Deno.test("atomic: a failing rename of a large file leaves it whole, with no second name", async () => {
  const big = "k".repeat(RELEASE_IN_BACKGROUND + 1);
  const { dir, path } = await dirWith("big.txt", big);
  const failing: AtomicFs = {
    write: (f, c) => f.write(c),
    rename: () => Promise.reject(new Deno.errors.PermissionDenied("refused")),
  };
  await assert.rejects(atomicWrite(path, "x", { fs: failing }));
  // The second name is removed in the background.
  for (let i = 0; i < 100 && (await leftovers(dir)).length > 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(await leftovers(dir), []);
  assert.equal(await Deno.readTextFile(path), big);
});

Deno.test("atomic: a named pipe at the path is refused and left as it is", async () => {
  const dir = await tempDir();
  const path = `${dir}/pipe`;
  assert.equal(
    (await new Deno.Command("mkfifo", { args: [path] }).output()).code,
    0,
  );
  const error = await atomicWrite(path, "x").catch((e) => e);
  assert.ok(error instanceof NotRegularFile);
  assert.equal(
    describeFsError(error, "pipe"),
    "pipe is a named pipe, socket or device, not a regular file",
  );
  assert.equal((await Deno.stat(path)).isFifo, true);
  assert.deepEqual(await leftovers(dir), []);
});

Deno.test("atomic: a parent that is a file is said to be one", async () => {
  const { dir } = await dirWith("file.txt", "x");
  const error = await atomicWrite(`${dir}/file.txt/deeper/new.txt`, "y", {
    createParents: true,
  }).catch((e) => e);
  assert.ok(error instanceof Deno.errors.NotADirectory, String(error));
  assert.equal(
    describeFsError(error, "file.txt/deeper/new.txt"),
    "a parent of file.txt/deeper/new.txt is not a directory",
  );
  assert.equal(await Deno.readTextFile(`${dir}/file.txt`), "x");
});

Deno.test("atomic: many small chunks are written in a few large writes, byte for byte", async () => {
  const dir = await tempDir();
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < 100_000; i++) {
    chunks.push(new TextEncoder().encode(`${i},`));
    if (i === 50_000) chunks.push(new Uint8Array(700_000).fill(65)); // a large one passes through
  }
  let writes = 0;
  const counting: AtomicFs = {
    write: (f, c) => {
      writes++;
      return f.write(c);
    },
    rename: (a, b) => Deno.rename(a, b),
  };
  await atomicWrite(`${dir}/out`, chunks, { fs: counting });
  const expected = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    expected.set(c, at);
    at += c.length;
  }
  assert.deepEqual(await Deno.readFile(`${dir}/out`), expected);
  assert.ok(writes <= 4, `${writes} writes for ${chunks.length} chunks`);
});

Deno.test("atomic: its second names are .NAME.XXXXXXXX.wave-tmp and .wave-old, and nothing else", () => {
  for (
    const name of [
      ".a.txt.0123abcd.wave-tmp",
      ".a.txt.0123abcd.wave-old",
      ".line\nbreak.0123abcd.wave-tmp",
    ]
  ) assert.ok(isWriterName(name), name);
  for (
    const name of [
      "a.txt.0123abcd.wave-tmp",
      ".a.txt.wave-tmp",
      ".a.txt.0123ABCD.wave-tmp",
      ".a.txt.0123abc.wave-old",
      ".a.txt.0123abcd.wave-tmp.bak",
    ]
  ) assert.ok(!isWriterName(name), name);
});

Deno.test("atomic: a name of 255 bytes is written; its temp name is cut to fit", async () => {
  const dir = await tempDir();
  const name = "é".repeat(120) + "x".repeat(15); // 255 bytes
  const temps: string[] = [];
  await atomicWrite(`${dir}/${name}`, "fits", {
    fs: {
      write: (f, c) => f.write(c),
      rename: (from, to) => {
        temps.push(from.slice(dir.length + 1));
        return Deno.rename(from, to);
      },
    },
  });
  assert.equal(await Deno.readTextFile(`${dir}/${name}`), "fits");
  assert.equal(new TextEncoder().encode(temps[0]).length, 255);
  assert.ok(isWriterName(temps[0]), temps[0]);
  assert.ok(temps[0].startsWith(`.${"é".repeat(118)}.`), temps[0]);
});

Deno.test("atomic: a sweep removes leftovers no process holds, never a live writer's temp file, nor other names", async () => {
  const dir = await tempDir();
  const orphan = ".a.txt.0123abcd.wave-tmp";
  const old = ".big.bin.89abcdef.wave-old";
  const others = ["a.txt.0123abcd.wave-tmp", ".a.txt.wave-tmp"];

  // A write of this process, stopped in the middle of its temp file.
  let resume!: () => void;
  const paused = new Promise<void>((resolve) => resume = resolve);
  let started!: () => void;
  const writing = new Promise<void>((resolve) => started = resolve);
  const write = atomicWrite(`${dir}/live.txt`, "live bytes", {
    fs: {
      write: async (f, c) => {
        started();
        await paused;
        return await f.write(c);
      },
      rename: (from, to) => Deno.rename(from, to),
    },
  });
  await writing;
  const live = await leftovers(dir);
  assert.equal(live.length, 1);
  assert.ok(live[0].startsWith(".live.txt."), live[0]);
  // Made after the write's own sweep of the directory.
  await Deno.writeTextFile(`${dir}/${orphan}`, "half a wri");
  await Deno.writeTextFile(`${dir}/${old}`, "old bytes");
  for (const name of others) await Deno.writeTextFile(`${dir}/${name}`, "x");
  await Deno.mkdir(`${dir}/.d.0123abcd.wave-tmp`);
  await Deno.symlink(`${dir}/${others[0]}`, `${dir}/.l.0123abcd.wave-tmp`);

  assert.deepEqual((await sweepLeftovers(dir)).sort(), [orphan, old]);
  const names = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  assert.deepEqual(
    names.sort(),
    [
      ".a.txt.wave-tmp",
      ".d.0123abcd.wave-tmp",
      ".l.0123abcd.wave-tmp",
      live[0],
      "a.txt.0123abcd.wave-tmp",
    ],
  );
  resume();
  await write;
  assert.equal(await Deno.readTextFile(`${dir}/live.txt`), "live bytes");
  assert.ok(!(await leftovers(dir)).includes(live[0]), "renamed into place");
});

Deno.test("atomic: a writer killed with SIGKILL leaves a temp file the next sweep removes; alive, it kept it", async () => {
  const dir = await tempDir();
  const module =
    new URL("../../../tools/kernel/atomic_write.ts", import.meta.url)
      .href;
  // Another process starts a write and stops in the middle of it.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { atomicWrite } from ${JSON.stringify(module)};
       await atomicWrite(${JSON.stringify(`${dir}/a.txt`)}, "bytes", { fs: {
         write: async () => {
           console.log("writing");
           await Deno.stdin.read(new Uint8Array(1)); // never written: waits
           throw new Error("not reached");
         },
         rename: (a, b) => Deno.rename(a, b),
       }});`,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await lines.read()).value, "writing\n");
  const [temp] = await leftovers(dir);
  assert.match(temp, /^\.a\.txt\.[0-9a-f]{8}\.wave-tmp$/);
  assert.deepEqual(await sweepLeftovers(dir), [], "its writer is alive");
  child.kill("SIGKILL");
  await child.status;
  await lines.cancel();
  await child.stdin.close().catch(() => {});
  assert.deepEqual(await sweepLeftovers(dir), [temp]);
  assert.deepEqual(await leftovers(dir), []);
});

Deno.test("atomic: a write sweeps its directory first", async () => {
  const { dir, path } = await dirWith("c.txt", "old");
  await Deno.writeTextFile(`${dir}/.gone.txt.0123abcd.wave-tmp`, "half");
  await atomicWrite(path, "new");
  assert.deepEqual(await leftovers(dir), []);
  assert.equal(await Deno.readTextFile(path), "new");
});

Deno.test(
  "atomic: a sweep never waits on a FIFO swapped in for a leftover after its lstat",
  {
    ignore: Deno.build.os === "windows",
  },
  async () => {
    const dir = await tempDir();
    const path = `${dir}/.a.txt.0123abcd.wave-tmp`;
    await Deno.writeTextFile(path, "half a wri");
    const seen = await Deno.lstat(path);
    // Swapped between the sweep's lstat and its open.
    await Deno.remove(path);
    const made = await new Deno.Command("mkfifo", { args: [path] }).output();
    assert.ok(made.success, "mkfifo");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<"hung">((resolve) => {
      timer = setTimeout(() => resolve("hung"), 3000);
    });
    const opening = openRegular(path, seen);
    const first = await Promise.race([opening, hung]);
    clearTimeout(timer);
    if (first === "hung") {
      // Let the blocked open go (a writer end), so the test ends.
      (await Deno.open(path, { write: true })).close();
      (await opening)?.close();
      assert.fail("the open waited for a writer of the FIFO");
    }
    assert.equal(first, undefined, "a FIFO is not the regular file seen");
    assert.ok((await Deno.lstat(path)).isFifo, "left as it is");
    // A read-only leftover is still swept; the FIFO is left.
    await Deno.writeTextFile(`${dir}/.b.txt.0123abcd.wave-tmp`, "x");
    await Deno.chmod(`${dir}/.b.txt.0123abcd.wave-tmp`, 0o444);
    assert.deepEqual(await sweepLeftovers(dir), [".b.txt.0123abcd.wave-tmp"]);
    assert.ok((await Deno.lstat(path)).isFifo);
    await Deno.remove(dir, { recursive: true });
  },
);

Deno.test("atomic: a temp file swapped for a link to another file before its chmod leaves that file's mode alone, and the write is abandoned", async () => {
  const { dir, path } = await dirWith("a.txt", "old", 0o640);
  const outside = await tempDir();
  const victim = `${outside}/id_rsa`;
  await Deno.writeTextFile(victim, "secret");
  await Deno.chmod(victim, 0o600);
  await assert.rejects(
    atomicWrite(path, "new", {
      // A racing process, between the write and the chmod: the temp file's
      // name now leads to the user's key.
      whileFlushing: () => {
        for (const e of Deno.readDirSync(dir)) {
          if (!e.name.endsWith(".wave-tmp")) continue;
          Deno.renameSync(`${dir}/${e.name}`, `${dir}/moved`);
          Deno.symlinkSync(victim, `${dir}/${e.name}`);
        }
      },
    }),
    /was replaced by another process while it was written, so the write was abandoned; try again/,
  );
  assert.equal((await Deno.stat(victim)).mode! & 0o7777, 0o600);
  assert.equal(await Deno.readTextFile(victim), "secret");
  assert.equal(await Deno.readTextFile(path), "old");
});

Deno.test("atomic: a file whose mode lets its owner neither read nor write keeps that mode exactly", async () => {
  const { path } = await dirWith("a.txt", "old", 0o640);
  await atomicWrite(path, "new", { mode: 0o040 });
  assert.equal((await Deno.stat(path)).mode! & 0o7777, 0o040);
  await Deno.chmod(path, 0o600);
  assert.equal(await Deno.readTextFile(path), "new");
});
