/**
 * edit_file (toolset `files`, spec 004): every change to a file on disk.
 * `write` creates or deliberately overwrites, `patch` edits regions by
 * anchors located before any change, `remove` moves a file aside into file
 * history, `restore` brings back a version, or every file a task touched,
 * all or nothing.
 *
 * @module
 */

import { z } from "../kernel/zod.ts";
import {
  defineTool,
  type InputOf,
  type ToolContext,
  ToolError,
} from "../kernel/tool.ts";
import { displayPath } from "../kernel/workspace.ts";
import { describeFsError } from "../kernel/atomic_write.ts";
import { diffOrWhy, type FileDiff } from "../_core/diff.ts";
import { wholeRecord } from "../_core/freshness.ts";
import {
  listVersions,
  recoverRollbacks,
  RestoreFailed,
  restoreFiles,
  type RestoreStep,
  shownVersions,
  taskStart,
  type Version,
  versionBytes,
} from "../_core/history.ts";
import {
  applyPatch,
  applyPatchToBytes,
  bytePatchDiff,
  patchDiff,
} from "../_core/patch.ts";
import {
  decodeText,
  fileRef,
  kindOf,
  requireUtf8Text,
} from "../_core/reader.ts";
import { formatBytes, plural } from "../_core/text.ts";
import {
  commitWrite,
  currentBytes,
  describeWholeWrite,
  openForWrite,
  removeFile,
  writeWhole,
} from "../_core/write_path.ts";
import { FILES_READER, FILES_REMOVES, FILES_WRITES } from "./_dialect.ts";

const description =
  `Every change to a file on disk. mode: "write" creates a file or deliberately overwrites one; "patch" edits regions of it; "remove" moves it aside; "restore" brings back earlier content.

- Files you make for the user (reports, exports, images, documents) go in the output directory, {{output_dir}}, unless the user names a place.
- write: {path, content}. Overwriting an existing file needs a read_files read of it in this session.
- patch: {path, targets: [{old_string, new_string, replace_all?}]}. Every old_string is found in the file as it is before the call, never after an earlier target. Two targets that cover the same region, or an old_string that occurs inside an earlier target's new_string, reject the whole call and nothing is written. An empty new_string deletes. To insert, repeat old_string at the start of new_string and add the new text after it. Copy old_string from read_files without the row number and tab; curly and straight quotes match each other, and the replacement keeps the file's quote style. Line numbers (row, insert_string) are not accepted.
- A patch, and a write over an existing file, need a read_files read of the file in this session, with the file unchanged on disk since (by the user, a formatter, a command); otherwise nothing is written: read it again. A successful write or patch counts as a fresh read.
- remove: {path}. The file goes into file history and can be restored.
- restore: {version_id} puts back one file as it was before that change (file_history lists versions); {task_id} puts every file a task changed back as it was before the task ("current": the task running now), all or nothing.
- Without mode: content means write, targets means patch; remove and restore are never assumed.`;

const Target = z.looseObject({
  old_string: z.string().describe(
    "Exact text of the file as it is now, without read_files' row numbers",
  ),
  new_string: z.string().describe(
    "What replaces it; empty deletes; to insert, start with old_string",
  ),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence (default: old_string must occur once)",
  ),
});

const input = z.looseObject({
  path: z.string().min(1).optional().describe(
    "The file: absolute, or relative to the workspace",
  ),
  mode: z.enum(["write", "patch", "remove", "restore"]).optional(),
  content: z.string().optional().describe("write: the whole new content"),
  targets: z.array(Target).min(1).optional().describe("patch: the edits"),
  version_id: z.string().min(1).optional().describe(
    "restore: the version to put back (from file_history)",
  ),
  task_id: z.string().min(1).optional().describe(
    'restore: put back every file this task changed ("current": the running task)',
  ),
});

type Input = InputOf<typeof input>;

const KNOWN = new Set([
  "path",
  "mode",
  "content",
  "targets",
  "version_id",
  "task_id",
]);
const TARGET_KEYS = new Set(["old_string", "new_string", "replace_all"]);

/** The message for the removed line-number forms. */
export const ROW_REFUSAL =
  "edit_file no longer takes row or insert_string: a line number would count lines that earlier targets of the same call add or remove, which are not on disk yet. Write the change as a target instead: to insert after a line, set old_string to that line (copied without its row number and tab) and new_string to the same line followed by the new lines; to replace lines, give their text as old_string and the new text as new_string.";

/** Refuses the removed forms and fields edit_file does not know, before anything is done. */
function checkFields(i: Input): void {
  const extra = (keys: string[], known: Set<string>) =>
    keys.filter((k) => !known.has(k));
  const top = extra(Object.keys(i), KNOWN);
  const inTargets = (i.targets ?? []).flatMap((t) =>
    extra(Object.keys(t), TARGET_KEYS)
  );
  const all = [...top, ...inTargets];
  if (all.includes("row") || all.includes("insert_string")) {
    throw new ToolError(ROW_REFUSAL, { type: "row_removed" });
  }
  if (all.length > 0) {
    throw new ToolError(
      `edit_file does not know ${
        [...new Set(all)].map((k) => `"${k}"`).join(", ")
      }: it takes path, mode, content, targets [{old_string, new_string, replace_all}], version_id and task_id.`,
      { type: "unknown_field" },
    );
  }
}

/** The mode a call asks for: given, or inferred (content → write, targets → patch). */
function modeOf(i: Input): "write" | "patch" | "remove" | "restore" {
  if (i.mode) return i.mode;
  if (i.content !== undefined && i.targets !== undefined) {
    throw new ToolError(
      "Give content (a whole-file write) or targets (a patch), not both; or set mode.",
      { type: "ambiguous_mode" },
    );
  }
  if (i.content !== undefined) return "write";
  if (i.targets !== undefined) return "patch";
  throw new ToolError(
    'Nothing to do: give content (mode "write") or targets (mode "patch"). Remove and restore are never assumed: set mode "remove" or "restore".',
    { type: "no_mode" },
  );
}

function need<T>(value: T | undefined, what: string, mode: string): T {
  if (value === undefined) {
    throw new ToolError(`mode "${mode}" needs ${what}.`, {
      type: "missing_field",
    });
  }
  return value;
}

export default defineTool({
  name: "edit_file",
  description,
  input,
  scopes: { read: true, write: true },
  paths: (i) => i.path ? [{ path: i.path, access: "write" }] : [],
  warmup: [{
    path: "notes.txt",
    mode: "patch",
    targets: [{ old_string: "line 4\n", new_string: "line four\n" }],
  }],
  async run(i, ctx) {
    checkFields(i);
    const mode = modeOf(i);
    const recovered = await recoverRollbacks(ctx);
    const note = recovered.length === 0
      ? ""
      : `(An earlier restore was cut short; it was undone first: ${
        recovered.map((p) => displayPath(ctx.workspace, p)).join(", ")
      }.)\n`;
    const result = mode === "write"
      ? await write(i, ctx)
      : mode === "patch"
      ? await patch(i, ctx)
      : mode === "remove"
      ? await remove(i, ctx)
      : await restore(i, ctx);
    return note ? { ...result, content: note + result.content } : result;
  },
});

async function write(i: Input, ctx: ToolContext) {
  const path = need(i.path, "path", "write");
  const content = need(i.content, "content", "write");
  const file = fileRef(ctx, path);
  const { outcome, oldText, shown } = await writeWhole(
    ctx,
    FILES_WRITES,
    file,
    new TextEncoder().encode(content),
    { action: "overwrite", tool: "edit_file", oldText: true },
  );
  const { text, lines, diff } = describeWholeWrite(
    shown,
    content,
    oldText,
    outcome,
    "Overwrote",
  );
  return {
    content: text,
    structured: {
      mode: "write",
      path: file.abs,
      created: outcome.created,
      bytes: outcome.bytesWritten,
      previousBytes: outcome.previousSize ?? null,
      lines,
      diff: diff?.unified ?? null,
    },
  };
}

async function patch(i: Input, ctx: ToolContext) {
  const path = need(i.path, "path", "patch");
  const targets = need(i.targets, "targets", "patch");
  const file = fileRef(ctx, path);
  const target = await openForWrite(ctx, FILES_WRITES, file, {
    action: "edit",
    mustExist: true,
  });
  const { shown } = target;
  requireUtf8Text(await kindOf(file.real), shown, {
    binary: "edit_file patches text files only; write it whole instead.",
    encoding:
      "edit_file patches UTF-8 files only, so it would re-encode it. Convert it first, or write it whole.",
  });
  const bytes = await currentBytes(target);
  const wanted = targets.map((t) => ({
    oldString: t.old_string,
    newString: t.new_string,
    replaceAll: t.replace_all,
  }));
  // Large files take the byte path: nothing decoded but the diff's windows.
  const fast = applyPatchToBytes(bytes, wanted);
  let content: Uint8Array | Uint8Array[];
  let replacements: number;
  let made: () => FileDiff;
  if (fast) {
    content = fast.chunks;
    replacements = fast.changes.length;
    made = once(() => bytePatchDiff(shown, bytes, fast));
  } else {
    const original = decodeText(bytes, "utf-8");
    const patched = applyPatch(original, wanted, shown);
    content = new TextEncoder().encode(patched.text);
    replacements = patched.changes.length;
    made = once(() => patchDiff(shown, original, patched));
  }
  const outcome = await commitWrite(ctx, FILES_WRITES, target, content, {
    tool: "edit_file",
    whileFlushing: made,
  });
  const d = made();
  return {
    content: `Patched ${shown}: ${plural(targets.length, "target")}, ${
      plural(replacements, "replacement")
    }, first change at line ${d.firstChangedLine ?? 1}.\n${diffOrWhy(d)}`,
    structured: {
      mode: "patch",
      path: file.abs,
      targets: targets.length,
      replacements,
      bytes: outcome.bytesWritten,
      firstChangedLine: d.firstChangedLine,
      linesAdded: d.added,
      linesRemoved: d.removed,
      diff: d.unified,
      diffComplete: d.complete,
    },
  };
}

async function remove(i: Input, ctx: ToolContext) {
  const path = need(i.path, "path", "remove");
  const file = fileRef(ctx, path);
  const target = await openForWrite(ctx, FILES_REMOVES, file, {
    action: "remove",
    mustExist: true,
  });
  const size = target.info?.size ?? 0;
  const version = await removeFile(ctx, FILES_REMOVES, target, "edit_file");
  return {
    content: `Removed ${target.shown} (${
      formatBytes(size)
    }). It is kept in file history as version ${version?.id}: edit_file mode "restore" with that version_id brings it back.`,
    structured: {
      mode: "remove",
      path: file.abs,
      size,
      version_id: version?.id ?? null,
    },
  };
}

async function restore(i: Input, ctx: ToolContext) {
  if ((i.version_id === undefined) === (i.task_id === undefined)) {
    throw new ToolError(
      'mode "restore" needs version_id (one file) or task_id (every file a task changed), one of the two.',
      { type: "missing_field" },
    );
  }
  // A version of a file a Read deny rule covers is not there for the model.
  const all = await listVersions(ctx);
  const versions = shownVersions(ctx, all);
  let chosen: Version[];
  let what: string;
  if (i.version_id !== undefined) {
    const version = versions.find((v) => v.id === i.version_id);
    if (!version) {
      throw new ToolError(
        `There is no version ${i.version_id} in this workspace's file history; file_history lists them.`,
        { type: "no_version" },
      );
    }
    if (i.path !== undefined && fileRef(ctx, i.path).real !== version.path) {
      throw new ToolError(
        `Version ${i.version_id} is of ${
          displayPath(ctx.workspace, version.path)
        }, not ${i.path}.`,
        { type: "wrong_path" },
      );
    }
    chosen = [version];
    what = `before ${version.tool} (${version.at})`;
  } else {
    const id = i.task_id === "current" ? ctx.task.id : i.task_id!;
    chosen = taskStart(versions, id);
    if (taskStart(all, id).length !== chosen.length) {
      throw new ToolError(
        `Task ${id} also changed files a Read deny rule covers, so it is not restored as a whole; restore the others by version_id (file_history lists them).`,
        { type: "not_granted" },
      );
    }
    if (chosen.length === 0) {
      throw new ToolError(
        `Task ${id} changed no file in this workspace's file history; nothing to restore.`,
        { type: "no_version" },
      );
    }
    what = `before task ${id}${
      chosen[0].task.goal ? ` ("${chosen[0].task.goal}")` : ""
    }`;
  }
  const steps: RestoreStep[] = [];
  for (const v of chosen) {
    steps.push({ real: v.path, bytes: await versionBytes(ctx, v) });
  }
  try {
    await restoreFiles(ctx, steps, { tool: "edit_file" });
  } catch (error) {
    if (!(error instanceof RestoreFailed)) throw error;
    throw new ToolError(
      `Could not restore: ${
        describeFsError(error.cause, displayPath(ctx.workspace, error.path))
      }. Nothing was restored: every file is as it was before this call.`,
      { type: "restore_failed" },
    );
  }
  for (const step of steps) {
    if (step.bytes === null) ctx.readState.forget(step.real);
    else {
      ctx.readState.record(
        step.real,
        wholeRecord(step.real, step.bytes, FILES_READER),
      );
    }
  }
  const files = steps.map((s) => ({
    path: s.real,
    removed: s.bytes === null,
    size: s.bytes?.length ?? null,
  }));
  return {
    content: `Restored ${
      plural(steps.length, "file")
    } to their state ${what}:\n${
      files.map((f) =>
        `- ${displayPath(ctx.workspace, f.path)}: ${
          f.removed ? "removed (it did not exist then)" : formatBytes(f.size!)
        }`
      ).join("\n")
    }\n`,
    structured: {
      mode: "restore",
      version_id: i.version_id ?? null,
      task_id: i.task_id ?? null,
      files,
    },
  };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
