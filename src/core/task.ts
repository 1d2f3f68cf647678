/**
 * What a task is to the one training loop (loop.ts): the nanochat/CleanRL shape (CONVENTIONS 3).
 * A task knows its items, how an item becomes prompt tokens, the grammar its programs are
 * sampled under, how a batch of sampled programs is run in the sandbox and turned into outcomes
 * and rewards, and which metrics it reports. It never touches tensors or the DOM: the loop owns
 * the policy, the sampler and the algorithm, so an algorithm plugs in without touching a task.
 *
 * Search at evaluation (Kolmogorov's repair and split) is a task's own business and stays in
 * its folder; the loop only trains.
 */
import type { LabConfig } from './config';
import type { Grammar } from './grammar';
import type { Episode } from './algorithms/reinforce';
import type { TokenPair } from './algorithms/dpo';
import type { PreferenceRecord } from './data/records';
import type { SampledSequence } from './model/sampler';
import type { PolicyConfig } from './model/transformer';
import type { SampleRecord } from './runnerTypes';
import type { SandboxPool } from './sandbox/pool';
import type { OutcomeKind } from './sandbox/outcome';
import type { GrammarSpec } from './generators';
import type { Rng } from './rng';

/** One sampled program as the task judged it. */
export interface Scored {
  /** The program's text as it ran ('' when sampling ran out of tokens before it was complete). */
  text: string;
  /** The sandbox's outcome; `incomplete` when there was no whole program to run. */
  outcome: OutcomeKind | 'incomplete';
  reward: number;
  /** Solved: the task's own notion (the sequence reproduced, every test passed). */
  correct: boolean;
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
  policyConfig(config: LabConfig): PolicyConfig;
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
