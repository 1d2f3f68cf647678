/**
 * The trainer service's state (one per worker, made by `createServiceState`, so a test can make
 * fresh ones): the platform it runs on, its events, the datasets it parsed, the live run and
 * what its weights are, and the one queue every touch of the run goes through. The service's
 * files (events.ts, datasets.ts, runs.ts, control.ts, warmStart.ts, evaluation.ts,
 * checkpoints.ts, deviceRecovery.ts) each take this state.
 */
import type { FileProvenance, RunProvenance } from '../provenance';
import { codeOfThisBuild } from '../provenance';
import type { LabConfig } from '../../core/config';
import type { GeneratorHandle, GeneratorPool } from '../../core/generators';
import type { GradientShardFactory, GradientShards } from '../../core/gradientShards';
import type { Runner } from '../../core/runner';
import type { SandboxLimits } from '../../core/sandbox/outcome';
import type { SandboxPool } from '../../core/sandbox/pool';
import type { Prelude } from '../../core/sandbox/prelude';
import type { TaskDefinition, TaskEvaluation } from '../../core/task';
import type { SupervisedTrainer } from '../../core/algorithms/supervised';
import type { BackendInfo, PretrainOptions } from '../protocol';
import type { SavedRuns } from '../savedRuns';
import type { Events } from './events';

export interface TrainerPlatform {
  /** Starts the best tfjs backend, skipping those named in `skip` (one whose device was lost). */
  initBackend(skip?: string[]): Promise<BackendInfo>;
  /** Calls `handler` when the backend's GPU device is lost (WebGPU's device.lost, WebGL's context loss). */
  onDeviceLost?(handler: (reason: string) => void): void;
  createPool(options: { size: number; limits: SandboxLimits; preludes: Record<string, Prelude> }): SandboxPool;
  /** Marks bytes for transfer (Comlink.transfer in a worker). */
  transfer(bytes: Uint8Array): Uint8Array;
  /** Generator workers, one handle each (Web Workers in the page); in-process when absent. */
  createGenerators?(size: number): GeneratorHandle[];
  /**
   * Gradient shards for data-parallel updates (the warm start's, reinforce's, expert iteration's)
   * on the wasm backend: `count` workers beside this one, made by `start`; none when absent or 0.
   */
  gradientShards?: { start: GradientShardFactory; count: number };
}

/** A task's loaded items by role (files a user dropped, or the shipped ones). */
export interface TaskItems {
  train: unknown[];
  heldout: unknown[];
}

/** The live run: its config, runner, sandbox pool, generators and held-out items. */
export interface LiveRun {
  config: LabConfig;
  definition: TaskDefinition;
  runner: Runner;
  pool: SandboxPool | null;
  generators: GeneratorPool | null;
  /** Held-out items made with the run (a generated task's); a file task reads its loaded ones (`heldoutOf`). */
  heldout: unknown[];
  /** The weights it was made from at step 0 (a warm start, weights carried by Apply): what a lost GPU device brings it back to before its first checkpoint. */
  initFrom?: Uint8Array;
  /** The training items it was made with (its task's loaded set then). */
  trainItems?: unknown[];
  /** The training file the run was made with (its items are fixed then; a file loaded since is not the run's until a new run is made from it). */
  trainFile?: FileProvenance;
  /** Whether the task's warm start (one the page runs before RL) is done, or needs none. */
  warmStarted: boolean;
  /** Which gradient shards fit the run's model and grammar (`shardKey`, shards.ts), whether or not its algorithm uses them. */
  shardKey: string;
  /** Held-out evaluations after the warm start and after the last RL step (the digit recipe's before/after). */
  before?: TaskEvaluation;
  after?: TaskEvaluation;
  /**
   * The checkpoints handed out (Download) whose past the page's charts hold, by sha256, with their
   * steps: loading one back keeps the charts up to its step, any other checkpoint starts them over.
   */
  issued?: Map<string, number>;
}

/**
 * What the live run's weights are, as the status says it ("weights: pretrained checkpoint, step
 * 40000 + 12 RL steps"): where they came from, the RL step they came in at, whether they were
 * trained at all (fresh random weights are not worth keeping), and the reference they drift
 * from. A new configuration of the same model carries trained weights over.
 */
export interface Weights {
  origin: string;
  trained: boolean;
  /** The run's step when the weights came: RL steps since are counted on top of the origin. */
  atStep: number;
  reference?: Uint8Array;
  /** What the reference is, when it is a warm start (a shipped policy, pretrained weights): a new run can start from it again. */
  referenceOrigin?: string;
  /** Steps of the page's Pretrain in these weights, across Pretrains (a saved run records them). */
  pretrainSteps?: number;
}

/** The page's warm start in progress (warmStart.ts). */
export interface WarmStartRun {
  options: PretrainOptions;
  /** The trained weights it went on from (their origin, as the status says it), or null for fresh ones. */
  startedFrom: string | null;
  trainer: SupervisedTrainer;
  batch(size: number): { prompt: number[]; tokens: number[] }[];
  rate(step: number): number;
  heldoutPairs: { prompt: number[]; tokens: number[] }[];
  /** The task's warm start that precedes RL (digits): RL follows on the same run. */
  beforeTraining: boolean;
  /** Train continues with RL when it ends. */
  thenTrain: boolean;
  step: number;
  /** Pretraining steps the weights had when it began (an earlier Pretrain's): its own are counted on top. */
  priorSteps: number;
  wallMs: number;
  heldoutAccuracy?: number;
}

export interface ServiceState {
  readonly platform: TrainerPlatform;
  readonly events: Events;
  readonly savedRuns: SavedRuns;
  /** The backend tfjs runs on, and whether it has a GPU device to lose. */
  backendName: string;
  /** Set while the run recovers from a lost GPU device: the failing step is no error of its own. */
  recovering: boolean;
  /** Items per task, by the task's name. */
  readonly datasets: Map<string, TaskItems>;
  /** The files behind the data (per task and role) and behind the weights: the run's record (provenance.ts). */
  readonly files: { data: Map<string, Partial<Record<'train' | 'heldout', FileProvenance>>>; weights: FileProvenance | null };
  run: LiveRun | null;
  weights: Weights;
  /** Wall time of the live run: it runs while the run trains, and stands while it is paused, stopped or idle. */
  readonly wall: WallClock;
  /** Cancel of long work (an evaluation, a big file's parse), read where the work reports progress. */
  cancelRequested: boolean;
  /** The warm start in progress (also while paused). */
  warmStart: WarmStartRun | null;
  /** What Resume continues after a pause. */
  pausedFrom: 'training' | 'pretraining';
  /** The queue: a checkpoint is swapped in only between steps. */
  exclusive: Promise<unknown>;
  /**
   * The gradient shards started, by model and grammar (`shardKey`, shards.ts); a host resolves to
   * null when they did not start or failed. Those the live run does not use are ended once
   * another run is in place (or failed to be made), not before.
   */
  readonly shards: Map<string, Promise<GradientShards | null>>;
}

export const onGpu = (state: ServiceState) => state.backendName === 'webgpu' || state.backendName === 'webgl';

/** Runs `task` after everything queued before it: the one way anything touches the live run. */
export function serial<T>(state: ServiceState, task: () => Promise<T>): Promise<T> {
  const next = state.exclusive.then(task, task);
  state.exclusive = next.catch(() => undefined);
  return next;
}

export function requireRun(state: ServiceState): LiveRun {
  if (!state.run) throw new Error('no run is configured yet: load a dataset first');
  return state.run;
}

/** The items of a task (made empty on first use). */
export function itemsOf(state: ServiceState, task: string): TaskItems {
  let items = state.datasets.get(task);
  if (!items) state.datasets.set(task, (items = { train: [], heldout: [] }));
  return items;
}

/** The run's held-out items now: a file task's as last loaded (a held-out drop needs no new run), a generated task's its own. */
export function heldoutOf(state: ServiceState, run: LiveRun): unknown[] {
  return run.definition.data.kind === 'file' ? itemsOf(state, run.definition.name).heldout : run.heldout;
}

/** Milliseconds of the live run so far. */
export const wallNow = (state: ServiceState) => state.wall.now();

/**
 * A run's wall time, what its charts' time axis and its time budget read: it runs while the run
 * trains (or takes a single step) and stands still otherwise, so that a pause, an evaluation
 * while paused, or an idle page between two Train presses adds nothing.
 */
export class WallClock {
  private before = 0;
  private since: number | null = null;
  constructor(private readonly clock: () => number = () => performance.now()) {}
  now(): number {
    return this.before + (this.since === null ? 0 : this.clock() - this.since);
  }
  start(): void {
    this.since ??= this.clock();
  }
  stop(): void {
    if (this.since === null) return;
    this.before += this.clock() - this.since;
    this.since = null;
  }
  /** Stopped, at `ms` (a resumed run's time so far). */
  reset(ms = 0): void {
    this.before = ms;
    this.since = null;
  }
}

/** The live run's record: the code, the backend, the data files of its task and the weights file it came from. */
export function runProvenance(state: ServiceState): RunProvenance {
  const task = state.run?.config.task.name;
  const data = task ? state.files.data.get(task) : undefined;
  // Held-out items are read at each evaluation (the loaded ones); training items were fixed when the run was made.
  const files = [state.run?.trainFile, data?.heldout, state.files.weights].filter((file): file is FileProvenance => Boolean(file));
  return { code: codeOfThisBuild(), backend: state.backendName, files };
}
