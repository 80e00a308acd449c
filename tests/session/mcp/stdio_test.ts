/**
 * The stdio transport to a server wave starts (session/mcp/_stdio.ts):
 * how the server ended, as the session reports a server that failed.
 */

import assert from "node:assert/strict";
import { StdioServerTransport } from "../../../session/mcp/_stdio.ts";
import { ProcessGroups } from "../../../tools/kernel/processes.ts";
import { tempDir } from "../../_temp.ts";

/** The state letter of a process (`Z`: exited, not reaped yet), or null once gone. */
function stateOf(pid: number): string | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return null;
  }
}

/** This process's children's pids. */
function children(): number[] {
  const pids: number[] = [];
  for (const task of Deno.readDirSync("/proc/self/task")) {
    const text = Deno.readTextFileSync(
      `/proc/self/task/${task.name}/children`,
    );
    pids.push(...text.split(" ").filter(Boolean).map(Number));
  }
  return pids;
}

Deno.test("mcp stdio: a server that exited before close killed it (not reaped yet) reports its own exit, not a kill", async () => {
  const dir = await tempDir();
  const before = new Set(children());
  const transport = new StdioServerTransport({
    server: "dies",
    command: "sh",
    args: ["-c", "echo boom >&2; exit 3"],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd: dir,
    processes: new ProcessGroups(),
  });
  await transport.start();
  const [pid] = children().filter((pid) => !before.has(pid));
  assert.ok(pid, "the server was started as a child");
  // Without yielding, so that Deno cannot reap it: wait until it has
  // exited by itself, as a server that fails its start does before the
  // SDK closes the client.
  const until = Date.now() + 10_000;
  while (stateOf(pid) !== "Z") {
    assert.ok(Date.now() < until, "the server exits within 10 s");
  }
  await transport.close();
  assert.deepEqual(
    { code: transport.status?.code, signal: transport.status?.signal },
    { code: 3, signal: null },
  );
});

Deno.test("mcp stdio: a server close kills reports no status of its own", async () => {
  const dir = await tempDir();
  const transport = new StdioServerTransport({
    server: "sleeps",
    command: "sleep",
    args: ["300"],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd: dir,
    processes: new ProcessGroups(),
  });
  await transport.start();
  await transport.close();
  assert.equal(transport.status, undefined);
});
