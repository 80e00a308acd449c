/**
 * Spill files: where a command's full output goes when it is longer than a
 * model should see (`WAVE_HOME/spill/<session>/`). The bytes stream into a
 * temp file that is renamed into place when the output ends, so the named
 * file is always complete.
 *
 * @module
 */

import { join } from "../kernel/posix_path.ts";

/** A spill file being written. */
export class SpillFile {
  readonly path: string;
  readonly #temp: string;
  readonly #file: Deno.FsFile;

  private constructor(path: string, temp: string, file: Deno.FsFile) {
    this.path = path;
    this.#temp = temp;
    this.#file = file;
  }

  /** Starts `dir/name` (a counter is added if the name is taken). */
  static async create(dir: string, name: string): Promise<SpillFile> {
    Deno.mkdirSync(dir, { recursive: true });
    let path = join(dir, name);
    for (let n = 2; await exists(path); n++) {
      path = join(dir, name.replace(/(\.\w+)?$/, `-${n}$1`));
    }
    const temp = `${path}.wave-tmp`;
    const file = Deno.openSync(temp, { write: true, createNew: true });
    return new SpillFile(path, temp, file);
  }

  /** Appends bytes. */
  async write(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.length;) {
      at += await this.#file.write(bytes.subarray(at));
    }
  }

  /** Closes and removes the temp file (after a failed write). */
  abandon(): void {
    try {
      this.#file.close();
    } catch { /* closed already */ }
    try {
      Deno.removeSync(this.#temp);
    } catch { /* gone already */ }
  }

  /** Closes and renames into place; returns the final path. */
  close(): string {
    this.#file.close();
    Deno.renameSync(this.#temp, this.path);
    return this.path;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
