/**
 * What a training run reports and how it is driven, independent of where it runs (CLI,
 * trainer worker, tests). The runner itself lives in runner.ts; these types are the contract
 * that the CLI, the worker protocol and the UI store share.
 */
import type { OutcomeKind } from './sandbox/outcome';

/** One metric value at one step (DESIGN: metrics are events appended to a log). */
export interface MetricEvent {
  step: number;
  name: string;
  value: number;
  /** Milliseconds since the run started, for wall-time x axes. */
  wallMs: number;
}

/** A sampled program and what the sandbox made of it, for the sample inspector. */
export interface SampleRecord {
  step: number;
  /** Index of the target item in the dataset. */
  itemIndex: number;
  target: number[];
  program: string;
  output?: number[];
  outcome: OutcomeKind;
  reward: number;
  /** Prior bits of the program (only meaningful when it is correct). */
  bits: number;
  /** Solved, as the task judges it (every test passed); a Kolmogorov program is solved when its outcome is ok. */
  correct?: boolean;
  /** What the item is, for tasks whose target is not a sequence (a problem's name and docstring). */
  label?: string;
  /** How the program did beyond its outcome ("3/5 tests"). */
  detail?: string;
  /** Its reward minus the mean of its group (of the batch when groups are of one): TRL's unscaled advantage. */
  advantage?: number;
  /** The reward's parts when it has several (the task's and the reward model's). */
  rewardParts?: Record<string, number>;
}

/** What one training step produced; metrics holds the same figures as events. */
export interface StepResult {
  step: number;
  metrics: Record<string, number>;
  samples: SampleRecord[];
  /** True when the update was skipped (non-finite loss); the reason says why. */
  skipped: boolean;
  reason?: string;
  /** With parallel generators: each one's status, and the weights version of each sample. */
  generators?: GeneratorStatus[];
  versions?: number[];
}

/** KT metrics of a dataset (docs/kolmogorov-spec.md, names as specified). */
export interface KtMetrics {
  n: number;
  accuracy: number;
  accAtPrefix: Record<'16' | '32' | '64' | '128', number>;
  compressionRate: number;
  precision: number;
  gzipRate: number;
  lzmaRate: number;
}

export type RunPhase = 'idle' | 'loading' | 'pretraining' | 'training' | 'paused' | 'evaluating' | 'saving' | 'stopped' | 'error';

/** One generator worker's state, as the trainer sees it (generators.ts). */
export interface GeneratorStatus {
  id: number;
  /** Version the generator holds (its last sync acknowledgement). */
  version: number;
  /** Version that produced its last batch. */
  generatedWith: number;
  skippedSyncs: number;
  generated: number;
  /** Generations per second of its last batch, measured inside the generator. */
  generationsPerSecond: number;
}

/** One held-out item of an evaluation: what was asked, what the policy wrote, and what it gave. */
export interface EvaluatedItem {
  /** The item's place in the held-out set (0-based). */
  index: number;
  /** The target as the page shows it: a sequence, an answer, a problem's name. */
  target: string;
  /** What the program gave (an output, an answer), or null when nothing ran. */
  output: string | null;
  program: string;
  correct: boolean;
  /** How the program did beyond right or wrong (bits and search, tests passed, the question). */
  detail: string;
  /** The kept program in the policy's tokens, when it is one the policy could write (expert iteration learns from these). */
  tokens?: number[];
  /** Its length as the task measures it (Kolmogorov: prior bits): lower is better among correct programs. */
  cost?: number;
}

/** A held-out evaluation as the page lists it and a stored run keeps it: any task's figures under their names. */
export interface EvaluationRow {
  label: string;
  step: number;
  task: string;
  /** The search it ran (the task's name for it: greedy, best-of-8, ...), and its samples per item. */
  search: string;
  k: number;
  n: number;
  /** The task's headline figure (accuracy, solved share). */
  score: number;
  metrics: Record<string, number>;
  /** Each held-out item's kept program beside its target. */
  items?: EvaluatedItem[];
}

/** A chart the page draws of a metric a run reports (ui/components/Charts.tsx draws them). */
export interface ChartSpec {
  name: string;
  title: string;
  /** What the curve means, in a sentence under the chart. */
  caption: string;
  /** Draw the dataset's gzip and LZMA rates beside it. */
  references?: boolean;
  /** Shown only once the metric has points (figures some runs report). */
  optional?: boolean;
}

/** A search an evaluation can run: its name in the page and the CLI, and what the task does for it. */
export interface SearchSpec {
  name: string;
  /** Programs sampled per item (1: greedy). */
  k: number;
  /** The task's own options of this search (Kolmogorov: repair, split). */
  options?: Record<string, number | boolean | string>;
}
