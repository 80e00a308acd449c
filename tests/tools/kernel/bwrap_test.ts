import assert from "node:assert/strict";
import { bwrapArgs } from "../../../tools/kernel/bwrap.ts";

/** The mounts after the fixed isolation, up to `--chdir`. */
function mounts(args: string[]): string[] {
  const start = args.indexOf("--die-with-parent") + 1;
  return args.slice(start, args.indexOf("--chdir"));
}

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
