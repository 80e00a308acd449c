import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  EXECUTE,
  landlockAbi,
  READ,
  READ_WRITE,
} from "../../../tools/kernel/landlock.ts";
import { tempDir } from "../../_temp.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const haveLandlock = landlockAbi() > 0;

/**
 * Runs `probe.ts` in a worker that restricts itself to `rules` and then
 * tries each access; returns what each gave ("ok" or the error's name).
 */
function probe(
  rules: { path: string; access: bigint }[],
  tries: { op: string; path: string; to?: string }[],
): Promise<string[]> {
  const worker = new Worker(
    new URL("./_landlock_probe.ts", import.meta.url),
    { type: "module" },
  );
  return new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      worker.terminate();
      resolve(event.data);
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message));
    };
    worker.postMessage({ rules, tries });
  });
}

async function tree() {
  const base = await Deno.realPath(await tempDir());
  await Deno.mkdir(`${base}/ws/dir`, { recursive: true });
  await Deno.mkdir(`${base}/outside`);
  await Deno.writeTextFile(`${base}/ws/dir/f.txt`, "inside");
  await Deno.writeTextFile(`${base}/outside/f.txt`, "secret");
  return base;
}

Deno.test({
  name:
    "landlock: a confined thread reads and writes inside, and nothing outside, symlinks included",
  ignore: !haveLandlock,
  async fn() {
    const base = await tree();
    // A directory of the workspace swapped for a symlink to the outside,
    // as a racing process would between a check and an open.
    await Deno.rename(`${base}/ws/dir`, `${base}/ws/dir.bak`);
    await Deno.symlink(`${base}/outside`, `${base}/ws/dir`);
    const results = await probe(
      [
        { path: `${base}/ws`, access: READ_WRITE },
        // Enough of the system for `cat` to run, which inherits the rules.
        ...["/usr", "/lib", "/lib64", "/bin"].map((path) => ({
          path,
          access: EXECUTE | READ,
        })),
        { path: "/dev/null", access: READ_WRITE },
      ],
      [
        { op: "read", path: `${base}/ws/dir.bak/f.txt` },
        { op: "write", path: `${base}/ws/new.txt` },
        { op: "read", path: `${base}/ws/dir/f.txt` },
        { op: "write", path: `${base}/ws/dir/planted.txt` },
        { op: "list", path: `${base}/ws/dir` },
        { op: "remove", path: `${base}/ws/dir/f.txt` },
        { op: "rename", path: `${base}/ws/dir/f.txt`, to: `${base}/ws/x` },
        { op: "cat", path: `${base}/ws/dir/f.txt` },
        { op: "read async", path: `${base}/ws/dir.bak/f.txt` },
      ],
    );
    assert.deepEqual(results, [
      "ok",
      "ok",
      "PermissionDenied",
      "PermissionDenied",
      "PermissionDenied",
      "PermissionDenied",
      "PermissionDenied",
      "exit 1",
      "ok",
    ]);
    assert.equal(await Deno.readTextFile(`${base}/outside/f.txt`), "secret");
    await assert.rejects(Deno.stat(`${base}/outside/planted.txt`));
    // The rest of the process is not held.
    assert.equal(await Deno.readTextFile(`${base}/ws/dir/f.txt`), "secret");
  },
});

Deno.test({
  name:
    "landlock: a rule whose path leads through a symlink (swapped in after the rules were made) grants nothing",
  ignore: !haveLandlock,
  async fn() {
    const base = await tree();
    // The rules name ws/dir and ws/dir/f.txt; a racing process has made
    // ws/dir a symlink to the outside, and ws/link.txt one to its file.
    await Deno.rename(`${base}/ws/dir`, `${base}/ws/dir.bak`);
    await Deno.symlink(`${base}/outside`, `${base}/ws/dir`);
    await Deno.symlink(`${base}/outside/f.txt`, `${base}/ws/link.txt`);
    const results = await probe(
      [
        { path: `${base}/ws/dir`, access: READ },
        { path: `${base}/ws/dir/f.txt`, access: READ },
        { path: `${base}/ws/link.txt`, access: READ },
        { path: `${base}/ws/dir.bak`, access: READ },
      ],
      [
        { op: "read", path: `${base}/outside/f.txt` },
        { op: "list", path: `${base}/outside` },
        { op: "read", path: `${base}/ws/dir.bak/f.txt` },
      ],
    );
    assert.deepEqual(results, ["PermissionDenied", "PermissionDenied", "ok"]);
  },
});

Deno.test({
  name:
    "landlock: a read-only rule lets a thread read but not write, create or remove",
  ignore: !haveLandlock,
  async fn() {
    const base = await tree();
    const results = await probe(
      [{ path: `${base}/ws`, access: READ }],
      [
        { op: "read", path: `${base}/ws/dir/f.txt` },
        { op: "write", path: `${base}/ws/dir/f.txt` },
        { op: "write", path: `${base}/ws/new.txt` },
        { op: "remove", path: `${base}/ws/dir/f.txt` },
      ],
    );
    assert.deepEqual(results, [
      "ok",
      "PermissionDenied",
      "PermissionDenied",
      "PermissionDenied",
    ]);
    assert.equal(await Deno.readTextFile(`${base}/ws/dir/f.txt`), "inside");
  },
});

/**
 * The asynchronous Deno ops that open, create, list, rename or remove a
 * path run on a pool thread that Landlock does not hold: the tools, which
 * run on confined threads, use the synchronous ops (or
 * tools/kernel/read_file.ts). Lines that must stay asynchronous say why,
 * and are listed here.
 */
const ASYNC_PATH_OP =
  /\bDeno\.(open|create|readFile|readTextFile|readDir|writeFile|writeTextFile|mkdir|remove|rename|link|symlink|copyFile|truncate|makeTempFile|makeTempDir)\(/;
const ALLOWED_ASYNC = new Set([
  // A read-only open that a FIFO could hold forever, of the writer's own name.
  "tools/kernel/atomic_write.ts:  const opening = Deno.open(path, { read: true }).catch(() => undefined);",
  // Freeing a large replaced file in the background, by its random name.
  "tools/kernel/atomic_write.ts:    await Deno.remove(path);",
  // Copies ripgrep out of a compiled binary, on the main thread.
  "tools/kernel/programs.ts:  const bytes = await Deno.readFile(source);",
]);

Deno.test("landlock: the tools open, list, rename and remove paths only with ops that run on their confined thread", async () => {
  const offending: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        const lines = (await Deno.readTextFile(`${ROOT}${path}`)).split("\n");
        for (const line of lines) {
          if (/^\s*(\*|\/\/)/.test(line) || !ASYNC_PATH_OP.test(line)) continue;
          if (!ALLOWED_ASYNC.has(`${path}:${line}`)) {
            offending.push(`${path}: ${line.trim()}`);
          }
        }
      }
    }
  };
  await walk("tools");
  assert.deepEqual(offending, []);
});
