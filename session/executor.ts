/**
 * The sandbox executor (docs/design.md "The sandbox"): runs tool calls
 * in Web Workers whose Deno permissions are the tool's scopes narrowed to
 * the workspace, `WAVE_HOME` and the spill directory, never `net` or `env`.
 *
 * Workers stay warm, one per distinct permission set. A call with approved
 * paths outside the workspace runs in a one-off worker that is granted just
 * those paths. A worker that crashes fails its calls with an error result
 * and is replaced on the next call; one that ignores an abort is terminated.
 *
 * @module
 */

import type {
  CallContextData,
  FromWorker,
  ToWorker,
} from "./_worker_protocol.ts";
import type { ProcessGroups } from "../tools/kernel/processes.ts";
import type { ReadStateChanges } from "../tools/kernel/read_state.ts";
import type { Scopes, ToolEvent, ToolResult } from "../tools/kernel/tool.ts";

/** Extra paths granted to one call after the parent approved them. */
export interface Grants {
  read: string[];
  write: string[];
}

/** One call for the executor. */
export interface ExecRequest {
  callId: string;
  /** The tool module's reference (see `loadTool`). */
  module: string;
  scopes: Scopes;
  input: unknown;
  ctx: CallContextData;
  grants?: Grants;
  signal: AbortSignal;
  /** Each event the tool emits, in order, before the call's outcome resolves. */
  onEvent(event: ToolEvent): void;
}

/** What a call produced. */
export interface ExecOutcome {
  result: ToolResult;
  readState: ReadStateChanges;
}

/** Options of a {@linkcode SandboxExecutor}. */
export interface ExecutorOptions {
  workspace: string;
  waveHome: string;
  processes: ProcessGroups;
  /**
   * Directories of extra tool modules (`--tool-module`): a worker must be
   * able to read a module that is not in wave's own module graph.
   */
  moduleDirs?: readonly string[];
  /** How long an aborted call may take to stop before its worker is terminated. */
  abortGraceMs?: number;
}

const WORKER_URL = new URL("./_tool_worker.ts", import.meta.url).href;

interface PendingCall {
  request: ExecRequest;
  resolve(outcome: ExecOutcome): void;
}

let nextWorkerId = 1;

class SandboxWorker {
  readonly id = nextWorkerId++;
  readonly worker: Worker;
  readonly pending = new Map<string, PendingCall>();
  dead = false;
  onDead: (self: SandboxWorker) => void = () => {};
  #processes: ProcessGroups;

  constructor(
    permissions: Deno.PermissionOptionsObject,
    processes: ProcessGroups,
  ) {
    this.#processes = processes;
    this.worker = new Worker(WORKER_URL, {
      type: "module",
      name: `wave-tool-${this.id}`,
      deno: { permissions },
    });
    this.worker.onmessage = (event: MessageEvent<FromWorker>) =>
      this.#receive(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.terminate(`the tool's sandbox worker crashed: ${event.message}`);
    };
    this.worker.onmessageerror = () =>
      this.terminate(
        "the tool's sandbox worker sent a message that could not be read",
      );
  }

  run(request: ExecRequest): Promise<ExecOutcome> {
    return new Promise((resolve) => {
      this.pending.set(request.callId, { request, resolve });
      const message: ToWorker = {
        type: "call",
        id: request.callId,
        module: request.module,
        input: request.input,
        ctx: request.ctx,
      };
      this.worker.postMessage(message);
    });
  }

  abort(callId: string): void {
    if (!this.dead) this.worker.postMessage({ type: "abort", id: callId });
  }

  /** Ends the worker: calls still running get `message` as an error result, its process groups are killed. */
  terminate(message: string): void {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    this.#processes.kill(this.#processes.ofWorker(this.id));
    for (const { resolve } of this.pending.values()) {
      resolve({
        result: {
          content: message,
          isError: true,
          structured: { type: "sandbox_failure" },
        },
        readState: {},
      });
    }
    this.pending.clear();
    this.onDead(this);
  }

  #receive(message: FromWorker): void {
    const call = this.pending.get(message.id);
    switch (message.type) {
      case "result":
        if (!call) return;
        this.pending.delete(message.id);
        call.resolve({ result: message.result, readState: message.readState });
        return;
      case "event":
        call?.request.onEvent(message.event);
        return;
      case "process":
        if (message.op === "started") {
          this.#processes.started(
            message.pgid,
            message.id,
            this.id,
            message.marker,
          );
          // A group started after its call was given up on dies at once.
          if (!call) this.#processes.kill([message.pgid]);
        } else this.#processes.ended(message.pgid);
        return;
      case "signal":
        this.#processes.signal(message.pgid, message.id, message.signal);
        return;
    }
  }
}

/** Runs tool calls in permission-narrowed workers. */
export class SandboxExecutor {
  #options: ExecutorOptions;
  #warm = new Map<string, SandboxWorker>();
  #oneOff = new Set<SandboxWorker>();
  #closed = false;

  constructor(options: ExecutorOptions) {
    this.#options = options;
  }

  /** The Deno permissions of a worker for `scopes` and `grants`. */
  #permissionsFor(
    scopes: Scopes,
    programs: string[],
    grants?: Grants,
  ): Deno.PermissionOptionsObject {
    const { workspace, waveHome } = this.#options;
    const write = scopes.write === true
      ? [workspace, waveHome, ...(grants?.write ?? [])]
      : scopes.write === "state"
      ? [waveHome]
      : false;
    return {
      read: [
        workspace,
        waveHome,
        ...(this.#options.moduleDirs ?? []),
        ...(grants?.read ?? []),
      ],
      write,
      run: scopes.run?.length ? programs : false,
      net: false,
      env: false,
      sys: false,
      ffi: false,
    };
  }

  /**
   * Runs one call. Never rejects: a crash, a termination or a refusal by the
   * sandbox is an error result.
   */
  async run(request: ExecRequest): Promise<ExecOutcome> {
    if (this.#closed) {
      return {
        result: { content: "wave is shutting down", isError: true },
        readState: {},
      };
    }
    const programs = Object.values(request.ctx.programs).sort();
    const oneOff = !!request.grants &&
      (request.grants.read.length > 0 || request.grants.write.length > 0);
    const worker = oneOff
      ? this.#spawnOneOff(request.scopes, programs, request.grants)
      : this.#warmWorker(request.scopes, programs);

    const { signal } = request;
    let stuck: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      worker.abort(request.callId);
      stuck = setTimeout(
        () =>
          worker.terminate(
            "the tool did not stop after the interrupt; its sandbox worker was terminated",
          ),
        this.#options.abortGraceMs ?? 1500,
      );
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await worker.run(request);
    } finally {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(stuck);
      if (oneOff) {
        worker.terminate("the call's one-off worker was closed");
        this.#oneOff.delete(worker);
      }
    }
  }

  #warmWorker(scopes: Scopes, programs: string[]): SandboxWorker {
    const key = JSON.stringify([
      !!scopes.read,
      scopes.write ?? false,
      programs,
    ]);
    let worker = this.#warm.get(key);
    if (!worker || worker.dead) {
      worker = new SandboxWorker(
        this.#permissionsFor(scopes, programs),
        this.#options.processes,
      );
      worker.onDead = (dead) => {
        if (this.#warm.get(key) === dead) this.#warm.delete(key);
      };
      this.#warm.set(key, worker);
    }
    return worker;
  }

  #spawnOneOff(
    scopes: Scopes,
    programs: string[],
    grants?: Grants,
  ): SandboxWorker {
    const worker = new SandboxWorker(
      this.#permissionsFor(scopes, programs, grants),
      this.#options.processes,
    );
    this.#oneOff.add(worker);
    return worker;
  }

  /** Terminates every worker; their pending calls get error results. */
  close(): void {
    this.#closed = true;
    for (const worker of [...this.#warm.values(), ...this.#oneOff]) {
      worker.terminate("wave is shutting down");
    }
    this.#warm.clear();
    this.#oneOff.clear();
  }
}
