import assert from "node:assert/strict";
import { bwrapArgs } from "../../../tools/kernel/bwrap.ts";

/** The mounts after the fixed isolation, up to `--chdir`. */
function mounts(args: string[]): string[] {
  const start = args.indexOf("--die-with-parent") + 1;
  return args.slice(start, args.indexOf("--chdir"));
}

/** The fresh /dev, /proc and /tmp. */
const SYSTEM = ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];

Deno.test("bwrap: a workspace inside a hidden home shows through it; WAVE_HOME inside the workspace stays hidden; the spill directory shows again", () => {
  const args = bwrapArgs(
    {
      kind: "bwrap",
      hideDirs: ["/home/u/.wave", "/home/u", "/root"],
      hideFiles: ["/etc/shadow"],
      showReadOnly: ["/home/u/.wave/spill/s1"],
      network: false,
    },
    "/home/u",
    "/home/u/sub",
  );
  assert.deepEqual(mounts(args), [
    ...SYSTEM,
    "--tmpfs",
    "/root",
    "--ro-bind",
    "/dev/null",
    "/etc/shadow",
    "--bind",
    "/home/u",
    "/home/u",
    "--tmpfs",
    "/home/u/.wave",
    "--ro-bind-try",
    "/home/u/.wave/spill/s1",
    "/home/u/.wave/spill/s1",
  ]);
  assert.deepEqual(args.slice(-3), ["--chdir", "/home/u/sub", "--"]);
  assert.ok(!args.includes("--share-net"));
});

Deno.test("bwrap: a workspace under a hidden directory is bound after it; the network only when asked", () => {
  const args = bwrapArgs(
    {
      kind: "bwrap",
      hideDirs: ["/home"],
      hideFiles: [],
      showReadOnly: [],
      network: true,
    },
    "/home/u/proj",
    "/home/u/proj",
  );
  assert.deepEqual(mounts(args), [
    "--share-net",
    ...SYSTEM,
    "--tmpfs",
    "/home",
    "--bind",
    "/home/u/proj",
    "/home/u/proj",
  ]);
  for (
    const flag of [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--new-session",
      "--die-with-parent",
    ]
  ) assert.ok(args.includes(flag), flag);
  assert.deepEqual(
    args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2),
    ["--cap-drop", "ALL"],
  );
});

Deno.test("bwrap: a workspace / does not bring back the host's /proc, /dev and /tmp", () => {
  const args = bwrapArgs(
    {
      kind: "bwrap",
      hideDirs: ["/root"],
      hideFiles: [],
      showReadOnly: [],
      network: false,
    },
    "/",
    "/",
  );
  assert.deepEqual(mounts(args), [
    "--bind",
    "/",
    "/",
    ...SYSTEM,
    "--tmpfs",
    "/root",
  ]);
  // A workspace under /tmp is bound after the private /tmp.
  const inTmp = mounts(bwrapArgs(
    {
      kind: "bwrap",
      hideDirs: [],
      hideFiles: [],
      showReadOnly: [],
      network: false,
    },
    "/tmp/ws",
    "/tmp/ws",
  ));
  assert.deepEqual(inTmp, [...SYSTEM, "--bind", "/tmp/ws", "/tmp/ws"]);
});

Deno.test("bwrap: a sealed path is an empty read-only mount after the workspace; a shell under a hidden home is shown alone, read-only", () => {
  const args = bwrapArgs(
    {
      kind: "bwrap",
      hideDirs: ["/root"],
      sealDirs: ["/srv/ws/.wavehome"],
      hideFiles: [],
      showReadOnly: [],
      showFiles: [{
        from: "/opt/pwsh/pwsh",
        to: "/root/.local/bin/pwsh",
      }],
      network: false,
    },
    "/srv/ws",
    "/srv/ws",
  );
  assert.deepEqual(mounts(args), [
    ...SYSTEM,
    "--tmpfs",
    "/root",
    "--bind",
    "/srv/ws",
    "/srv/ws",
    "--tmpfs",
    "/srv/ws/.wavehome",
    "--remount-ro",
    "/srv/ws/.wavehome",
    "--ro-bind",
    "/opt/pwsh/pwsh",
    "/root/.local/bin/pwsh",
  ]);
});
