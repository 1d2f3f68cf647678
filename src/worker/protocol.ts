/**
 * The one typed API of the trainer worker (Comlink's shape: `wrap<TrainerApi>`, every call
 * awaited, buffers transferred). The main thread only renders; everything else (tfjs, the
 * dataset parse, the training loop, checkpoints) happens behind this API.
 */
import type { LabConfig } from '../core/config';
import type { JsonlError } from '../core/data/jsonl';
import type { EvaluatedItem, EvaluationRow, MetricEvent, RunPhase, SampleRecord } from '../core/runnerTypes';
import type { RunRecord } from './runStore';

export type { EvaluatedItem, EvaluationRow };

export interface BackendInfo {
  backend: string;
  /** Why each faster backend was skipped. */
  skipped: string[];
  /** What runs differently from tfjs's defaults on this backend (our wasm kernels: core/model/wasmKernels.ts). */
  notes?: string[];
  /** Threads that compute an update that splits its batch: the trainer and its gradient workers (1 without them). */
  updateThreads?: number;
}

export interface DatasetSummary {
  name: string;
  role: 'train' | 'heldout';
  /** The task whose items the file holds (its definition sniffed them: sequences, problems). */
  task: string;
  /** What the items are called ("sequences", "problems"). */
  itemName: string;
  records: number;
  errorCount: number;
  errors: JsonlError[];
  /** The first items, as the task previews them. */
  preview: { label: string; detail: string }[];
  lines: number;
  bytes: number;
  summary: string;
  /** Figures the charts draw beside the run's (Kolmogorov: gzipRate and lzmaRate of the set). */
  references?: Record<string, number>;
}

/** The message of the error with which cancelled work (an evaluation, a parse) ends: the page says nothing more of it. */
export const CANCELLED = 'cancelled';

/** Events the worker pushes to the page (batched, at most a few per second). */
export type TrainerEvent =
  | { type: 'phase'; phase: RunPhase; message: string }
  /** `pretraining`: a warm start's figures, counted in its own steps (a stored run keeps RL's only). */
  | { type: 'metrics'; events: MetricEvent[]; pretraining?: true }
  | { type: 'samples'; samples: SampleRecord[] }
  | { type: 'progress'; task: string; done: number; total: number }
  | { type: 'evaluation'; row: EvaluationRow }
  | { type: 'step'; step: number; stepsPerSecond: number }
  | { type: 'error'; message: string }
  /** What the run's weights are (where from, trained at all, the RL step they came in at): sent whenever that changes. */
  | { type: 'weights'; origin: string; trained: boolean; atStep: number }
  /**
   * The runs kept in this browser (savedRuns.ts), after every save and change: `current` is the
   * one the live run saves to, `saving` the step of a save under way; `interrupted` (sent once)
   * the run a reload or a crash interrupted; `note` why runs are not kept.
   */
  | { type: 'runs'; runs: RunRecord[]; storage: { usage: number; quota: number } | null; current: string | null; saving: number | null; interrupted?: RunRecord | null; note?: string }
  /** The run went back to its checkpoint at `step` (a lost GPU device): metric events after it are void. */
  | { type: 'rollback'; step: number }
  /** A new run took the live one's place: the page's charts, samples and best programs start over (in order with the new run's events). */
  | { type: 'newRun' };

/**
 * Where a new run's weights come from: the live run's when the model is the same (`carry`, the
 * default), the warm start the live run started from (`warm`: the same start for a comparison),
 * or fresh random ones (`fresh`).
 */
export type RunStart = 'carry' | 'warm' | 'fresh';

/** A stored run brought back into the worker, with what the page draws of it. */
export interface ResumedRun {
  run: RunRecord;
  step: number;
  config: LabConfig;
  events: MetricEvent[];
  evaluations: EvaluationRow[];
  samples: SampleRecord[];
}

export interface InitOptions {
  /** Whether the live run is saved in the browser as it trains (the page's switch; on unless turned off). */
  autosave?: boolean;
  /** Keeps each save's transaction open this long (the e2e test that closes the page mid-save). */
  saveHoldOpenMs?: number;
}

/** The page's supervised warm start (as `npm run pretrain` does, in the worker). */
export interface PretrainOptions {
  /** Supervised updates of batchSize (sequence -> program) pairs from the task's generator. */
  steps: number;
  /** Held-out loss and greedy held-out accuracy every N steps, and after the last one. */
  evalEvery: number;
  /** Held-out sequences of the periodic greedy accuracy. */
  evalLimit: number;
}

export interface TrainerApi {
  /** Starts tfjs (webgpu, webgl, wasm, cpu: the first that works, wasm before a software WebGPU adapter). */
  init(onEvent: (events: TrainerEvent[]) => void, options?: InitOptions): Promise<BackendInfo>;
  /** Parses a JSONL file (streaming, in the worker) as the training or held-out set. */
  loadDataset(role: 'train' | 'heldout', name: string, file: Blob): Promise<DatasetSummary>;
  /** The live run's training items (and file record) become its task's loaded set again: a training file the new run refused is not kept for the next Apply to refuse again. */
  keepRunTraining(): Promise<void>;
  /**
   * (Re)creates the runner with this config, made aside and swapped in only when it worked (an
   * invalid config is refused and the live run stays). Trained weights of the same model carry
   * over (RL restarts at step 0 from them, against the same KL reference); another model or task
   * starts from fresh weights, which `weightsResetBy` tells beforehand.
   */
  configure(config: LabConfig, options?: { start?: RunStart }): Promise<{ weightsKept: boolean }>;
  /** Why applying `config` would replace trained weights ("... would be replaced"; the page says by what), or null when it would not. */
  weightsResetBy(config: LabConfig): Promise<string | null>;
  train(): Promise<void>;
  /**
   * Starts the supervised warm start on the runner's policy (phase 'pretraining'); Pause, Resume
   * and Stop act on it. When it ends (or is stopped) the run restarts at step 0 from the
   * pretrained weights, which are also the KL reference, so Train continues with RL from them.
   */
  pretrain(options: PretrainOptions): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops training; stopping pretraining keeps the weights so far and hands them to RL. */
  stop(): Promise<void>;
  step(): Promise<void>;
  /** Held-out evaluation with one of the task's searches (its definition's `searches`, by name). */
  evaluate(options: { limit: number; search: string }): Promise<EvaluationRow>;
  /** Ends an evaluation or a dataset parse in flight at its next progress report; it then fails with the message `cancelled`. */
  cancel(): Promise<void>;
  /** The current checkpoint's bytes (transferred); while training, the phase and the status line stay as they are. */
  getCheckpoint(): Promise<Uint8Array>;
  /** The current checkpoint as the zip of `npm run export`'s folder (safetensors, config, vocab, modeling_prl.py), made here, off the page's thread; with the step it holds. */
  getPytorchZip(): Promise<{ bytes: Uint8Array; step: number }>;
  /**
   * Validates and loads a checkpoint between steps (also while training, which goes on from it), with the configuration inside it (the run is
   * rebuilt when it differs); returns the run's step and the checkpoint's. Throws a readable error for a bad file.
   * `source` names it in the status ("loaded <source>, step N"). By default the run resumes at
   * the checkpoint's step; `warmStart` starts it at step 0 from the weights only, which also
   * become the KL reference (as `train --init-from`): how a shipped warm start is meant to run.
   */
  loadCheckpoint(bytes: Uint8Array, options?: { source?: string; warmStart?: boolean }): Promise<{ step: number; checkpointStep: number; config: LabConfig; sameRun: boolean }>;

  /** Turns saving the live run in the browser on or off (on: it saves at once when it has steps). */
  setAutosave(on: boolean): Promise<void>;
  /** Opens the run store and sends the run list (a 'runs' event). */
  listRuns(): Promise<void>;
  /**
   * Brings a stored run back between steps: its checkpoint (weights, optimizer, RNG, data cursor)
   * and KL reference; the live run then saves on into it. Refused while training, and when
   * another tab holds the run.
   */
  resumeRun(id: string): Promise<ResumedRun>;
  renameRun(id: string, name: string): Promise<void>;
  deleteRun(id: string): Promise<void>;
  /** A stored run as one JSON file (config, metrics, evaluation rows, checkpoint in base64), transferred. */
  exportRun(id: string): Promise<Uint8Array>;
  /** Stores a downloaded run file as a new, stopped run (read in the worker); a file that is no run file, or a damaged checkpoint in it, is refused with why. */
  importRun(file: Blob, name: string): Promise<RunRecord>;
  /** A stored run's metric events, to draw beside the live run. */
  runEvents(id: string): Promise<{ run: RunRecord; events: MetricEvent[] }>;
}
