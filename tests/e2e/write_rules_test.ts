/**
 * End-to-end: the write rules of every dialect, through `call_tool`, for
 * every tool that changes a file. Where a dialect's spec requires a read
 * (wave), an existing file not read is refused; elsewhere (sata, devflow)
 * it is written. Everywhere, a file read and then changed on disk is
 * refused as stale, naming the dialect's read tool; a file read and only
 * touched, or read and left alone, is written.
 */

import assert from "node:assert/strict";
import { type WaveProcess, withWave } from "../_wave.ts";

/** The content every case starts from, and what each change makes of it. */
const BASE = "one\ntwo\n";
const OUTSIDE = "one\nchanged outside\n";

interface WriteCase {
  tool: string;
  /** The file, from a name unique to the scenario. */
  path: (name: string) => string;
  input: (name: string) => Record<string, unknown>;
  /** The verb its refusals use. */
  action: string;
  /** The file's content after the change, from BASE. */
  after: string;
  /** The dialect's read of the file (default: the dialect's read tool). */
  read?: (name: string) => [string, Record<string, unknown>];
  /** Puts the file in place (default: BASE at `path`). */
  prepare?: (wave: WaveProcess, name: string) => Promise<void>;
  /** It can only follow a change of this session's (so never comes first). */
  needsHistory?: boolean;
}

interface Dialect {
  toolset: string;
  readTool: string;
  read: (path: string) => Record<string, unknown>;
  requiresRead: boolean;
  writes: WriteCase[];
}

const file = (name: string) => `${name}.txt`;

const DIALECTS: Dialect[] = [
  {
    toolset: "wave",
    readTool: "Read",
    read: (path) => ({ file_path: path }),
    requiresRead: true,
    writes: [
      {
        tool: "Write",
        path: file,
        input: (n) => ({ file_path: file(n), content: "new\n" }),
        action: "overwrite",
        after: "new\n",
      },
      {
        tool: "Edit",
        path: file,
        input: (n) => ({
          file_path: file(n),
          old_string: "one",
          new_string: "ONE",
        }),
        action: "edit",
        after: "ONE\ntwo\n",
      },
    ],
  },
  {
    toolset: "sata",
    readTool: "read",
    read: (path) => ({ Path: path }),
    requiresRead: false,
    writes: [
      {
        tool: "write",
        path: file,
        input: (n) => ({ Path: file(n), Content: "new\n" }),
        action: "write",
        after: "new\n",
      },
      {
        tool: "edit",
        path: file,
        input: (n) => ({ Path: file(n), Old: "one", New: "ONE" }),
        action: "edit",
        after: "ONE\ntwo\n",
      },
      {
        tool: "write_plan",
        path: (n) => `.cursor/${n}.md`,
        input: (n) => ({ Name: n, Content: "new\n" }),
        action: "write",
        after: "new\n",
        read: (n) => ["read_plan", { Name: n }],
      },
    ],
  },
  {
    toolset: "devflow",
    readTool: "read_file",
    read: (path) => ({ path }),
    requiresRead: false,
    writes: [
      {
        tool: "write_file",
        path: file,
        input: (n) => ({ path: file(n), content: "new\n" }),
        action: "overwrite",
        after: "new\n",
      },
      {
        tool: "patch_file",
        path: file,
        input: (n) => ({ path: file(n), old_text: "one", new_text: "ONE" }),
        action: "patch",
        after: "ONE\ntwo\n",
      },
      {
        tool: "append_file",
        path: file,
        input: (n) => ({ path: file(n), content: "more\n" }),
        action: "append to",
        after: "one\ntwo\nmore\n",
      },
      {
        tool: "restore_file",
        path: file,
        input: (n) => ({ path: file(n) }),
        action: "restore",
        // Restores what the file held before prepare's write_file.
        after: "zero\n",
        prepare: async (wave, n) => {
          wave.put(file(n), "zero\n");
          const wrote = await wave.callTool("write_file", {
            path: file(n),
            content: BASE,
          });
          assert.equal(wrote.is_error, false);
        },
        needsHistory: true,
      },
    ],
  },
];

/** A change by someone else: new content and a later mtime. */
function changeOutside(wave: WaveProcess, path: string, content: string) {
  const full = `${wave.workspace}/${path}`;
  Deno.writeTextFileSync(full, content);
  const later = new Date(Date.now() + 5_000);
  Deno.utimeSync(full, later, later);
}

async function prepare(wave: WaveProcess, write: WriteCase, name: string) {
  if (write.prepare) await write.prepare(wave, name);
  else wave.put(write.path(name), BASE);
}

async function read(
  wave: WaveProcess,
  dialect: Dialect,
  write: WriteCase,
  name: string,
) {
  const [tool, input] = write.read?.(name) ??
    [dialect.readTool, dialect.read(write.path(name))];
  const result = await wave.callTool(tool, input);
  assert.equal(result.is_error, false, `${tool}: ${result.content}`);
}

for (const dialect of DIALECTS) {
  Deno.test(
    `write rules, ${dialect.toolset}: ${
      dialect.requiresRead
        ? "no change without a read"
        : "changes without a read"
    }; stale after an outside change; fine after a read or a touch`,
    () =>
      withWave({ args: ["--toolset", dialect.toolset] }, async (wave) => {
        const contentOf = (path: string) =>
          Deno.readTextFileSync(`${wave.workspace}/${path}`);
        for (const write of dialect.writes) {
          const label = `${dialect.toolset} ${write.tool}`;

          // Without a read.
          if (!write.needsHistory) {
            const name = `${write.tool}-unread`;
            await prepare(wave, write, name);
            const r = await wave.callTool(write.tool, write.input(name));
            if (dialect.requiresRead) {
              assert.equal(r.is_error, true, label);
              assert.equal(
                r.content,
                `${
                  write.path(name)
                } has not been read in this session. Call ${dialect.readTool} on it first, then ${write.action} it.`,
                label,
              );
              assert.equal(contentOf(write.path(name)), BASE, label);
            } else {
              assert.equal(r.is_error, false, `${label}: ${r.content}`);
              assert.equal(contentOf(write.path(name)), write.after, label);
            }
          }

          // Read, then changed on disk: stale everywhere, nothing written.
          {
            const name = `${write.tool}-stale`;
            await prepare(wave, write, name);
            await read(wave, dialect, write, name);
            changeOutside(wave, write.path(name), OUTSIDE);
            const r = await wave.callTool(write.tool, write.input(name));
            assert.equal(r.is_error, true, label);
            assert.equal(
              r.content,
              `${
                write.path(name)
              } has changed on disk since it was last read (by the user, a formatter or another process). Call ${dialect.readTool} on it again, then ${write.action} it.`,
              label,
            );
            assert.equal(contentOf(write.path(name)), OUTSIDE, label);
            // Read again, the change goes through.
            await read(wave, dialect, write, name);
            const again = await wave.callTool(write.tool, write.input(name));
            assert.equal(again.is_error, false, `${label}: ${again.content}`);
          }

          // Read, then only touched (same content): a whole read still holds.
          {
            const name = `${write.tool}-touched`;
            await prepare(wave, write, name);
            await read(wave, dialect, write, name);
            changeOutside(wave, write.path(name), contentOf(write.path(name)));
            const r = await wave.callTool(write.tool, write.input(name));
            assert.equal(r.is_error, false, `${label}: ${r.content}`);
            assert.equal(contentOf(write.path(name)), write.after, label);
          }

          // Read, then changed by this session: allowed.
          {
            const name = `${write.tool}-read`;
            await prepare(wave, write, name);
            await read(wave, dialect, write, name);
            const r = await wave.callTool(write.tool, write.input(name));
            assert.equal(r.is_error, false, `${label}: ${r.content}`);
            assert.equal(contentOf(write.path(name)), write.after, label);
          }
        }
      }),
  );
}
