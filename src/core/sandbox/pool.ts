/**
 * A pool of sandbox workers that evaluates batches of programs, with the host watchdog that
 * QuickJS cannot provide for itself: some builtins ignore the interrupt handler (a 2^32
 * indexOf, a gigantic join), so a worker whose current program has run for `limits.watchdogMs`
 * is terminated and replaced. That program gets `timeout`; the rest of its chunk is evaluated
 * by the replacement. A worker that dies gives `infra_error` for the program it was running
 * (counted apart from the program's own failures) and is respawned.
 *
 * Platform-neutral: the host provides `spawn`, which returns a `SandboxWorkerHandle` over a
 * Node worker_thread or a browser Web Worker running `serveSandbox` (sandboxWorker.ts).
 *
 * Round trips: jobs go to a worker in chunks, one message per chunk, and all outcomes of a chunk
 * come back in one message. The watchdog still knows which program is running: the worker
 * writes the index of its current job and when it started into a SharedArrayBuffer (`progress`)
 * before each job. Outcomes already computed in a chunk whose worker is killed are lost with it
 * and those jobs run again on the replacement (evaluation is deterministic, so results are the
 * same). Without SharedArrayBuffer (a page that is not cross-origin isolated) the worker sends
 * one message per outcome instead, as progress.
 */
import type { SandboxJob, SandboxLimits, SandboxOutcome } from './outcome';
import type { Prelude } from './prelude';
import type { QuickJSWasmModuleSource } from './sandbox';

/** Int32 slots of a worker's progress buffer. */
export const PROGRESS_CHUNK = 0;
export const PROGRESS_INDEX = 1;
/** Milliseconds from the chunk's `epoch` (host Date.now() at dispatch) to the start of the current job. */
export const PROGRESS_STARTED = 2;
export const PROGRESS_SLOTS = 3;

/** Host -> worker messages. */
export type SandboxRequest =
  | { type: 'init'; limits: SandboxLimits; preludes: Record<string, Prelude>; progress?: SharedArrayBuffer; wasmModule?: QuickJSWasmModuleSource }
  | { type: 'run'; chunk: number; epoch: number; jobs: SandboxJob[] };

/** Worker -> host messages. */
export type SandboxReply =
  | { type: 'ready' }
  /** One outcome, sent only by a worker without a progress buffer. */
  | { type: 'outcome'; chunk: number; index: number; outcome: SandboxOutcome }
  /**
   * The end of a chunk. `outcomes` (with a progress buffer) holds the outcomes of the first
   * `outcomes.length` jobs; fewer than the chunk's jobs when the worker stopped early to be
   * recycled. Without a progress buffer, `evaluated` says how many outcomes were sent.
   */
  | { type: 'done'; chunk: number; recycle: boolean; outcomes?: SandboxOutcome[]; evaluated?: number }
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
  /** Most jobs sent to a worker per message. */
  chunkSize?: number;
  /** Share a progress buffer with the workers (default: when SharedArrayBuffer exists). */
  sharedProgress?: boolean;
  /**
   * The QuickJS wasm compiled once by the host and sent to every worker (a WebAssembly.Module
   * is shared, not copied): workers skip compiling it, and code the engine has optimised
   * serves the replacement of a killed worker too. Without it each worker compiles its own.
   */
  wasmModule?: () => Promise<QuickJSWasmModuleSource>;
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
  progress: Int32Array | null;
  busy: boolean;
  /** Job indices of the chunk in flight, in order; `done` of them have outcomes (per-outcome mode). */
  inFlight: number[];
  done: number;
  chunkId: number;
  /** Host Date.now() when the chunk was posted. */
  epoch: number;
  task: Task | null;
  timer: unknown;
  /** Host Date.now() when the job reported last (per-outcome mode) started. */
  started: number;
}

const WATCHDOG_CHECKS = 4;

export class SandboxPool {
  private readonly slots: Slot[];
  private readonly chunkSize: number;
  private readonly shared: boolean;
  private readonly tasks: Task[] = [];
  private nextChunk = 1;
  private closed = false;
  private readonly counters: SandboxPoolStats = { evaluations: 0, respawns: 0, infraErrors: 0, watchdogKills: 0 };

  constructor(private readonly options: SandboxPoolOptions) {
    if (!(options.size >= 1)) throw new Error('a sandbox pool needs at least one worker');
    this.chunkSize = options.chunkSize ?? 64;
    this.shared = options.sharedProgress ?? typeof SharedArrayBuffer === 'function';
    this.slots = Array.from({ length: options.size }, () => ({
      handle: null, ready: null, progress: null, busy: false, inFlight: [], done: 0, chunkId: 0, epoch: 0, task: null, timer: null, started: 0,
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
      clearTimeout(slot.timer as ReturnType<typeof setTimeout>);
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
    const progress = this.shared ? new SharedArrayBuffer(PROGRESS_SLOTS * 4) : undefined;
    slot.progress = progress ? new Int32Array(progress) : null;
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
    const init = (wasmModule?: QuickJSWasmModuleSource) => {
      if (slot.handle !== handle) return;
      handle.postMessage({ type: 'init', limits: this.options.limits, preludes: this.options.preludes ?? {}, ...(progress ? { progress } : {}), ...(wasmModule ? { wasmModule } : {}) });
    };
    if (this.options.wasmModule) this.options.wasmModule().then(init, () => init());
    else init();
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
      slot.epoch = Date.now();
      slot.started = slot.epoch;
      handle.postMessage({ type: 'run', chunk: chunkId, epoch: slot.epoch, jobs: indices.map((i) => task.jobs[i]) });
      this.armWatchdog(slot, this.options.limits.watchdogMs);
    });
  }

  private armWatchdog(slot: Slot, delay: number): void {
    clearTimeout(slot.timer as ReturnType<typeof setTimeout>);
    const chunkId = slot.chunkId;
    slot.timer = setTimeout(() => {
      if (slot.chunkId === chunkId && slot.busy) this.checkWatchdog(slot);
    }, Math.max(1, delay));
  }

  /** Which job of the chunk in flight is running (its index in the chunk), and since when (host Date.now()). */
  private running(slot: Slot): { index: number; since: number } {
    let index = slot.done;
    let since = slot.started;
    const progress = slot.progress;
    // Read the chunk first, then the index, then the time: the worker writes them in the
    // reverse order, so the time read is never older than the job whose index was read.
    if (progress && Atomics.load(progress, PROGRESS_CHUNK) === slot.chunkId) {
      const current = Atomics.load(progress, PROGRESS_INDEX);
      if (current >= index) {
        index = current;
        since = Math.max(since, slot.epoch + Atomics.load(progress, PROGRESS_STARTED));
      }
    }
    return { index, since };
  }

  private checkWatchdog(slot: Slot): void {
    const { watchdogMs } = this.options.limits;
    const { index, since } = this.running(slot);
    const ranFor = Date.now() - since;
    // Every job has finished and the reply is on its way.
    if (index >= slot.inFlight.length) {
      this.armWatchdog(slot, watchdogMs);
      return;
    }
    if (ranFor >= watchdogMs) {
      this.counters.watchdogKills += 1;
      this.abortChunk(slot, index, { kind: 'timeout', message: `terminated by the host watchdog after ${watchdogMs} ms`, elapsedMs: ranFor });
      return;
    }
    // The job running now started `ranFor` ago: look again a little after its time is up.
    this.armWatchdog(slot, Math.min(watchdogMs - ranFor + watchdogMs / WATCHDOG_CHECKS, watchdogMs));
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
    const task = slot.task;
    if (message.type === 'outcome') {
      slot.done = message.index + 1;
      slot.started = Date.now();
      this.settle(task, slot.inFlight[message.index], message.outcome);
      this.armWatchdog(slot, this.options.limits.watchdogMs);
      return;
    }
    // done
    clearTimeout(slot.timer as ReturnType<typeof setTimeout>);
    const outcomes = message.outcomes ?? [];
    outcomes.forEach((outcome, i) => this.settle(task, slot.inFlight[i], outcome));
    const evaluated = message.outcomes ? outcomes.length : (message.evaluated ?? slot.done);
    // A worker that stopped early (to be recycled) leaves the rest of its chunk to others.
    const rest = slot.inFlight.slice(evaluated).filter((i) => !task.outcomes[i]);
    if (rest.length > 0 && !this.closed) task.queue.unshift(...rest);
    slot.busy = false;
    slot.task = null;
    if (message.recycle) this.replace(slot);
    this.pump();
  }

  /** Ends the current chunk on `slot`: job `running` (index in the chunk) gets `outcome`, the rest go back to the queue. */
  private abortChunk(slot: Slot, running: number, outcome: SandboxOutcome): void {
    clearTimeout(slot.timer as ReturnType<typeof setTimeout>);
    const task = slot.task;
    if (task && slot.busy) {
      const job = slot.inFlight[running];
      if (job !== undefined) this.settle(task, job, outcome);
      const rest = slot.inFlight.filter((i) => i !== job && !task.outcomes[i]);
      task.queue.unshift(...rest);
    }
    slot.busy = false;
    slot.task = null;
    slot.chunkId = 0;
    this.replace(slot);
    this.pump();
  }

  private onDeath(slot: Slot, reason: string): void {
    this.abortChunk(slot, this.running(slot).index, { kind: 'infra_error', message: `sandbox worker died: ${reason}`.slice(0, 300), elapsedMs: 0 });
  }

  private replace(slot: Slot): void {
    slot.handle?.terminate();
    slot.handle = null;
    slot.ready = null;
    slot.progress = null;
    if (!this.closed) this.counters.respawns += 1;
  }
}
