/**
 * End-to-end: a call on one file whose path another process swaps, in a
 * loop, with a link (symbolic or hard) to the workspace's `.env`. The
 * check judges the path (an ordinary file); what the call reads is what
 * wave opened, and that is held to the file the check judged: a swap
 * after the check is refused as a change during the call, or, in a
 * search, left out as every search leaves out links to secrets. The
 * secret is never shown.
 */

import assert from "node:assert/strict";
import { withWave } from "../_wave.ts";
import { exchangeInLoop } from "./_exchange.ts";

/** Each toolset's calls on the file `f`: its searches, and its reads (the `i`-th call). */
const CALLS: Record<
  string,
  [string, (i: number) => Record<string, unknown>][]
> = {
  wave: [
    ["Grep", () => ({
      pattern: "SECRET_TOKEN|fi[n]e",
      path: "f",
      output_mode: "content",
    })],
    // Another range each time: a Read of what it read before answers "unchanged".
    ["Read", (i) => ({ file_path: "f", limit: 100 + i })],
  ],
  sata: [
    ["grep", () => ({ Pattern: "SECRET_TOKEN|fi[n]e", Path: "f" })],
    ["read", () => ({ Path: "f" })],
  ],
  devflow: [
    ["search_in_file", () => ({
      path: "f",
      pattern: "SECRET_TOKEN|fi[n]e",
      regex: true,
    })],
    ["read_file", () => ({ path: "f" })],
    ["diff_file", () => ({ path: "f", content: "other\n" })],
  ],
  files: [["read_files", () => ({ files: [{ path: "f" }] })]],
};

/** How `g`, the file's partner in the swap, leads to `.env`. */
const LINKS = {
  "a symbolic link": (workspace: string) =>
    Deno.symlinkSync(`${workspace}/.env`, `${workspace}/g`),
  "a hard link": (workspace: string) =>
    Deno.linkSync(`${workspace}/.env`, `${workspace}/g`),
};

/** A result's error type; read_files' (a batch of one here) is its file's. */
function errorType(structured: unknown): string | undefined {
  const batch = structured as {
    type?: string;
    files?: { detail?: { type?: string } | null }[];
  } | null;
  return batch?.type === "read_files"
    ? batch.files?.[0]?.detail?.type ?? undefined
    : batch?.type;
}

for (const [toolset, calls] of Object.entries(CALLS)) {
  for (const [tool, input] of calls) {
    for (const [kind, link] of Object.entries(LINKS)) {
      Deno.test(`${toolset} ${tool}: a file swapped in a loop with ${kind} to .env never shows the secret`, () =>
        withWave({ args: ["--toolset", toolset] }, async (wave) => {
          wave.put(".env", "SECRET_TOKEN=hunter2\n");
          wave.put("f", "fine\n");
          link(wave.workspace);
          const racer = exchangeInLoop(
            `${wave.workspace}/f`,
            `${wave.workspace}/g`,
          );
          const seen = { found: 0, metSwap: 0, leaked: [] as string[] };
          const errors = new Set<string>();
          try {
            for (let i = 0; i < 150; i++) {
              const result = await wave.callTool(tool, input(i));
              const text = JSON.stringify(result.content);
              const type = errorType(result.structured);
              if (text.includes("hunter2")) {
                seen.leaked.push(text.slice(0, 200));
              } else if (text.includes("fine")) seen.found++; // (a search's pattern says fi[n]e)
              else if (!result.is_error || type === "changed_during_call") {
                // Left out (a search), or refused at the open.
                seen.metSwap++;
              } else errors.add(type ?? text.slice(0, 120));
            }
          } finally {
            await racer.stop();
          }
          assert.deepEqual(seen.leaked, []);
          assert.ok(seen.found > 0, "no call read the file");
          assert.ok(seen.metSwap > 0, "no call met the swap after its check");
          // The other errors: the check saw the link (the parent's
          // denial), or the path was mid-swap at the open.
          assert.deepEqual(
            [...errors].filter((type) =>
              type !== "permission_denied" && type !== "not_found"
            ),
            [],
          );
          assert.equal((await wave.finish()).code, 0);
        }));
    }
  }
}

/** Sends a Bash call that changes the workspace after a moment, and a Read that waits behind it; the Read's answer. */
async function readAfterCommand(
  wave: Awaited<Parameters<Parameters<typeof withWave>[1]>[0]>,
  command: string,
  path: string,
) {
  await wave.sendCall("command", "Bash", { command: `sleep 0.5; ${command}` });
  await wave.sendCall("read", "Read", { file_path: path });
  const answers = new Map<string, Record<string, unknown>>();
  for (const id of ["command", "read"]) {
    const m = await wave.waitFor((m) => m.response?.request_id === id);
    answers.set(id, m.response.response);
  }
  assert.equal(answers.get("command")!.is_error, false);
  return answers.get("read")!;
}

Deno.test("wave Read: a path made a link to an ordinary file while the call waited behind a command reads the file", () =>
  withWave({}, async (wave) => {
    wave.put("src/real.txt", "hello\n");
    const read = await readAfterCommand(
      wave,
      "ln -s src/real.txt alias.txt",
      "alias.txt",
    );
    assert.equal(read.is_error, false);
    assert.equal(read.content, "     1\thello");
    assert.equal((await wave.finish()).code, 0);
  }));

Deno.test("wave Read: a file that became sensitive while the call waited behind a command is not read, and says why", () =>
  withWave({}, async (wave) => {
    wave.put(".npmrc", "registry=https://registry.npmjs.org/\n");
    const read = await readAfterCommand(
      wave,
      "echo //registry.npmjs.org/:_authToken=npm_secret >> .npmrc",
      ".npmrc",
    );
    assert.equal(read.is_error, true);
    assert.equal(
      read.content,
      ".npmrc changed while the call ran and needs the parent's approval now (sensitive file (.npmrc with credentials)), so it was not used. Call again to ask for it.",
    );
    assert.deepEqual(read.structured, { type: "changed_during_call" });
    assert.equal((await wave.finish()).code, 0);
  }));

Deno.test("wave Read: in a root added with --add-dir, a file swapped in a loop with a link to a secret never shows it", async () => {
  const extra = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "wave-added-root-" }),
  );
  try {
    await Deno.writeTextFile(`${extra}/.env`, "SECRET_TOKEN=hunter2\n");
    await Deno.writeTextFile(`${extra}/f`, "fine\n");
    Deno.symlinkSync(`${extra}/.env`, `${extra}/g`);
    await withWave({ args: ["--add-dir", extra] }, async (wave) => {
      const racer = exchangeInLoop(`${extra}/f`, `${extra}/g`);
      const seen = { found: 0, leaked: 0, refused: 0 };
      try {
        // 150 calls, and on until one read the file and one met the swap:
        // the racer exchanges the two names without pause, and a call reads
        // the file only when the name held it from its worker's start (the
        // one-off worker's rule is the file, by inode) to its read.
        for (
          let i = 0;
          i < 600 && (i < 150 || seen.found === 0 || seen.refused === 0);
          i++
        ) {
          const result = await wave.callTool("Read", {
            file_path: `${extra}/f`,
            limit: 100 + i,
          });
          const text = JSON.stringify(result.content);
          if (text.includes("hunter2")) seen.leaked++;
          else if (text.includes("fine")) seen.found++;
          else if (errorType(result.structured) === "changed_during_call") {
            seen.refused++;
          }
        }
      } finally {
        await racer.stop();
      }
      assert.equal(seen.leaked, 0);
      assert.ok(seen.found > 0, "no call read the file");
      assert.ok(seen.refused > 0, "no call met the swap after its check");
      assert.equal((await wave.finish()).code, 0);
    });
  } finally {
    await Deno.remove(extra, { recursive: true });
  }
});
