/**
 * Deny rules as an attacker meets them, through the real CLI: a command
 * rule read as the shell reads the line (quotes, continuations, wrappers,
 * `sh -c`, and what cannot be known without running it), a `Read` rule
 * over searches that name no path, and a `Read` rule over what commands
 * read under bubblewrap.
 */

import assert from "node:assert/strict";
import { startWave } from "../_wave.ts";

Deno.test("deny rules: a command rule holds against the shell's spellings, wrappers with options, sh -c and find -exec; a line it cannot rule out is refused under bypassPermissions", async () => {
  const wave = await startWave({
    args: [
      "--output-format",
      "stream-json",
      "--permission-mode",
      "bypassPermissions",
      "--disallowedTools",
      "Bash(rm:*)",
    ],
  });
  try {
    const ws = wave.workspace;
    await Deno.writeTextFile(`${ws}/victim`, "v");
    for (
      const command of [
        "true; r\\\nm -f victim",
        "$'\\x72m' -f victim",
        "timeout 5 rm -f victim",
        "nice -n 5 rm -f victim",
        "env -u HOME rm -f victim",
        "bash -c 'rm -f victim'",
        "sh -c \"true; 'rm' -f victim\"",
        "eval 'rm -f victim'",
        "find . -name victim -exec rm {} \\;",
      ]
    ) {
      const answer = await wave.callTool("Bash", { command });
      assert.equal(answer.is_error, true, command);
      assert.equal(
        answer.content,
        "Bash was refused: the rule Bash(rm:*) disallows it (--disallowedTools).",
        command,
      );
    }
    for (
      const [command, why] of [
        [
          "R=rm; $R -f victim",
          "the program it runs is known only when it runs",
        ],
        ["/bin/r? -f victim", "the program it runs is known only when it runs"],
        ["{rm,-f,victim}", "the program it runs is known only when it runs"],
        ["rm${IFS}-f victim", "the program it runs is known only when it runs"],
        [
          "$(printf rm) -f victim",
          "the program it runs is known only when it runs",
        ],
        ["echo 'unclosed", "a quote is not closed"],
      ]
    ) {
      const answer = await wave.callTool("Bash", { command });
      assert.equal(answer.is_error, true, command);
      assert.equal(
        answer.content,
        `Bash was refused: its command may run what the rule Bash(rm:*) covers, which cannot be known without running it (${why}).`,
        command,
      );
    }
    assert.equal(await Deno.readTextFile(`${ws}/victim`), "v");
    // What only mentions rm still runs.
    const ok = await wave.callTool("Bash", {
      command: 'echo "not; rm -f victim" && grep -c v victim',
    });
    assert.equal(ok.is_error, false, JSON.stringify(ok));
    assert.match(String(ok.content), /not; rm -f victim\n1/);
  } finally {
    await wave.kill();
  }
});
