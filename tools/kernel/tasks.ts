/**
 * Task lists (spec 003): one JSON file per task under
 * `WAVE_HOME/tasks/{taskListId}/{taskId}.json`, written atomically. Several
 * sessions, agents or processes may share a list: creating a task (read
 * the highest id, write the new task) happens under a per-list exclusive
 * lock file, so ids are 1, 2, 3 … in creation order, never duplicated and
 * never reused.
 *
 * @module
 */

import { join } from "./posix_path.ts";
import { atomicWrite } from "./atomic_write.ts";
import { readTextFile } from "./read_file.ts";

/**
 * The statuses a task may have, in the order work moves through them.
 *
 * @example
 * ```ts
 * import { TASK_STATUSES } from "@wave/wave";
 * console.assert(TASK_STATUSES.includes("in_progress"));
 * ```
 */
export const TASK_STATUSES = [
  "pending",
  "in_progress",
  "completed",
  "deleted",
] as const;
/** A task's status. */
export type TaskStatus = typeof TASK_STATUSES[number];

/** A task as stored. */
export interface Task {
  /** Its id: "1", "2", … in order of creation, never reused. */
  id: string;
  /** A short imperative title ("Run the tests"). */
  subject: string;
  /** What the task is, and what done means. */
  description: string;
  /** What the UI shows while the task is in progress ("Running the tests"). */
  activeForm?: string;
  /** Where it stands. */
  status: TaskStatus;
  /** Who works on it (an agent's name), when someone does. */
  owner?: string;
  /** Ids of tasks this one blocks. */
  blocks: string[];
  /** Ids of tasks that block this one. */
  blockedBy: string[];
  /** Extra data kept with the task. */
  metadata: Record<string, unknown>;
  /** When it was created (ISO 8601). */
  createdAt: string;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}

/** What a UI needs of a list (docs/protocol.md `system/task_list`). */
export interface TaskListView {
  /** Every task that is not deleted, in id order. */
  tasks: { id: string; subject: string; status: TaskStatus }[];
  /** False when every task is completed (or there are none): a UI hides the list. */
  visible: boolean;
}

/** A lock older than this belongs to a holder that died. */
export const STALE_LOCK_MS = 10_000;
/** How often a transient EPERM on creating the lock is retried (Windows' pending-delete window). */
const EPERM_RETRIES = 50;
/** How long to wait for a live lock before giving up. */
const LOCK_TIMEOUT_MS = 30_000;
const HIGH_WATER = ".highwatermark";

/** The file operations the lock uses: a seam for tests (EPERM cannot be made on Linux). */
export interface LockFs {
  createNew(path: string): Promise<void>;
}

const realLockFs: LockFs = {
  createNew(path) {
    Deno.openSync(path, { write: true, createNew: true }).close();
    return Promise.resolve();
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` holding the exclusive lock file `dir/.lock` (created with
 * create-new semantics). A lock whose mtime is older than
 * {@linkcode STALE_LOCK_MS} is taken to belong to a dead holder and is
 * removed; EPERM on creating the lock is retried a bounded number of times.
 */
export async function withListLock<T>(
  dir: string,
  fn: () => Promise<T>,
  fs: LockFs = realLockFs,
): Promise<T> {
  const lock = join(dir, ".lock");
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  let eperms = 0;
  while (true) {
    try {
      await fs.createNew(lock);
      break;
    } catch (error) {
      if (
        error instanceof Deno.errors.PermissionDenied && eperms < EPERM_RETRIES
      ) {
        eperms++;
        await sleep(10);
        continue;
      }
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      await removeIfStale(lock);
      if (Date.now() > deadline) {
        throw new Error(
          `the task list is locked by another process (${lock}); try again`,
        );
      }
      await sleep(2 + Math.random() * 8);
    }
  }
  try {
    return await fn();
  } finally {
    try {
      Deno.removeSync(lock);
    } catch { /* gone already */ }
  }
}

/** Removes a lock left by a dead holder: renamed away first, so two waiters cannot both remove a fresh one. */
async function removeIfStale(lock: string): Promise<void> {
  try {
    const info = await Deno.stat(lock);
    if (Date.now() - (info.mtime?.getTime() ?? Date.now()) < STALE_LOCK_MS) {
      return;
    }
    const aside = `${lock}.stale-${crypto.randomUUID().slice(0, 8)}`;
    Deno.renameSync(lock, aside);
    Deno.removeSync(aside);
  } catch {
    // Gone already, or another waiter moved it: try again.
  }
}

/** Fields a new task is made of. */
export interface NewTask {
  /** See {@linkcode Task.subject}. */
  subject: string;
  /** See {@linkcode Task.description}. */
  description: string;
  /** See {@linkcode Task.activeForm}. */
  activeForm?: string;
  /** See {@linkcode Task.metadata}. */
  metadata?: Record<string, unknown>;
}

/** Changes to a task. `metadata` merges in; a key set to null is removed. */
export interface TaskChanges {
  /** A new status; `deleted` removes the task from the list. */
  status?: TaskStatus;
  /** A new subject. */
  subject?: string;
  /** A new description. */
  description?: string;
  /** A new active form. */
  activeForm?: string;
  /** A new owner. */
  owner?: string;
  /** Keys to merge into the metadata; a key set to null is removed. */
  metadata?: Record<string, unknown>;
  /** Ids of tasks this one now blocks (kept in step on both sides). */
  addBlocks?: string[];
  /** Ids of tasks that now block this one (kept in step on both sides). */
  addBlockedBy?: string[];
}

/** A task list as a tool sees it: the session's list, `ctx.tasks`. */
export interface TaskList {
  /** Where the list lives: `WAVE_HOME/tasks/<list id>`. */
  readonly dir: string;
  /** Creates a task with the next id (ids are never reused). */
  create(fields: NewTask): Promise<Task>;
  /** The task with this id, if there is one. */
  get(id: string): Promise<Task | undefined>;
  /** Applies changes to a task; `undefined` when there is no such task. */
  update(id: string, changes: TaskChanges): Promise<Task | undefined>;
  /** Every task, in id order. */
  list(): Promise<Task[]>;
  /** The list as the parent sees it (`system/task_list`). */
  view(): Promise<TaskListView>;
}

/** One task list on disk, shared by every session that names it. */
export class TaskStore implements TaskList {
  /** Where the list lives: `WAVE_HOME/tasks/<list id>`. */
  readonly dir: string;
  #lockFs: LockFs;

  /** The list `taskListId` under `waveHome`; `lockFs` is for tests. */
  constructor(
    waveHome: string,
    taskListId: string,
    lockFs: LockFs = realLockFs,
  ) {
    this.dir = join(waveHome, "tasks", taskListId);
    this.#lockFs = lockFs;
  }

  #path(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /** Creates a task with the next id. */
  async create(fields: NewTask): Promise<Task> {
    Deno.mkdirSync(this.dir, { recursive: true });
    return await withListLock(this.dir, async () => {
      const id = String(await this.#highestId() + 1);
      const now = new Date().toISOString();
      const task: Task = {
        id,
        subject: fields.subject,
        description: fields.description,
        ...(fields.activeForm ? { activeForm: fields.activeForm } : {}),
        status: "pending",
        blocks: [],
        blockedBy: [],
        metadata: fields.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      };
      await atomicWrite(this.#path(id), JSON.stringify(task, null, 2) + "\n");
      // The high-water mark keeps ids from being reused after a deletion.
      await atomicWrite(join(this.dir, HIGH_WATER), id);
      return task;
    }, this.#lockFs);
  }

  async #highestId(): Promise<number> {
    let highest = 0;
    try {
      highest = Number(await readTextFile(join(this.dir, HIGH_WATER))) ||
        0;
    } catch { /* a new list */ }
    for (const entry of Deno.readDirSync(this.dir)) {
      const m = /^(\d+)\.json$/.exec(entry.name);
      if (m) highest = Math.max(highest, Number(m[1]));
    }
    return highest;
  }

  /** The task `id`, or undefined. */
  async get(id: string): Promise<Task | undefined> {
    if (!/^\d+$/.test(id)) return undefined;
    try {
      return JSON.parse(await readTextFile(this.#path(id))) as Task;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return undefined;
      throw error;
    }
  }

  /** Applies changes (under the lock, so concurrent updates do not lose each other's). Deleting removes the file. */
  async update(id: string, changes: TaskChanges): Promise<Task | undefined> {
    if (!await this.get(id)) return undefined;
    return await withListLock(this.dir, async () => {
      const task = await this.get(id);
      if (!task) return undefined;
      const metadata = { ...task.metadata };
      for (const [key, value] of Object.entries(changes.metadata ?? {})) {
        if (value === null) delete metadata[key];
        else metadata[key] = value;
      }
      const next: Task = {
        ...task,
        ...(changes.status ? { status: changes.status } : {}),
        ...(changes.subject !== undefined ? { subject: changes.subject } : {}),
        ...(changes.description !== undefined
          ? { description: changes.description }
          : {}),
        ...(changes.activeForm !== undefined
          ? { activeForm: changes.activeForm }
          : {}),
        ...(changes.owner !== undefined ? { owner: changes.owner } : {}),
        blocks: union(task.blocks, changes.addBlocks),
        blockedBy: union(task.blockedBy, changes.addBlockedBy),
        metadata,
        updatedAt: new Date().toISOString(),
      };
      if (next.status === "deleted") Deno.removeSync(this.#path(id));
      else {await atomicWrite(
          this.#path(id),
          JSON.stringify(next, null, 2) + "\n",
        );}
      return next;
    }, this.#lockFs);
  }

  /** Every task, in ascending id order. A list that does not exist yet is empty. */
  async list(): Promise<Task[]> {
    const tasks: Task[] = [];
    try {
      for (const entry of Deno.readDirSync(this.dir)) {
        const m = /^(\d+)\.json$/.exec(entry.name);
        if (!m) continue;
        const task = await this.get(m[1]);
        if (task) tasks.push(task);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return tasks.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** The list as a UI shows it. */
  async view(): Promise<TaskListView> {
    const tasks = (await this.list()).filter((t) => t.status !== "deleted");
    return {
      tasks: tasks.map(({ id, subject, status }) => ({ id, subject, status })),
      visible: tasks.some((t) => t.status !== "completed"),
    };
  }
}

function union(a: string[], b: string[] = []): string[] {
  return [...new Set([...a, ...b])];
}

/** `#id [status] subject` lines, for reminders and summaries. */
export function taskLines(
  tasks: { id: string; subject: string; status: string }[],
): string {
  return tasks.map((t) => `#${t.id} [${t.status}] ${t.subject}`).join("\n");
}
