/**
 * End-to-end: the file boundary under races (issue 12). A path is used as
 * it was checked: another process's renames and symlinks, between a
 * tool's check and its open, never make a tool read, write, create or
 * change anything outside the workspace. Two attacks, in every dialect:
 * a command queued before the file calls that swaps a directory for a
 * symlink to the outside (the calls are checked when they arrive, and run
 * after it), under `--shell-sandbox none` and the default sandbox; and an
 * outside process exchanging a directory and such a symlink in a loop
 * while the calls run. As root, and as `nobody` where the tests run as
 * root. Where the kernel has no Landlock they are skipped: there the
 * boundary is the path checks, which `system/init` and a warning say.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type Message, startWave, type WaveProcess } from "../_wave.ts";
import { landlockAbi } from "../../tools/kernel/landlock.ts";
import { WEAK_FILE_BOUNDARY } from "../../session/server.ts";
import {
  NOBODY,
  nobodyDir,
  nobodyRuntime,
  startWaveAsNobody,
} from "./_unprivileged.ts";
import { tempDir } from "../_temp.ts";

const SECRET = `outside-secret-${crypto.randomUUID()}`;
const RACER = fileURLToPath(new URL("./_racer.ts", import.meta.url));
const noLandlock = landlockAbi() > 0
  ? false
  : "the kernel has no Landlock: the file tools are held by path checks only";

type Call = [tool: string, input: Record<string, unknown>];

/** How a dialect names the calls of the attacks; `ws` is the workspace. */
interface Dialect {
  toolset: string;
  shell?(command: string): Call;
  read(ws: string, path: string): Call;
  write?(ws: string, path: string, content: string): Call;
  edit?(ws: string, path: string, from: string, to: string): Call;
}

/** `path` in the workspace `ws`, unless it is absolute. */
const inWs = (ws: string, path: string) =>
  path.startsWith("/") ? path : `${ws}/${path}`;

const DIALECTS: Dialect[] = [
  {
    toolset: "wave",
    shell: (command) => ["Bash", { command }],
    read: (ws, path) => ["Read", { file_path: inWs(ws, path) }],
    write: (ws, path, content) => [
      "Write",
      { file_path: inWs(ws, path), content },
    ],
    edit: (ws, path, from, to) => [
      "Edit",
      { file_path: inWs(ws, path), old_string: from, new_string: to },
    ],
  },
  {
    toolset: "sata",
    shell: (command) => ["shell", { Program: "bash", Script: command }],
    read: (_, path) => ["read", { Path: path }],
    write: (_, path, content) => ["write", { Path: path, Content: content }],
    edit: (_, path, from, to) => ["edit", { Path: path, Old: from, New: to }],
  },
  {
    toolset: "devflow",
    shell: (command) => ["run_command", { command }],
    read: (_, path) => ["read_file", { path }],
    write: (_, path, content) => ["write_file", { path, content }],
    edit: (_, path, from, to) => [
      "patch_file",
      { path, old_text: from, new_text: to },
    ],
  },
  {
    toolset: "files",
    read: (_, path) => ["read_files", { files: [{ path }] }],
    write: (_, path, content) => ["edit_file", { path, content }],
    edit: (_, path, from, to) => [
      "edit_file",
      { path, targets: [{ old_string: from, new_string: to }] },
    ],
  },
];

/** Who wave runs as, and where its files and the outside are. */
interface Runner {
  name: string;
  skip(): Promise<string | false>;
  /** A new directory this runner's wave may use (the outside is one too: readable and writable by it, so only the boundary stands between). */
  dir(prefix: string): Promise<string>;
  start(args: string[], workspace: string): Promise<WaveProcess>;
}

const asThisUser: Runner = {
  name: Deno.uid() === 0 ? "root" : "this user",
  skip: () => Promise.resolve(false),
  dir: async (prefix) => await Deno.realPath(await tempDir({ prefix })),
  start: (args, workspace) => startWave({ args, workspace }),
};

const asNobody: Runner = {
  name: "nobody",
  skip: async () => {
    const rt = await nobodyRuntime();
    return typeof rt === "string" ? rt : false;
  },
  dir: async (prefix) => {
    const rt = await nobodyRuntime();
    if (typeof rt === "string") throw new Error(rt);
    return await Deno.realPath(await nobodyDir(rt, prefix));
  },
  start: async (args, workspace) => {
    const rt = await nobodyRuntime();
    if (typeof rt === "string") throw new Error(rt);
    return await startWaveAsNobody(rt, args, {}, { workspace });
  },
};

/** bubblewrap makes its sandbox here as `runner`. */
async function bwrapSkip(runner: Runner): Promise<string | false> {
  const prefix = runner === asNobody
    ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    : [];
  const [cmd, ...args] = [
    ...prefix,
    "bwrap",
    "--ro-bind",
    "/",
    "/",
    "--unshare-all",
    "true",
  ];
  const ok = (await new Deno.Command(cmd, {
    args,
    stdout: "null",
    stderr: "null",
  }).output().catch(() => ({ success: false }))).success;
  return ok ? false : "bubblewrap cannot make its sandbox here";
}

/** Writes `files` (name → text) into `dir`, owned by nobody when `runner` is. */
async function put(runner: Runner, dir: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
    if (runner === asNobody) {
      await Deno.chown(path.slice(0, path.lastIndexOf("/")), NOBODY, NOBODY);
      await Deno.chown(path, NOBODY, NOBODY);
    }
  }
}

/** The names in `dir` and their contents, for "nothing changed" checks. */
async function contents(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    found[entry.name] = entry.isFile
      ? await Deno.readTextFile(`${dir}/${entry.name}`)
      : `(${entry.isDirectory ? "dir" : "link"})`;
  }
  return found;
}

/** Sends calls at once and returns their answers, in order. */
async function concurrently(
  wave: WaveProcess,
  calls: Call[],
): Promise<Message[]> {
  const ids = calls.map((_, i) => `race-${i}`);
  for (const [i, [tool, input]] of calls.entries()) {
    await wave.sendCall(ids[i], tool, input);
  }
  return await Promise.all(ids.map(async (id) => {
    const m = await wave.waitFor(
      (m) => m.type === "control_response" && m.response.request_id === id,
      { what: `the answer to ${id}`, timeoutMs: 30_000 },
    );
    return m.response.response ?? { is_error: true, content: m.response.error };
  }));
}

for (const runner of [asThisUser, asNobody]) {
  for (const dialect of DIALECTS.filter((d) => d.shell)) {
    for (const sandbox of ["none", "auto"]) {
      Deno.test(`file races as ${runner.name}: ${dialect.toolset}, --shell-sandbox ${sandbox}: a command swaps a directory for a link to the outside before queued calls run: nothing outside is read, written or created`, async () => {
        const why = noLandlock || await runner.skip() ||
          (sandbox === "auto" && await bwrapSkip(runner));
        if (why) {
          console.error(`skipped (${why})`);
          return;
        }
        const ws = await runner.dir("race-ws-");
        const outside = await runner.dir("race-outside-");
        await put(runner, ws, {
          "dir/f.txt": "inside\n",
          "dir/victim.txt": "victim inside\n",
        });
        await put(runner, outside, {
          "f.txt": `${SECRET}\n`,
          "victim.txt": "victim outside\n",
        });
        const before = await contents(outside);
        const wave = await runner.start(
          ["--toolset", dialect.toolset, "--shell-sandbox", sandbox],
          ws,
        );
        try {
          // Read first, so the edit is allowed to follow.
          const [tool, input] = dialect.read(ws, "dir/victim.txt");
          assert.equal((await wave.callTool(tool, input)).is_error, false);
          const [shell, read, write, edit] = await concurrently(wave, [
            dialect.shell!(`sleep 1; mv dir dir.bak && ln -s ${outside} dir`),
            dialect.read(ws, "dir/f.txt"),
            dialect.write!(ws, "dir/planted.txt", "planted\n"),
            dialect.edit!(ws, "dir/victim.txt", "victim", "EDITED"),
          ]);
          assert.equal(shell.is_error, false, shell.content);
          // The swap happened, and each call met it.
          assert.equal(
            await Deno.realPath(`${ws}/dir`),
            outside,
            "the command did not swap the directory",
          );
          assert.doesNotMatch(JSON.stringify(read), new RegExp(SECRET));
          assert.equal(read.is_error, true, JSON.stringify(read));
          assert.equal(write.is_error, true, JSON.stringify(write));
          assert.equal(edit.is_error, true, JSON.stringify(edit));
          assert.deepEqual(await contents(outside), before);
        } finally {
          await wave.kill();
        }
      });
    }
  }

  for (const dialect of DIALECTS) {
    for (const sandbox of ["none", "auto"]) {
      Deno.test(`file races as ${runner.name}: ${dialect.toolset}, --shell-sandbox ${sandbox}: an outside process exchanging a directory and a link to the outside in a loop gets nothing read, written or created outside`, async () => {
        const why = noLandlock || await runner.skip() ||
          (sandbox === "auto" && await bwrapSkip(runner));
        if (why) {
          console.error(`skipped (${why})`);
          return;
        }
        const ws = await runner.dir("race-ws-");
        const outside = await runner.dir("race-outside-");
        await put(runner, ws, { "d/x.txt": "inside\n" });
        await put(runner, outside, { "x.txt": `${SECRET}\n` });
        await Deno.symlink(outside, `${ws}/l`);
        const before = await contents(outside);
        const wave = await runner.start(
          ["--toolset", dialect.toolset, "--shell-sandbox", sandbox],
          ws,
        );
        const racer = new Deno.Command(Deno.execPath(), {
          args: ["run", "--allow-ffi", RACER, `${ws}/d`, `${ws}/l`],
          stdout: "piped",
          stderr: "null",
        }).spawn();
        let leaks = 0;
        let inside = 0;
        let calls = 0;
        const internal: string[] = [];
        try {
          const end = Date.now() + 2500;
          // At least 2.5 s and 60 calls, however loaded the machine is.
          for (let i = 0; i < 60 || Date.now() < end; i++) {
            const [tool, input] = dialect.write && i % 2 === 1
              ? dialect.write(ws, `d/planted-${i}.txt`, "planted\n")
              : dialect.read(ws, "d/x.txt");
            const result = await wave.callTool(tool, input);
            const answer = JSON.stringify(result);
            calls++;
            // A refusal is said as one, never as a failure of wave's own.
            if (result.structured?.type === "internal_error") {
              internal.push(String(result.content));
            }
            if (answer.includes(SECRET)) leaks++;
            if (answer.includes("inside")) inside++;
          }
        } finally {
          racer.kill("SIGKILL");
          await racer.output();
          await wave.kill();
        }
        assert.equal(leaks, 0, `${leaks} of ${calls} calls read the outside`);
        assert.deepEqual(internal, []);
        assert.deepEqual(await contents(outside), before);
        // The race ran both ways: some calls met the directory.
        assert.ok(inside > 0, `no call read the inside file`);
      });
    }
  }
}

Deno.test("file races: system/init says which boundary holds the file tools; path checks alone come with a warning", async () => {
  const wave = await startWave();
  try {
    assert.equal(
      wave.messages[0].sandbox.files,
      noLandlock ? "paths" : "landlock",
    );
  } finally {
    await wave.kill();
  }
  // As on a kernel without Landlock.
  const weak = await startWave({ args: ["--file-boundary", "paths"] });
  try {
    assert.equal(weak.messages[0].sandbox.files, "paths");
    const warning = await weak.waitFor((m) => m.subtype === "warning");
    assert.equal(warning.message, WEAK_FILE_BOUNDARY);
    // The tools work as before, held by the path checks.
    weak.put("a.txt", "a\n");
    const read = await weak.callTool("Read", {
      file_path: `${weak.workspace}/a.txt`,
    });
    assert.equal(read.is_error, false);
    const outside = await weak.callTool("Read", { file_path: "/etc/hostname" });
    assert.match(
      outside.content,
      /^Read was denied: path outside the workspace/,
    );
  } finally {
    await weak.kill();
  }
});

for (const dialect of DIALECTS.filter((d) => d.write)) {
  Deno.test(`file boundary: ${dialect.toolset}: an approved write and edit outside the workspace succeed, leaving nothing beside; denied ones leave nothing at all`, async () => {
    const outside = await asThisUser.dir("approved-outside-");
    const allowed = await startWave({
      args: ["--toolset", dialect.toolset, "--approvals", "allow"],
    });
    try {
      const target = `${outside}/notes.txt`;
      const [tool, input] = dialect.write!("", target, "one\n");
      const wrote = await allowed.callTool(tool, input);
      assert.equal(wrote.is_error, false, wrote.content);
      const [edit, edits] = dialect.edit!("", target, "one", "two");
      const edited = await allowed.callTool(edit, edits);
      assert.equal(edited.is_error, false, edited.content);
      assert.deepEqual(await contents(outside), { "notes.txt": "two\n" });
    } finally {
      await allowed.kill();
    }
    const denied = await startWave({ args: ["--toolset", dialect.toolset] });
    try {
      const [tool, input] = dialect.write!(
        "",
        `${outside}/x.txt`,
        "x",
      );
      const refused = await denied.callTool(tool, input);
      assert.equal(refused.is_error, true);
      assert.deepEqual(await contents(outside), { "notes.txt": "two\n" });
    } finally {
      await denied.kill();
    }
  });
}

Deno.test({
  name:
    "file boundary: a directory swapped for a link into WAVE_HOME before a queued Write: other sessions' transcripts cannot be forged or read",
  ignore: !!noLandlock,
  async fn() {
    const wave = await startWave({ args: ["--shell-sandbox", "none"] });
    try {
      const sessions = `${await Deno.realPath(wave.waveHome)}/sessions`;
      await Deno.mkdir(sessions, { recursive: true });
      await Deno.writeTextFile(`${sessions}/other.jsonl`, `${SECRET}\n`);
      const before = await contents(sessions);
      wave.put("dir/a.txt", "a\n");
      const [, read, write] = await concurrently(wave, [
        ["Bash", {
          command: `sleep 1; mv dir dir.bak && ln -s ${sessions} dir`,
        }],
        ["Read", { file_path: `${wave.workspace}/dir/other.jsonl` }],
        ["Write", {
          file_path: `${wave.workspace}/dir/forged.jsonl`,
          content: "{}\n",
        }],
      ]);
      assert.equal(await Deno.realPath(`${wave.workspace}/dir`), sessions);
      assert.doesNotMatch(JSON.stringify(read), new RegExp(SECRET));
      assert.equal(write.is_error, true, JSON.stringify(write));
      assert.deepEqual(await contents(sessions), before);
    } finally {
      await wave.kill();
    }
  },
});

Deno.test({
  name:
    "file boundary: a directory swapped for a link into another workspace's file history before a queued Write: its versions cannot be forged",
  ignore: !!noLandlock,
  async fn() {
    const wave = await startWave({ args: ["--shell-sandbox", "none"] });
    try {
      const home = await Deno.realPath(wave.waveHome);
      // Another workspace's history, as a session there left it.
      const other = `${home}/history/0123456789abcdef/blobs`;
      await Deno.mkdir(other, { recursive: true });
      const before = await contents(other);
      wave.put("dir/a.txt", "a\n");
      const [, write] = await concurrently(wave, [
        ["Bash", { command: `sleep 1; mv dir dir.bak && ln -s ${other} dir` }],
        ["Write", {
          file_path: `${wave.workspace}/dir/forged`,
          content: "forged\n",
        }],
      ]);
      assert.equal(await Deno.realPath(`${wave.workspace}/dir`), other);
      assert.equal(write.is_error, true, JSON.stringify(write));
      assert.deepEqual(await contents(other), before);
      // This workspace's own history still records the writes.
      const own = await wave.callTool("Write", {
        file_path: `${wave.workspace}/dir.bak/new.txt`,
        content: "b\n",
      });
      assert.equal(own.is_error, false, own.content);
    } finally {
      await wave.kill();
    }
  },
});
