/**
 * The system's opener for open_file under `--open-with system`: `xdg-open`
 * (Linux) or `open` (macOS), run from the main thread, outside the command
 * sandbox (which hides the person's desktop), detached in a session of its
 * own, so what it starts is the person's and stays open after wave.
 *
 * @module
 */

import { ToolError } from "../tools/kernel/tool.ts";

/** The desktop's variables the opener needs besides the command environment. */
export const DESKTOP_ENV: readonly string[] = [
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XAUTHORITY",
  "XDG_RUNTIME_DIR",
  "XDG_CURRENT_DESKTOP",
  "XDG_SESSION_TYPE",
  "XDG_DATA_DIRS",
  "XDG_CONFIG_DIRS",
  "DBUS_SESSION_BUS_ADDRESS",
  "BROWSER",
];

/**
 * Kinds of file the system's opener would run rather than show: a
 * launcher (`.desktop`, macOS `.command`, `.app`), a script or program, an
 * installer. The opener runs outside the command sandbox with the person's
 * rights, and the model may have written the file.
 */
export const RUNNABLE_EXTENSIONS: readonly string[] = [
  ".app",
  ".appimage",
  ".bash",
  ".bat",
  ".bin",
  ".cmd",
  ".com",
  ".command",
  ".csh",
  ".deb",
  ".desktop",
  ".exe",
  ".flatpak",
  ".flatpakref",
  ".jar",
  ".js",
  ".ksh",
  ".msi",
  ".pkg",
  ".pl",
  ".ps1",
  ".py",
  ".rb",
  ".rpm",
  ".run",
  ".scpt",
  ".sh",
  ".snap",
  ".tool",
  ".url",
  ".vbs",
  ".webloc",
  ".workflow",
  ".zsh",
];

/**
 * Why the system's opener must not be given `path` (a sentence), or null:
 * it would run the file rather than show it: an executable file, or one of
 * {@linkcode RUNNABLE_EXTENSIONS}; or it is neither a file nor a directory.
 */
export function notToOpen(path: string): string | null {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot) : "";
  const runs = (what: string) =>
    `the system's opener would run it (${what}) rather than show it, outside the sandbox, with the user's rights.`;
  if (RUNNABLE_EXTENSIONS.includes(extension)) {
    return runs(`a ${extension} file`);
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch {
    return null; // the opener says what is wrong
  }
  if (!info.isFile && !info.isDirectory) {
    return "it is neither a file nor a directory.";
  }
  if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) {
    return runs("an executable file");
  }
  return null;
}

/** The opener's name on this system. */
export function openerName(): string {
  return Deno.build.os === "darwin" ? "open" : "xdg-open";
}

function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    try {
      const info = Deno.statSync(`${dir}/${name}`);
      if (info.isFile && (info.mode ?? 0o111) & 0o111) return `${dir}/${name}`;
    } catch { /* not here */ }
  }
  return undefined;
}

/**
 * Runs the opener on `path` and waits for it to exit, at most `timeoutMs`
 * (then it is left running: it is starting the person's application).
 * Resolves with what happened; rejects with a {@linkcode ToolError} when
 * there is no opener or it fails.
 */
export async function openWithSystem(
  path: string,
  timeoutMs: number,
  env: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<string> {
  const name = openerName();
  const refused = notToOpen(path);
  if (refused) {
    throw new ToolError(refused, { type: "not_opened" });
  }
  const program = findOnPath(name, env.PATH ?? "");
  if (!program) {
    throw new ToolError(
      `${name} is not installed here, so the file cannot be opened; tell the user where it is.`,
      { type: "no_opener", opener: name },
    );
  }
  const desktop: Record<string, string> = {};
  for (const key of DESKTOP_ENV) {
    const value = Deno.env.get(key);
    if (value !== undefined) desktop[key] = value;
  }
  const child = new Deno.Command(program, {
    args: [path],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    detached: true,
    clearEnv: true,
    env: { ...env, ...desktop },
  }).spawn();
  const chunks: Uint8Array[] = [];
  const reading = (async () => {
    let kept = 0;
    for await (const chunk of child.stderr) {
      if (kept < 2048) chunks.push(chunk.slice(0, 2048 - kept));
      kept += chunk.length;
    }
  })().catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    child.status,
    new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    }),
    new Promise<"aborted">((resolve) => {
      if (signal.aborted) resolve("aborted");
      signal.addEventListener("abort", () => resolve("aborted"), {
        once: true,
      });
    }),
  ]);
  clearTimeout(timer);
  if (outcome === "timeout" || outcome === "aborted") {
    // The opener goes on: it is starting the person's application.
    child.unref();
    await child.stderr.cancel().catch(() => {});
    if (outcome === "aborted") {
      throw new ToolError("opening was interrupted", { type: "interrupted" });
    }
    return `${name} had not finished after ${
      Math.round(timeoutMs / 1000)
    } s; it goes on in the background`;
  }
  await reading;
  if (!outcome.success) {
    const said = new TextDecoder().decode(
      new Uint8Array(chunks.flatMap((c) => [...c])),
    ).trim();
    throw new ToolError(
      `${name} could not open it (exit code ${outcome.code})${
        said ? `: ${said}` : ""
      }.`,
      { type: "open_failed", code: outcome.code },
    );
  }
  return `opened with ${name}`;
}
