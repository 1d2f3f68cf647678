/**
 * What a task is: its definition (`TaskDefinition`, one per task folder, listed in registry.ts)
 * and, for one run, the object the one training loop (loop.ts) drives (`Task`), the
 * nanochat/CleanRL shape.
 * A task knows its items, how an item becomes prompt tokens, the grammar its programs are
 * sampled under, how a batch of sampled programs is run in the sandbox and turned into outcomes
 * and rewards, and which metrics it reports. It never touches tensors or the DOM: the loop owns
 * the policy, the sampler and the algorithm, so an algorithm plugs in without touching a task.
 *
 * Search at evaluation (Kolmogorov's repair and split) is a task's own business and stays in
 * its folder; the loop only trains.
 */
import type { z } from 'zod';
import type { BaseConfig } from './configSections';
import type { Grammar, GrammarSpec } from './grammar';
import type { Episode, TokenPair } from './algorithm';
import type { PreferenceRecord } from './data/records';
import type { SampledSequence } from './model/sampler';
import type { PolicyConfig } from './model/transformer';
import type { ChartSpec, EvaluatedItem, SampleRecord, SearchSpec } from './runnerTypes';

export type { ChartSpec, EvaluatedItem, SearchSpec };
import type { SandboxPool } from './sandbox/pool';
import type { OutcomeKind } from './sandbox/outcome';
import type { Prelude } from './sandbox/prelude';
import type { TransformerPolicy } from './model/transformer';
import type { Rng } from './rng';

export type { GrammarSpec };

/** One sampled program as the task judged it. */
export interface Scored {
  /** The program's text as it ran ('' when sampling ran out of tokens before it was complete). */
  text: string;
  /** The sandbox's outcome; `incomplete` when there was no whole program to run. */
  outcome: OutcomeKind | 'incomplete';
  reward: number;
  /** Solved: the task's own notion (the sequence reproduced, every test passed). */
  correct: boolean;
  /** The program's length as the task measures it (Kolmogorov: prior bits), when the task does. */
  cost?: number;
}

/** What scoring may use: the sandbox pool and the seed of the guest's Math.random. */
export interface TaskContext {
  pool: SandboxPool;
  seed: number;
}

export interface Task<Item, S extends Scored = Scored> {
  /** The checkpoint's vocabulary tag: a checkpoint of another vocabulary is refused. */
  readonly vocab: { name: string; size: number };
  readonly grammar: Grammar<any>; // each task has its own grammar state
  /** The same grammar as a message can carry it, for generator workers (generators.ts). */
  readonly grammarSpec: GrammarSpec;
  /** Most tokens a program may take (default: the run's model.maxProgramTokens). */
  readonly maxTokens?: number;
  /** The token fed to finished rows while others are still sampling (default 0). */
  readonly padToken?: number;
  /** The policy's shape for this task: the run's model fields with the task's vocabulary. */
  policyConfig(config: BaseConfig): PolicyConfig;
  /** The items RL samples from, made from the loaded training set (filters, pieces). */
  trainingItems(items: readonly Item[]): Item[];
  /** A task whose items are generated (the digit tasks): `count` fresh items, instead of a pass over a dataset. */
  sampleItems?(rng: Rng, count: number): Item[];
  /** Prompt tokens of an item (the grammar may read them for the item's signature). */
  prompt(item: Item): number[];
  /** Runs each sampled program against its item (samples[i] was written for items[i]). */
  score(items: readonly Item[], samples: readonly SampledSequence[], context: TaskContext): Promise<S[]>;
  /**
   * The task's figures of one training step. Consecutive runs of `groupSize` samples share an
   * item (group sampling).
   */
  metrics(items: readonly Item[], scored: readonly S[], groupSize: number): Record<string, number>;
  /** A sampled program for the page's inspector. */
  sampleRecord(item: Item, scored: S): Omit<SampleRecord, 'step' | 'itemIndex' | 'outcome' | 'reward' | 'program'>;
  /**
   * A curriculum over `trainingItems` (ordered easiest first): the loop samples from the first
   * `start` items and widens the pool by `step` whenever a step's success rate reaches `widenAt`.
   */
  curriculum?(count: number): { start: number; widenAt: number; step: number };
  /**
   * A preference pair in the task's text form (the prompt as `npm run rollouts` writes it, two
   * programs as the sandbox runs them) in tokens; throws a reason naming the field when it is not
   * one. Tasks without a parser of their program text leave it out.
   */
  pairFromText?(pair: PreferenceRecord): TokenPair;
  /** Runner-up tokens the sampler should record per token (for demonstrations); 0 by default. */
  sampleAlternatives?(): number;
  /**
   * Extra episodes found by search around the batch (Kolmogorov's repair demonstrations). They
   * join the update off-policy, each in the group of the item it solves.
   */
  demonstrations?(
    items: readonly Item[],
    prompts: readonly number[][],
    samples: readonly SampledSequence[],
    scored: readonly S[],
    groupSize: number,
    context: TaskContext,
  ): Promise<Episode[]>;
}





/** A task's held-out evaluation of a policy, in terms every tool reads. */
export interface TaskEvaluation {
  n: number;
  /** The headline figure (higher is better): accuracy, or the share of problems solved. */
  score: number;
  /** Named figures (accuracy, compression_rate, pass_at_1, format_compliance, ...), as metric names. */
  metrics: Record<string, number>;
  items: EvaluatedItem[];
  /** The task's whole result, as `eval --json` and logs/eval_results.json write it. */
  json: Record<string, unknown>;
  /** One line for a log. */
  summary: string;
}

export interface EvaluationContext<C extends BaseConfig = BaseConfig> {
  policy: TransformerPolicy;
  config: C;
  pool: SandboxPool;
  /** Items done of the total, for a progress bar; it may throw to cancel. */
  onProgress?: (done: number, total: number) => void;
  /** Asked inside a long search (between its rounds): true ends it by throwing SearchStopped. */
  shouldStop?: () => boolean;
}

/** What a search throws when asked to stop (EvaluationContext.shouldStop): the caller keeps what it had. */
export class SearchStopped extends Error {
  constructor() {
    super('search stopped');
  }
}

/** A progress report that ends the work (SearchStopped) once `shouldStop` says so, then passes the progress on to `report`. */
export function stoppingProgress(shouldStop?: () => boolean, report?: (done: number, total: number) => void): (done: number, total: number) => void {
  return (done, total) => {
    if (shouldStop?.()) throw new SearchStopped();
    report?.(done, total);
  };
}

/** Where a task's items come from: files a user gives (parsed on any platform), or a generator. */
export type ItemSource<Item> =
  | {
      kind: 'file';
      /** What the items are called ("sequences", "problems"). */
      itemName: string;
      /** Whether the first bytes of a file (as text) look like this task's items. */
      sniff(head: string): boolean;
      /** How the file is read: JSONL one record a line (streamed), or the whole text at once. */
      format: 'jsonl' | 'text';
      /** One JSONL line's value as an item (throws a reason); with format 'jsonl'. */
      parseRecord?(value: unknown): Item;
      /** A whole file's items and per-item errors; with format 'text'. */
      parseText?(text: string): { items: Item[]; errors: { where: string; index: number; reason: string }[] };
      /** The shipped files, by role, relative to the repository (the page fetches them by these names). */
      shipped: { train: string; heldout: string };
      /** A short preview of an item for the page's dataset panel. */
      preview(item: Item): { label: string; detail: string };
      /** What makes two items the same item (a training item that is also a held-out one is never trained on); the whole record by default. */
      identity?(item: Item): string;
      /** Figures of a loaded set the charts draw beside the run's (Kolmogorov: gzip and LZMA rates). */
      references?(items: readonly Item[]): Record<string, number>;
    }
  | {
      kind: 'generated';
      itemName: string;
      /** The held-out items of a run (never trained on): generated from their own seed. */
      heldout(config: BaseConfig): Item[];
    };

/** A supervised warm start from the task's own generator (pretraining): batches of (prompt, program tokens). */
export interface WarmStart {
  /** The learning rate of the warm start (its own, where the task has one). */
  learningRate(config: BaseConfig): number;
  /** A source of batches; `exclude` are the held-out items, never trained on. */
  batches(config: BaseConfig, heldout: readonly unknown[]): (size: number) => { prompt: number[]; tokens: number[] }[];
  /** Held-out (prompt, program) pairs whose loss the page reports as the warm start goes (items that carry a reference program). */
  heldoutPairs?(config: BaseConfig, heldout: readonly unknown[]): { prompt: number[]; tokens: number[] }[];
  /** Whether the page runs it before RL on Train (the digit tasks: a fresh policy cannot answer at all). */
  beforeTraining?: boolean;
  /** Steps the page's warm start takes (beforeTraining tasks); otherwise the user chooses. */
  steps?(config: BaseConfig): number;
}

/**
 * A task, as generic code (the loop's callers, the worker, the page, the CLI, export) sees it:
 * one folder exports one of these, and registry.ts lists them. Generic code looks a task up by
 * name and imports no task folder.
 */
export interface TaskDefinition<C extends BaseConfig = any, Item = any> {
  readonly name: string;
  /** One line: what the policy writes, for help and the page. */
  readonly doc: string;
  /** Config fields only this task reads, by section (registry.ts assembles the schema). */
  readonly fields?: { task?: z.ZodRawShape; model?: z.ZodRawShape; algorithm?: z.ZodRawShape; section?: { name: string; shape: z.ZodRawShape } };
  /** Its values for shared fields where the lab's default would not suit it (the shipped model's shape, say). */
  readonly defaults?: Record<string, Record<string, unknown>>;
  /** Its values for one algorithm's fields, by algorithm name (digits: dqn's), over the algorithm's own defaults. */
  readonly algorithmDefaults?: Record<string, Record<string, Record<string, unknown>>>;
  /** The algorithm a run of this task gets unless one is given. */
  readonly defaultAlgorithm?: string;
  /** Whether its programs run in the sandbox (the sandbox section applies). */
  readonly sandboxed: boolean;
  /** The sandbox prelude its programs run with, registered under the task's name. */
  readonly prelude?: Prelude;
  /** The longest output its prelude reports (a harness's results of every test): the sandbox's output cap is at least this, whatever `sandbox.maxOutputLength` says. */
  readonly reportLength?: number;
  /** The most source its harness adds around a program (a harness's test inputs): the sandbox's source cap is `sandbox.maxSourceBytes` plus this. */
  readonly harnessSourceLength?: number;
  /** What makes a config unusable for this task beyond each field's range, or null. */
  check?(config: C): string | null;
  /** The longest prompt a run of `config` writes, in tokens, and what sets it (configProblem checks that a program fits after it in the context, and, for algorithms that mix batches, the longest program with it); absent where prompts are fitted to the context. */
  longestPrompt?(config: C): { tokens: number; because: string };
  policyConfig(config: C): PolicyConfig;
  /** The run's task: `heldout` are the held-out items, which training never samples. */
  createTask(config: C, heldout: readonly Item[]): Task<Item>;
  /** The grammar of this config's programs as a message carries it, and back. */
  grammarSpec(config: C): GrammarSpec;
  grammarFromSpec(spec: GrammarSpec): Grammar<unknown>;
  /** Each token's text, for export's vocab.json. */
  tokenText(token: number): string;
  readonly data: ItemSource<Item>;
  /** The searches an evaluation offers, cheapest first (the first is greedy). */
  readonly searches: readonly SearchSpec[];
  evaluate(context: EvaluationContext<C>, items: readonly Item[], options: { limit?: number; search: SearchSpec }): Promise<TaskEvaluation>;
  /** The charts of its training figures, in order (the algorithm's follow). */
  readonly charts: readonly ChartSpec[];
  /** What each figure of its held-out evaluations means, in a sentence (the page's table heads say it on hover). */
  readonly evaluationDocs?: Readonly<Record<string, string>>;
  readonly warmStart?: WarmStart;
  /** The shipped policy of this task (a checkpoint in public/, relative to the page), the page's warm start, and what the page calls it. */
  readonly shippedPolicy?: { file: string; name: string };
  /** Generator workers the page samples with (the digit tasks'), and whether they sample a batch ahead. */
  parallel?(config: C): { generators: number; overlap: boolean };
  /** The RL steps a run of it takes when the task says (the digit recipe's numSteps); else run.maxSteps. */
  stepLimit?(config: C): number;
  /** The learning rate of RL step `step` when the task schedules it (the digit recipe's cosine decay). */
  learningRate?(config: C, step: number): number | undefined;
}
