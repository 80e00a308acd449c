/// <reference lib="deno.worker" />
// A worker for landlock_test.ts: restricts itself, then tries each access.
import { restrictThread } from "../../../tools/kernel/landlock.ts";

self.onmessage = async (event) => {
  const { rules, tries } = event.data as {
    rules: { path: string; access: bigint }[];
    tries: { op: string; path: string; to?: string }[];
  };
  const why = restrictThread(rules);
  if (why) throw new Error(why);
  const results: string[] = [];
  for (const { op, path, to } of tries) {
    try {
      if (op === "read") Deno.readTextFileSync(path);
      else if (op === "write") Deno.writeTextFileSync(path, "planted");
      else if (op === "list") [...Deno.readDirSync(path)];
      else if (op === "remove") Deno.removeSync(path);
      else if (op === "rename") Deno.renameSync(path, to!);
      else if (op === "read async") await Deno.readTextFile(path);
      else if (op === "cat") {
        const { code } = new Deno.Command("cat", {
          args: [path],
          stdout: "null",
          stderr: "null",
        }).outputSync();
        results.push(`exit ${code}`);
        continue;
      }
      results.push("ok");
    } catch (error) {
      results.push((error as Error).name);
    }
  }
  self.postMessage(results);
};
