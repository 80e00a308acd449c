/**
 * Temporary directories and files the tests own: each is made like
 * `Deno.makeTempDir` makes it and removed (recursively) when the test that
 * made it ends, pass or fail; one made outside a test (a module's fixture,
 * a runtime made once per test file) when the file's tests end. Every test
 * helper that makes a workspace or a WAVE_HOME makes it here, so a test run
 * leaves nothing behind in the temp directory.
 *
 * @module
 */

/** Options of {@linkcode tempDir} and {@linkcode tempFile}. */
export interface TempOptions extends Deno.MakeTempOptions {
  /**
   * `"file"`: kept until the test file's tests end, even when made by a
   * test (for what is made once and shared by the file's tests).
   * Default: until the test that made it ends.
   */
  keep?: "test" | "file";
}

/** What the running test made, removed when it ends. */
const ofTest: string[] = [];
/** What lives until the file's tests end. */
const ofFile: string[] = [];
let testRunning = false;

Deno.test.beforeEach(() => {
  testRunning = true;
});
Deno.test.afterEach(async () => {
  testRunning = false;
  await removeAll(ofTest);
});
Deno.test.afterAll(async () => {
  await removeAll(ofTest);
  await removeAll(ofFile);
});

function own(path: string, keep: TempOptions["keep"]): string {
  (keep === "file" || !testRunning ? ofFile : ofTest).push(path);
  return path;
}

/**
 * Removes `paths` (and empties the list); a path already gone is fine. A
 * directory that gained an entry while it was being removed is tried again
 * a few times: a SIGKILLed wave's sandbox still being made (bubblewrap
 * making a mount point under a bound WAVE_HOME) lives until wave's sentinel
 * kills it, a moment after the test's kill returned.
 */
async function removeAll(paths: string[]): Promise<void> {
  const removing = paths.splice(0);
  await Promise.all(removing.map(async (path) => {
    for (let attempt = 0;; attempt++) {
      try {
        return await Deno.remove(path, { recursive: true });
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return;
        if (!/os error 39\)/.test(String(error)) || attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }));
}

/** A new temp directory (as `Deno.makeTempDir` makes it), removed as the module says. */
export async function tempDir(options: TempOptions = {}): Promise<string> {
  const { keep, ...make } = options;
  return own(await Deno.makeTempDir(make), keep);
}

/** {@linkcode tempDir}, synchronously. */
export function tempDirSync(options: TempOptions = {}): string {
  const { keep, ...make } = options;
  return own(Deno.makeTempDirSync(make), keep);
}

/** A new temp file (as `Deno.makeTempFile` makes it), removed as the module says. */
export async function tempFile(options: TempOptions = {}): Promise<string> {
  const { keep, ...make } = options;
  return own(await Deno.makeTempFile(make), keep);
}
