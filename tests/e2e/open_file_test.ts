/**
 * End-to-end: spec 004's open_file through `call_tool` against the real
 * CLI: `--open-with system` with a recording `xdg-open` first on PATH,
 * `parent` answered and unanswered, `none`, and the default by display.
 */

import assert from "node:assert/strict";
import { type WaveProcess, withWave } from "../_wave.ts";
import { tempDirSync } from "../_temp.ts";

/** A directory whose `xdg-open` runs `body` (sh), recording into `record`. */
function fakeOpener(body: string): { bin: string; record: string } {
  const bin = tempDirSync({ prefix: "wave-opener-" });
  const record = `${bin}/record`;
  Deno.writeTextFileSync(
    `${bin}/xdg-open`,
    `#!/bin/sh\nRECORD=${record}\n${body}\n`,
  );
  Deno.chmodSync(`${bin}/xdg-open`, 0o755);
  return { bin, record };
}

const withOpener = (
  opener: { bin: string },
  args: string[],
  env: Record<string, string>,
  fn: (wave: WaveProcess) => Promise<void>,
) =>
  withWave({
    args: ["--toolset", "files", ...args],
    env: { PATH: `${opener.bin}:${Deno.env.get("PATH")}`, ...env },
  }, fn);

const open = (wave: WaveProcess, path: string) =>
  wave.callTool("open_file", { path }, 30_000);

const RECORDING =
  'echo "$@" >> "$RECORD"; echo "DISPLAY=$DISPLAY" >> "$RECORD"';

/** wave under `--open-with system` with a display and the recording opener. */
function withRecordingOpener(
  fn: (wave: WaveProcess, opener: { record: string }) => Promise<void>,
): Promise<void> {
  const opener = fakeOpener(RECORDING);
  return withOpener(
    opener,
    ["--open-with", "system"],
    { DISPLAY: ":42" },
    (wave) => fn(wave, opener),
  );
}

Deno.test("e2e 004 open_file: --open-with system runs xdg-open (the one first on PATH) on the file's real path, with the display", () =>
  withRecordingOpener(async (wave, opener) => {
    wave.put("clip.mp4", "not really a video");
    const r = await open(wave, "clip.mp4");
    assert.equal(r.is_error, false, r.content);
    assert.equal(r.content, "Opened clip.mp4 (opened with xdg-open).");
    const real = Deno.realPathSync(`${wave.workspace}/clip.mp4`);
    assert.equal(
      Deno.readTextFileSync(opener.record),
      `${real}\nDISPLAY=:42\n`,
    );
    assert.deepEqual(r.structured, {
      path: `${wave.workspace}/clip.mp4`,
      open_with: "system",
      how: "opened with xdg-open",
    });
  }));

Deno.test("e2e 004 open_file: --open-with system does not give the opener what it would run rather than show (a .desktop launcher, a script, an executable file): refused, saying to tell the user where it is, and the opener never runs", () =>
  withRecordingOpener(async (wave, opener) => {
    wave.put(
      "run.desktop",
      "[Desktop Entry]\nType=Application\nExec=sh -c 'touch /tmp/pwned'\n",
    );
    wave.put("tool", "#!/bin/sh\necho ran\n");
    Deno.chmodSync(`${wave.workspace}/tool`, 0o755);
    wave.put("Setup.SH", "echo ran\n");
    const cases: [string, string][] = [
      ["run.desktop", "a .desktop file"],
      ["tool", "an executable file"],
      ["Setup.SH", "a .sh file"],
    ];
    for (const [name, why] of cases) {
      const r = await open(wave, name);
      assert.equal(r.is_error, true, name);
      const real = Deno.realPathSync(`${wave.workspace}/${name}`);
      assert.equal(
        r.content,
        `Could not open ${name}: the system's opener would run it (${why}) rather than show it, outside the sandbox, with the user's rights. Tell the user where the file is: ${real}`,
      );
    }
    assert.throws(() => Deno.statSync(opener.record));
  }));

Deno.test("e2e 004 open_file: an opener that fails is reported with its exit code and what it said", () => {
  const opener = fakeOpener('echo "no application for this type" >&2; exit 3');
  return withOpener(opener, ["--open-with", "system"], {}, async (wave) => {
    wave.put("x.weird", "x");
    const r = await open(wave, "x.weird");
    assert.equal(r.is_error, true);
    assert.equal(
      r.content,
      `Could not open x.weird: xdg-open could not open it (exit code 3): no application for this type. Tell the user where the file is: ${wave.workspace}/x.weird`,
    );
  });
});

Deno.test("e2e 004 open_file: under system the call waits at most 10 s for the opener; what it started stays running", () => {
  const opener = fakeOpener('echo $$ > "$RECORD"; sleep 60');
  return withOpener(opener, ["--open-with", "system"], {}, async (wave) => {
    wave.put("slow.pdf", "%PDF");
    const r = await open(wave, "slow.pdf");
    assert.equal(r.is_error, false, r.content);
    assert.equal(
      r.content,
      "Opened slow.pdf (xdg-open had not finished after 10 s; it goes on in the background).",
    );
    const pid = Number(Deno.readTextFileSync(opener.record).trim());
    // Still running: the person's, not wave's to end. The test ends it.
    Deno.kill(pid, "SIGKILL");
  });
});

Deno.test("e2e 004 open_file: --open-with parent sends control_request open_file {path} and waits for the answer", () =>
  withWave(
    { args: ["--toolset", "files", "--open-with", "parent"] },
    async (wave) => {
      wave.put("pic.png", "png");
      const real = Deno.realPathSync(`${wave.workspace}/pic.png`);
      await wave.sendCall("c1", "open_file", { path: "pic.png" });
      const ask = await wave.waitFor((m) =>
        m.type === "control_request" && m.request.subtype === "open_file"
      );
      assert.deepEqual(ask.request, { subtype: "open_file", path: real });
      assert.match(ask.request_id, /^wave-open_file-[0-9a-f-]{36}$/);
      await wave.send({
        type: "control_response",
        response: {
          subtype: "success",
          request_id: ask.request_id,
          response: {},
        },
      });
      const done = await wave.waitFor((m) =>
        m.type === "control_response" && m.response.request_id === "c1"
      );
      assert.equal(done.response.response.is_error, false);
      assert.equal(
        done.response.response.content,
        "Opened pic.png (the parent opened it).",
      );
      // An error answer is the call's error.
      await wave.sendCall("c2", "open_file", { path: "pic.png" });
      let asks = 0;
      const ask2 = await wave.waitFor((m) =>
        m.type === "control_request" && m.request.subtype === "open_file" &&
        ++asks === 2
      );
      await wave.send({
        type: "control_response",
        response: {
          subtype: "error",
          request_id: ask2.request_id,
          error: "no viewer for PNG",
        },
      });
      const failed = await wave.waitFor((m) =>
        m.type === "control_response" && m.response.request_id === "c2"
      );
      assert.equal(failed.response.response.is_error, true);
      assert.equal(
        failed.response.response.content,
        `Could not open pic.png: no viewer for PNG. Tell the user where the file is: ${wave.workspace}/pic.png`,
      );
    },
  ));

Deno.test("e2e 004 open_file: --open-with parent unanswered fails after 10 s, saying so", () =>
  withWave(
    { args: ["--toolset", "files", "--open-with", "parent"] },
    async (wave) => {
      wave.put("doc.pdf", "%PDF");
      const r = await open(wave, "doc.pdf");
      assert.equal(r.is_error, true);
      assert.equal(
        r.content,
        `Could not open doc.pdf: the parent did not answer the open_file request within 10 s. Tell the user where the file is: ${wave.workspace}/doc.pdf`,
      );
      assert.equal(r.structured.type, "timeout");
    },
  ));

Deno.test("e2e 004 open_file: --open-with none refuses with a clear message; the default is system with a display, none without", async () => {
  const opener = fakeOpener(RECORDING);
  await withOpener(
    opener,
    ["--open-with", "none"],
    { DISPLAY: ":1" },
    async (wave) => {
      wave.put("a.png", "x");
      const r = await open(wave, "a.png");
      assert.equal(r.is_error, true);
      assert.equal(
        r.content,
        `open_file cannot open files in this session: wave runs without a display (--open-with none). Tell the user where the file is: ${wave.workspace}/a.png`,
      );
    },
  );
  await withOpener(
    opener,
    [],
    { DISPLAY: "", WAYLAND_DISPLAY: "" },
    async (wave) => {
      wave.put("a.png", "x");
      const r = await open(wave, "a.png");
      assert.equal(r.structured.type, "open_disabled");
    },
  );
  await withOpener(
    opener,
    [],
    { DISPLAY: "", WAYLAND_DISPLAY: "wayland-0" },
    async (wave) => {
      wave.put("b.png", "x");
      const r = await open(wave, "b.png");
      assert.equal(r.is_error, false, r.content);
      assert.equal(r.structured.open_with, "system");
    },
  );
  assert.match(Deno.readTextFileSync(opener.record), /\/b\.png\n/);
});

Deno.test("e2e 004 open_file: paths go through the resolver and approvals like any read; a missing file is named", () =>
  withWave(
    { args: ["--toolset", "files", "--open-with", "parent"] },
    async (wave) => {
      const outside = `${tempDirSync()}/x.png`;
      Deno.writeTextFileSync(outside, "x");
      const denied = await open(wave, outside);
      assert.equal(denied.is_error, true);
      assert.equal(denied.structured.type, "permission_denied");
      const missing = await open(wave, "nope.png");
      assert.equal(missing.is_error, true);
      assert.equal(missing.content, "File does not exist: nope.png.");
      assert.equal(
        wave.messages.filter((m) => m.type === "control_request").length,
        0,
      );
    },
  ));
