/**
 * Finds the programs tools run (their `run` scope), at call time: `rg` from
 * npm:@vscode/ripgrep, everything else on `PATH`. A program that is missing
 * is simply absent from the result; the tool reports it.
 *
 * @module
 */

function isExecutableFile(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o755) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Looks a program up on `PATH` the way a shell would. */
export function findOnPath(
  name: string,
  path = Deno.env.get("PATH") ?? "",
): string | undefined {
  if (name.includes("/")) return isExecutableFile(name) ? name : undefined;
  for (const dir of path.split(":")) {
    if (!dir) continue;
    const candidate = `${dir.replace(/\/+$/, "")}/${name}`;
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Whether this process is a `deno compile` binary (its modules live in an embedded file system). */
export function isCompiled(): boolean {
  return Deno.mainModule.includes("/deno-compile-");
}

let ripgrepCache: string | undefined;

/**
 * The ripgrep binary, resolved when asked (never at module load): the path
 * npm:@vscode/ripgrep gives, or, in a compiled wave, a copy of it made once
 * into `WAVE_HOME/bin/rg-<hash>` (temp file + rename, mode 755) because a
 * binary inside the embedded file system cannot be executed.
 *
 * `WAVE_RG_PATH` overrides it (an empty value means "not installed"), so
 * tests can take ripgrep away.
 */
export async function findRipgrep(
  waveHome: string,
): Promise<string | undefined> {
  const override = Deno.env.get("WAVE_RG_PATH");
  if (override !== undefined) {
    return override && isExecutableFile(override) ? override : undefined;
  }
  if (ripgrepCache && isExecutableFile(ripgrepCache)) return ripgrepCache;
  if (!isCompiled()) {
    const cached = ripgrepInNpmCache();
    if (cached) return ripgrepCache = cached;
  }
  let rgPath: string;
  try {
    ({ rgPath } = await import("@vscode/ripgrep"));
  } catch {
    return undefined; // the platform package is not installed
  }
  if (!isCompiled()) {
    ripgrepCache = isExecutableFile(rgPath) ? rgPath : undefined;
    return ripgrepCache;
  }
  try {
    ripgrepCache = await installBinary(rgPath, `${waveHome}/bin`, "rg");
    return ripgrepCache;
  } catch (error) {
    console.error("wave: could not install ripgrep:", error);
    return undefined;
  }
}

/**
 * Where Deno's global npm cache holds the package `name` (a bare specifier
 * of the import map), found without importing it: the cache
 * (`DENO_DIR`), the registry's directory in it (`<cache>/npm/<host>`), and
 * the version. Undefined where the package comes from elsewhere (a
 * `node_modules` directory, a compiled binary's embedded files).
 */
export function inNpmCache(
  name: string,
): { cache: string; registry: string; version: string } | undefined {
  let url: string;
  try {
    url = import.meta.resolve(name);
  } catch {
    return undefined;
  }
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const at = new RegExp(`^file://((/.*)/npm/[^/]+)/${escaped}/([^/]+)/`)
    .exec(url);
  if (!at) return undefined;
  const [, registry, cache, version] = at.map(decodeURIComponent);
  return { cache, registry, version };
}

/**
 * The binary npm:@vscode/ripgrep names, found without importing it: its
 * import loads Node's compatibility layer (~35 ms), and the first worker,
 * which may run ripgrep, starts only once its path is known. In Deno's
 * global npm cache the platform's package (`@vscode/ripgrep-linux-x64`,
 * published with the same version, which the package requires exactly)
 * lies beside it. Undefined where that is not so (another layout, no such
 * file): the import then decides.
 */
export function ripgrepInNpmCache(): string | undefined {
  const arch = ({ x86_64: "x64", aarch64: "arm64" } as const)[Deno.build.arch];
  const package_ = inNpmCache("@vscode/ripgrep");
  if (!package_ || !arch) return undefined;
  const { registry, version } = package_;
  const binary =
    `${registry}/@vscode/ripgrep-${Deno.build.os}-${arch}/${version}/bin/rg`;
  return isExecutableFile(binary) ? binary : undefined;
}

/**
 * Copies a binary (possibly from a compiled wave's embedded file system,
 * where it cannot be executed) to `dir/<name>-<hash>`, mode 755, through the
 * atomic writer. A copy that is already there is reused. Returns its path
 * once the copy can be run (a fresh one is run once with `probe`).
 */
export async function installBinary(
  source: string,
  dir: string,
  name: string,
  probe: string[] = ["--version"],
): Promise<string> {
  const bytes = await Deno.readFile(source);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const hash = Array.from(new Uint8Array(digest).slice(0, 8))
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const target = `${dir}/${name}-${hash}`;
  if (!isExecutableFile(target)) {
    // Loaded here: only a compiled wave installs, and the start of a
    // session looks ripgrep up before Node's compatibility layer loads.
    const { atomicWrite } = await import("./atomic_write.ts");
    await atomicWrite(target, bytes, { mode: 0o755, createParents: true });
    await untilRunnable(target, probe);
  }
  return target;
}

/**
 * Waits until the program just written at `path` can be run: while a
 * process forked elsewhere in wave during the write (a worker starting a
 * command) still holds the writing descriptor, which it does until it
 * execs, the kernel refuses to run the file ("Text file busy"). Runs it
 * with `args` until it starts, for up to about a second, with an empty
 * environment: it may run before wave has dropped the model keys from its
 * own.
 */
async function untilRunnable(path: string, args: string[]): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      await new Deno.Command(path, {
        args,
        clearEnv: true,
        stdout: "null",
        stderr: "null",
      }).output();
      return;
    } catch (error) {
      if (!/os error 26\)/.test(String(error)) || attempt >= 100) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * {@linkcode findOnPath}, remembered: every tool call resolves its
 * programs, and a search of a long `PATH` for a program that is not there
 * costs a failed stat per directory. A found program is used while it is
 * still an executable file; a missing one is searched for again after
 * `missingRecheckMs`, so one installed mid-session is found.
 */
export class PathLookup {
  #known = new Map<string, { path?: string; checkedAt: number }>();
  #missingRecheckMs: number;
  #now: () => number;

  constructor(missingRecheckMs = 1000, now = () => performance.now()) {
    this.#missingRecheckMs = missingRecheckMs;
    this.#now = now;
  }

  /** The program's path, or `undefined` when it is not on `path`. */
  find(name: string, path = Deno.env.get("PATH") ?? ""): string | undefined {
    const key = `${name}\0${path}`;
    const known = this.#known.get(key);
    const now = this.#now();
    if (known?.path && isExecutableFile(known.path)) return known.path;
    if (
      known && !known.path && now - known.checkedAt < this.#missingRecheckMs
    ) {
      return undefined;
    }
    const found = findOnPath(name, path);
    this.#known.set(key, { path: found, checkedAt: now });
    return found;
  }
}

const pathLookup = new PathLookup();

/**
 * Resolves the programs of a `run` scope: name → absolute path, leaving out
 * the ones that are not installed.
 */
export async function resolvePrograms(
  names: readonly string[],
  waveHome: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const path = name === "rg"
      ? await findRipgrep(waveHome)
      : pathLookup.find(name);
    if (path) out[name] = path;
  }
  return out;
}
