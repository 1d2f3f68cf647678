/**
 * A pool of sandbox workers that evaluates batches of programs, with the host watchdog that
 * QuickJS cannot provide for itself: some builtins ignore the interrupt handler (a 2^32
 * indexOf, a gigantic join), so a worker that has not reported an outcome within
 * `limits.watchdogMs` is terminated and replaced. The program it was running gets `timeout`;
 * the rest of its chunk is evaluated by the replacement. A worker that dies gives
 * `infra_error` for the program it was running (counted apart from the program's own
 * failures) and is respawned.
 *
 * Platform-neutral: the host provides `spawn`, which returns a `SandboxWorkerHandle` over a
 * Node worker_thread or a browser Web Worker running `serveSandbox` (sandboxWorker.ts).
 * Jobs go to workers in chunks (one message per chunk, one small message per outcome), so a
 * batch costs few round trips while the watchdog still knows which program is running.
 */
import type { SandboxJob, SandboxLimits, SandboxOutcome } from './outcome';
import type { Prelude } from './prelude';

/** Host -> worker messages. */
export type SandboxRequest =
  | { type: 'init'; limits: SandboxLimits; preludes: Record<string, Prelude> }
  | { type: 'run'; chunk: number; jobs: SandboxJob[] };

/** Worker -> host messages. */
export type SandboxReply =
  | { type: 'ready' }
  | { type: 'outcome'; chunk: number; index: number; outcome: SandboxOutcome }
  | { type: 'done'; chunk: number; recycle: boolean }
  | { type: 'fatal'; message: string };

export interface SandboxWorkerHandle {
  postMessage(message: SandboxRequest): void;
  /** Registers the single listener for replies. */
  onMessage(listener: (message: SandboxReply) => void): void;
  /** Registers the listener for the worker's death (crash, exit, load failure). */
  onError(listener: (message: string) => void): void;
  terminate(): void;
}

export interface SandboxPoolOptions {
  size: number;
  limits: SandboxLimits;
  preludes?: Record<string, Prelude>;
  spawn: () => SandboxWorkerHandle;
  /** Jobs sent to a worker per message. */
  chunkSize?: number;
}

export interface SandboxPoolStats {
  evaluations: number;
  respawns: number;
  infraErrors: number;
  watchdogKills: number;
}

interface Task {
  jobs: readonly SandboxJob[];
  outcomes: (SandboxOutcome | undefined)[];
  /** Indices of jobs not yet handed to a worker. */
  queue: number[];
  remaining: number;
  resolve: (outcomes: SandboxOutcome[]) => void;
}

interface Slot {
  handle: SandboxWorkerHandle | null;
  ready: Promise<void> | null;
  busy: boolean;
  /** Job indices of the chunk in flight, in order; `done` of them have outcomes. */
  inFlight: number[];
  done: number;
  chunkId: number;
  task: Task | null;
  timer: unknown;
  started: number;
}

export class SandboxPool {
  private readonly slots: Slot[];
  private readonly chunkSize: number;
  private readonly tasks: Task[] = [];
  private nextChunk = 1;
  private closed = false;
  private readonly counters: SandboxPoolStats = { evaluations: 0, respawns: 0, infraErrors: 0, watchdogKills: 0 };

  constructor(private readonly options: SandboxPoolOptions) {
    if (!(options.size >= 1)) throw new Error('a sandbox pool needs at least one worker');
    this.chunkSize = options.chunkSize ?? 16;
    this.slots = Array.from({ length: options.size }, () => ({
      handle: null, ready: null, busy: false, inFlight: [], done: 0, chunkId: 0, task: null, timer: null, started: 0,
    }));
  }

  stats(): SandboxPoolStats {
    return { ...this.counters };
  }

  evaluateBatch(jobs: readonly SandboxJob[]): Promise<SandboxOutcome[]> {
    if (this.closed) return Promise.reject(new Error('the sandbox pool is closed'));
    if (jobs.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.tasks.push({ jobs, outcomes: new Array(jobs.length), queue: jobs.map((_, i) => i), remaining: jobs.length, resolve });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) {
      clearTimeout(slot.timer);
      slot.handle?.terminate();
      slot.handle = null;
    }
    for (const task of this.tasks.splice(0)) {
      task.resolve(task.outcomes.map((o) => o ?? { kind: 'infra_error', message: 'sandbox pool closed', elapsedMs: 0 }));
    }
  }

  private spawn(slot: Slot): void {
    const handle = this.options.spawn();
    slot.handle = handle;
    slot.ready = new Promise<void>((resolveReady) => {
      handle.onMessage((message) => {
        if (slot.handle !== handle) return;
        if (message.type === 'ready') resolveReady();
        else this.onReply(slot, message);
      });
      handle.onError((reason) => {
        if (slot.handle !== handle) return;
        resolveReady();
        this.onDeath(slot, reason);
      });
    });
    handle.postMessage({ type: 'init', limits: this.options.limits, preludes: this.options.preludes ?? {} });
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const task = this.tasks.find((t) => t.queue.length > 0);
      if (!task) return;
      const indices = task.queue.splice(0, Math.max(1, Math.min(this.chunkSize, Math.ceil(task.queue.length / this.slots.length))));
      this.dispatch(slot, task, indices);
    }
  }

  private dispatch(slot: Slot, task: Task, indices: number[]): void {
    slot.busy = true;
    slot.task = task;
    slot.inFlight = indices;
    slot.done = 0;
    slot.chunkId = this.nextChunk++;
    if (!slot.handle) this.spawn(slot);
    const handle = slot.handle!;
    const chunkId = slot.chunkId;
    void slot.ready!.then(() => {
      if (slot.handle !== handle || slot.chunkId !== chunkId) return;
      handle.postMessage({ type: 'run', chunk: chunkId, jobs: indices.map((i) => task.jobs[i]) });
      this.armWatchdog(slot);
    });
  }

  private armWatchdog(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.started = performance.now();
    const chunkId = slot.chunkId;
    slot.timer = setTimeout(() => {
      if (slot.chunkId === chunkId && slot.busy) this.onWatchdog(slot);
    }, this.options.limits.watchdogMs);
  }

  private settle(task: Task, index: number, outcome: SandboxOutcome): void {
    if (task.outcomes[index]) return;
    task.outcomes[index] = outcome;
    task.remaining -= 1;
    this.counters.evaluations += 1;
    if (outcome.kind === 'infra_error') this.counters.infraErrors += 1;
    if (task.remaining === 0) {
      this.tasks.splice(this.tasks.indexOf(task), 1);
      task.resolve(task.outcomes as SandboxOutcome[]);
    }
  }

  private onReply(slot: Slot, message: SandboxReply): void {
    if (message.type === 'fatal') {
      this.onDeath(slot, message.message);
      return;
    }
    if (message.type === 'ready' || message.chunk !== slot.chunkId || !slot.task) return;
    if (message.type === 'outcome') {
      slot.done = message.index + 1;
      this.settle(slot.task, slot.inFlight[message.index], message.outcome);
      this.armWatchdog(slot);
      return;
    }
    // done
    clearTimeout(slot.timer);
    slot.busy = false;
    slot.task = null;
    if (message.recycle) this.replace(slot);
    this.pump();
  }

  /** Ends the current chunk on `slot`: the running job gets `outcome`, the rest go back to the queue. */
  private abortChunk(slot: Slot, outcome: SandboxOutcome): void {
    clearTimeout(slot.timer);
    const task = slot.task;
    if (task && slot.busy) {
      const running = slot.inFlight[slot.done];
      if (running !== undefined) this.settle(task, running, outcome);
      const rest = slot.inFlight.slice(slot.done + 1).filter((i) => !task.outcomes[i]);
      task.queue.unshift(...rest);
    }
    slot.busy = false;
    slot.task = null;
    slot.chunkId = 0;
    this.replace(slot);
    this.pump();
  }

  private onWatchdog(slot: Slot): void {
    this.counters.watchdogKills += 1;
    const elapsedMs = performance.now() - slot.started;
    this.abortChunk(slot, { kind: 'timeout', message: `terminated by the host watchdog after ${this.options.limits.watchdogMs} ms`, elapsedMs });
  }

  private onDeath(slot: Slot, reason: string): void {
    this.abortChunk(slot, { kind: 'infra_error', message: `sandbox worker died: ${reason}`.slice(0, 300), elapsedMs: 0 });
  }

  private replace(slot: Slot): void {
    slot.handle?.terminate();
    slot.handle = null;
    slot.ready = null;
    if (!this.closed) this.counters.respawns += 1;
  }
}
