/**
 * The `files` toolset's figures (issue #15): edit_file patching 50
 * targets of a 10 MB file against reading, writing and fsyncing it, and
 * what file history costs an Edit of a 10 MB file (with ÷ without).
 *
 * @module
 */

import { editBytes } from "../../tools/_core/edit.ts";
import { wholeRecord } from "../../tools/_core/freshness.ts";
import { loadContentHash } from "../../tools/_core/content_hash.ts";
import { fileRef } from "../../tools/_core/reader.ts";
import {
  commitWrite,
  currentBytes,
  openForWrite,
  type WriteRules,
} from "../../tools/_core/write_path.ts";
import type { ReadRecord } from "../../tools/kernel/read_state.ts";
import type { ToolContext } from "../../tools/kernel/tool.ts";
import { resolveInWorkspace } from "../../tools/kernel/workspace.ts";
import { WAVE_WRITES } from "../../tools/wave/_dialect.ts";
import { flush, waveTime } from "./fs_tools.ts";
import {
  BenchWave,
  copyTime,
  type Figure,
  paired,
  ratio,
  time,
} from "./measure.ts";

const LINE =
  "0123456789 abcdefghij klmnopqrst uvwxyz ABCDEFGHIJ KLMNOPQRST UVWXYZ 0123456789\n";
const TARGETS = 50;

/** A 10 MB text with `markers` marker lines spread evenly through it. */
function bigText(markers: number): string {
  const lines = Math.ceil(10 * 1024 * 1024 / LINE.length);
  const every = Math.floor(lines / (markers + 1));
  const parts: string[] = [];
  for (let k = 0; k < markers; k++) {
    parts.push(LINE.repeat(every), `MARKER ${k} 0\n`);
  }
  parts.push(LINE.repeat(lines - every * markers));
  return parts.join("");
}

/** The files figures. */
export async function files(runs = 9): Promise<Figure[]> {
  // The in-process edit below hashes what it read, as a worker does.
  await loadContentHash();
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-files-" }),
  );
  const figures: Figure[] = [];
  const big = `${root}/big.txt`;
  const copy = `${root}/copy.txt`;
  await Deno.writeTextFile(big, bigText(TARGETS));
  const readWriteSync = () => copyTime(big, copy, true);
  // Every dirty page of the file system written out between runs (the
  // last run's file, its history, the copy): each timed run then starts
  // from the same writeback state, whichever side ran before it.
  const settle = async () => {
    await new Deno.Command("sync").output().catch(() => flush(copy));
    await new Promise((resolve) => setTimeout(resolve, 50));
  };

  // edit_file patch, 50 targets, through the real CLI.
  const wave = new BenchWave(["--workspace", root, "--toolset", "files"], {
    WAVE_HOME: `${root}/.wave-home`,
  });
  await wave.ready();
  let id = 0;
  await waveTime(wave, `r${id++}`, "read_files", {
    files: [{ path: "big.txt", limit: 1 }],
  });
  let n = 0;
  const patch = () => {
    const targets = Array.from({ length: TARGETS }, (_, k) => ({
      old_string: `MARKER ${k} ${n}\n`,
      new_string: `MARKER ${k} ${n + 1}\n`,
    }));
    n++;
    return waveTime(wave, `p${id++}`, "edit_file", {
      path: "big.txt",
      targets,
    });
  };
  const [pt, rws] = await paired(runs, patch, readWriteSync, settle);
  figures.push(
    ratio(
      "edit_file patch, 50 targets, 10 MB file ÷ reading, writing and fsyncing it",
      pt,
      rws,
      1.5,
      "(with file history, diff and freshness)",
    ),
  );
  await wave.close();

  // Edit with file history ÷ the same Edit without, in process: the
  // write path alone, so the difference is history's.
  const home = `${root}/.wave-home-inproc`;
  const records = new Map<string, ReadRecord>();
  const ctx = {
    workspace: root,
    waveHome: home,
    sessionId: "bench",
    task: { id: "bench", goal: "" },
    historyLimits: { maxAgeMs: 1e12, maxBytes: 1 << 30 },
    readState: {
      get: (p: string) => records.get(p),
      record: (p: string, r: ReadRecord) => void records.set(p, r),
      forget: (p: string) => void records.delete(p),
    },
    path: (raw: string) => resolveInWorkspace(root, raw),
  } as unknown as ToolContext;
  const file = fileRef(ctx, "big.txt");
  records.set(
    file.real,
    await wholeRecord(file.real, await Deno.readFile(file.real), "Read"),
  );
  let m = 0;
  const edit = (rules: WriteRules) => () =>
    time(async () => {
      const target = await openForWrite(ctx, rules, file, {
        action: "edit",
        mustExist: true,
      });
      const edited = editBytes(await currentBytes(target), {
        oldString: `MARKER 25 ${n}\n`,
        newString: `MARKER 25 ${n + 1}\n`,
      }, file.shown);
      n++;
      m++;
      await commitWrite(ctx, rules, target, edited.content, {
        tool: "Edit",
        whileFlushing: edited.diff,
      });
      edited.diff();
    });
  const [withHistory, without] = await paired(
    runs,
    edit(WAVE_WRITES),
    edit({ ...WAVE_WRITES, history: false }),
    settle,
  );
  figures.push(
    ratio(
      "Edit of a 10 MB file with file history ÷ without",
      withHistory,
      without,
      1.3,
      `(the version kept before each of ${m} edits: hashed, stored once)`,
    ),
  );
  await Deno.remove(root, { recursive: true });
  return figures;
}
