/**
 * File-tool figures on a generated tree of 50,000 files: Grep and Glob
 * against raw ripgrep run with exactly the arguments wave gives it, and an
 * Edit of a 10 MB file against reading and writing it.
 *
 * @module
 */

import { findRipgrep } from "../../tools/kernel/programs.ts";
import { findArgs } from "../../tools/_core/find.ts";
import { pagedArgs } from "../../tools/_core/paged_search.ts";
import { ripgrepArgs } from "../../tools/_core/search.ts";
import {
  BenchWave,
  copyTime,
  type Figure,
  paired,
  ratio,
  time,
} from "./measure.ts";

const FILES = 50_000;
const PER_DIR = 100;

/** Writes the tree: 500 directories of 100 files, a fifth of them .ts; 200 files hold "needle". */
export async function generateTree(root: string): Promise<void> {
  await Deno.writeTextFile(`${root}/.gitignore`, "ignored/\n");
  const body = Array.from(
    { length: 20 },
    (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`,
  )
    .join("\n") + "\n";
  const writes: Promise<void>[] = [];
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const dir = `${root}/pkg${d % 25}/mod${d}`;
    await Deno.mkdir(dir, { recursive: true });
    for (let f = 0; f < PER_DIR; f++) {
      const n = d * PER_DIR + f;
      const ext = n % 5 === 0
        ? "ts"
        : n % 5 === 1
        ? "py"
        : n % 5 === 2
        ? "md"
        : n % 5 === 3
        ? "json"
        : "txt";
      const text = n % 250 === 0 ? `${body}const needle = ${n};\n` : body;
      writes.push(Deno.writeTextFile(`${dir}/file${f}.${ext}`, text));
      if (writes.length >= 512) await Promise.all(writes.splice(0));
    }
  }
  await Promise.all(writes);
}

async function rgTime(
  rg: string,
  args: string[],
  cwd: string,
): Promise<number> {
  return await time(() =>
    new Deno.Command(rg, { args, cwd, stdout: "piped", stderr: "null" })
      .output()
  );
}

export async function waveTime(
  wave: BenchWave,
  id: string,
  tool: string,
  input: Record<string, unknown>,
) {
  let answer: Record<string, unknown> = {};
  const ms = await time(async () => {
    answer = await wave.request(id, {
      subtype: "call_tool",
      tool_name: tool,
      input,
    });
  });
  const response = answer.response as
    | { is_error?: boolean; content?: unknown }
    | undefined;
  if (answer.subtype !== "success" || response?.is_error) {
    throw new Error(
      `${tool} failed in the bench: ${JSON.stringify(answer).slice(0, 300)}`,
    );
  }
  return ms;
}

/** Writes out what is left of `path` in the page cache. */
export async function flush(path: string) {
  using file = await Deno.open(path, { write: true });
  await file.sync();
}

/** The file-tool figures. */
export async function fsTools(runs = 9): Promise<Figure[]> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-bench-tree-" }),
  );
  console.error(`  generating ${FILES} files in ${root} …`);
  await generateTree(root);
  const rg = await findRipgrep(root);
  if (!rg) throw new Error("ripgrep is not installed");
  const wave = new BenchWave(["--workspace", root], {
    WAVE_HOME: `${root}/.wave-home`,
  });
  await wave.ready();
  const figures: Figure[] = [];
  let id = 0;

  const content = { pattern: "needle", output_mode: "content" };
  const contentArgs = ripgrepArgs({
    pattern: "needle",
    root,
    mode: "content",
    limit: 250,
  }, undefined);
  const [gc, rc] = await paired(
    runs,
    () => waveTime(wave, `g${id++}`, "Grep", content),
    () => rgTime(rg, contentArgs, root),
  );
  figures.push(
    ratio(
      "Grep content ÷ rg (same arguments)",
      gc,
      rc,
      1.2,
      "(200 matching lines in 50,000 files)",
    ),
  );

  const files = { pattern: "needle" };
  const filesArgs = ripgrepArgs({
    pattern: "needle",
    root,
    mode: "files",
    limit: 250,
  }, undefined);
  const [gf, rf] = await paired(
    runs,
    () => waveTime(wave, `g${id++}`, "Grep", files),
    () => rgTime(rg, filesArgs, root),
  );
  figures.push(
    ratio(
      "Grep files_with_matches ÷ rg (same arguments)",
      gf,
      rf,
      1.2,
      "(200 of 50,000 files match)",
    ),
  );

  // find_files (toolset files, spec 004) counts every match, so rg runs to the end on both sides.
  const filesWave = new BenchWave(["--workspace", root, "--toolset", "files"], {
    WAVE_HOME: `${root}/.wave-home`,
  });
  await filesWave.ready();
  for (const output of ["files", "content"] as const) {
    const args = pagedArgs({ root, pattern: "needle" }, { output }, undefined);
    const [ff, rf] = await paired(
      runs,
      () =>
        waveTime(filesWave, `f${id++}`, "find_files", {
          queries: [{ pattern: "needle" }],
          mode: "search",
          output,
        }),
      () => rgTime(rg, args, root),
    );
    figures.push(
      ratio(
        `find_files search, ${output} output ÷ rg (same arguments)`,
        ff,
        rf,
        1.2,
        "(200 matching lines in 50,000 files, all counted)",
      ),
    );
  }
  await filesWave.close();

  const globArgs = findArgs({
    root,
    globs: ["**/*.ts"],
    includeIgnored: true,
    order: "newest",
    limit: 100,
  });
  const [gg, rgg] = await paired(
    runs,
    () => waveTime(wave, `g${id++}`, "Glob", { pattern: "**/*.ts" }),
    () => rgTime(rg, globArgs, root),
  );
  figures.push(
    ratio(
      "Glob ÷ rg --files -g (same arguments)",
      gg,
      rgg,
      1.2,
      "(10,000 .ts files, newest 100 shown)",
    ),
  );

  // Edit of a 10 MB file against reading and writing it.
  const line =
    "0123456789 abcdefghij klmnopqrst uvwxyz ABCDEFGHIJ KLMNOPQRST UVWXYZ 0123456789\n";
  const big = `${root}/big.txt`;
  const lines = Math.ceil(10 * 1024 * 1024 / line.length);
  const middle = Math.floor(lines / 2);
  const text = line.repeat(middle) + "MARKER 0\n" + line.repeat(lines - middle);
  await Deno.writeTextFile(big, text);
  await waveTime(wave, `r${id++}`, "Read", {
    file_path: "big.txt",
    offset: 1,
    limit: 1,
  });
  let n = 0;
  const edit = () =>
    waveTime(wave, `e${id++}`, "Edit", {
      file_path: "big.txt",
      old_string: `MARKER ${n}`,
      new_string: `MARKER ${++n}`,
    });
  const copy = `${root}/copy.txt`;
  const readWrite = (sync: boolean) => copyTime(big, copy, sync);
  // Each run starts with the disk idle: what the run before left to finish
  // (the plain copy's dirty pages, wave's background free of the file its
  // Edit replaced) is done, untimed, before the next starts. Otherwise the
  // plain copy's 10 MB would be written out during the next Edit's fsync
  // and counted as the Edit's, and the free would be counted as the copy's.
  const settle = async () => {
    await flush(copy).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
  };
  const [ed, rw] = await paired(runs, edit, () => readWrite(false), settle);
  figures.push(
    ratio(
      "Edit of a 10 MB file ÷ reading and writing it",
      ed,
      rw,
      3,
      "(one-line change; wave also fsyncs and hashes)",
    ),
  );
  const [ed2, rws] = await paired(
    runs,
    edit,
    () => readWrite(true),
    settle,
  );
  figures.push({
    name: "Edit of a 10 MB file ÷ reading, writing and fsyncing it",
    value: ed2 / rws,
    unit: "×",
    detail: `${ed2.toFixed(1)} ms vs ${
      rws.toFixed(1)
    } ms (the same durability as wave's atomic write)`,
  });

  await wave.close();
  await Deno.remove(root, { recursive: true });
  return figures;
}
