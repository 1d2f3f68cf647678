/**
 * What an algorithm is: its definition (`AlgorithmDefinition`, one per file in algorithms/,
 * listed in registry.ts) and, for one run, the object the one training loop (loop.ts) updates the
 * policy with (`PolicyAlgorithm`). The loop gives an algorithm episodes (prompt, program tokens,
 * line ends, reward, group, the sampler's log-probabilities) and reads back a `PolicyUpdate`: the
 * whole contract a new algorithm has to meet.
 */
import type { z } from 'zod';
import type { BaseConfig } from './configSections';
import type { GradientShard } from './gradientShards';
import type { Grammar } from './grammar';
import type { Adam } from './model/adam';
import type { TransformerPolicy, WeightArray } from './model/transformer';
import type { ChartSpec, SearchSpec } from './runnerTypes';

/** One sampled (or demonstrated) program as an update sees it. */
export interface Episode {
  prompt: number[];
  tokens: number[];
  /** Indices into tokens of the tokens that end a line. */
  lineEnds: number[];
  reward: number;
  /** Episodes of one group share a prompt (group sampling). */
  group?: number;
  /** Whether the task judged the program correct (DPO's chosen program must be). */
  correct?: boolean;
  /** Per-token log-probabilities under the weights that sampled `tokens` (importance weights of stale samples). */
  behaviourLogProbs?: readonly number[];
  /** The program's length as the task measures it (Kolmogorov: prior bits), when the task does. */
  cost?: number;
  /** Found by the task's search rather than sampled (no sampling probability). */
  searched?: boolean;
}

/** A preference pair in tokens: a prompt, the chosen program and the rejected one. */
export interface TokenPair {
  prompt: readonly number[];
  chosen: readonly number[];
  rejected: readonly number[];
}

/** An update's statistics: its loss and gradient norm, and the figures it reports under their own names. */
export interface PolicyUpdate {
  loss: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  /**
   * A skip by design, not a fault (DQN between its training steps or while its buffer fills, DPO
   * on a batch with no preference pair): the loop says it once, not at every step.
   */
  expected?: boolean;
  /** What the algorithm reports beyond the loss (entropy, kl, clip_ratio, rewards/margins, ...), charted as named. */
  metrics: Record<string, number>;
}

/** How the loop samples for an algorithm that does not sample from the policy's softmax (dqn: epsilon-greedy). */
export interface Sampling {
  greedy: boolean;
  epsilon?: number;
}

/** What the loop needs of an algorithm. */
export interface PolicyAlgorithm {
  update(episodes: readonly Episode[]): Promise<PolicyUpdate>;
  /** An update on given preference pairs (dpo with a pair file). */
  updatePairs?(pairs: readonly TokenPair[]): Promise<PolicyUpdate>;
  /** How the next batch is sampled, when not from the policy's softmax at the run's temperature. */
  sampling?(): Sampling | undefined;
  /**
   * The task's search (one of its evaluation searches) the loop runs on the items none of the
   * batch's samples solved, its solutions joining the episodes (expert iteration); null for none.
   */
  search?(): SearchSpec | null;
  /** Training items the loop evaluates greedily at every step, a fixed slice (the policy alone's progress); 0 for none. */
  probe?(): number;
  /** The policy's weights were set from outside (a warm start): what the algorithm keeps of the start follows them (DQN's target network). */
  rebase?(): void;
  readonly optimizer: Adam;
  readonly baseline: number | undefined;
  setBaseline(value: number): void;
  optimizerWeights(): WeightArray[];
  setOptimizerWeights(state: readonly WeightArray[]): void;
  /** State beyond tensors that a resume must get back (counters, stores), as JSON; restored by `restore`. */
  state?(): unknown;
  restore?(state: unknown): void;
  dispose(): void;
}

/** What an algorithm is built from for a run. */
export interface AlgorithmContext<C extends BaseConfig = BaseConfig> {
  config: C;
  policy: TransformerPolicy;
  grammar: Grammar<unknown>;
  /** The frozen reference (the warm start) when `needsReference` says so. */
  reference?: TransformerPolicy;
  maxTokens: number;
  /** Lines for the user (what the algorithm is doing that a figure does not say). */
  log?: (text: string) => void;
  /** Gradient shards (gradientShards.ts) an update may split its batch with: other cores' threads. */
  gradientShards?: readonly GradientShard[];
  /** Batches of the task's warm-start pairs (its own generator, never a held-out item), made on first use; absent when the task has none. */
  warmStartPairs?: () => (size: number) => { prompt: number[]; tokens: number[] }[];
}

/**
 * An algorithm, as generic code sees it: one file exports one of these, and registry.ts lists
 * them. Its fields join the config's algorithm section; they apply (are shown, carried in links)
 * only when it runs, as do the shared options it `reads`.
 */
export interface AlgorithmDefinition<C extends BaseConfig = any> {
  readonly name: string;
  /** One line: what the update does. */
  readonly doc: string;
  /** Its own fields of the algorithm section, with their defaults. */
  readonly fields?: z.ZodRawShape;
  /** The shared options (configSections.ts algorithmSharedFields) it reads. */
  readonly reads?: readonly string[];
  /** Its values for shared fields (TRL's and CleanRL's defaults where they have them), by section. */
  readonly defaults?: Record<string, Record<string, unknown>>;
  /** Whether its update splits into micro-batches (algorithm.gradientAccumulationSteps). */
  readonly accumulates: boolean;
  /** Whether its updates split their batch with gradient shards (AlgorithmContext.gradientShards) when given some. */
  readonly dataParallel?: boolean;
  /**
   * Whether an update's batch joins prompts and programs of different steps or files (a replay
   * buffer, a store, a pair file): a long prompt of one and a long program of another must then fit
   * the context together, which sampling alone never asks (it fits each program to its own batch).
   */
  readonly mixesBatches?: boolean;
  /** Whether it samples on the trainer's thread (the generator workers stay idle). */
  readonly samplesOnTrainer?: boolean;
  /** Programs sampled per prompt when the algorithm sets it (expert iteration's numSamples); else algorithm.groupSize. */
  groupSize?(config: C): number;
  /** Steps a run takes when the algorithm says (expert iteration's rounds); else run.maxSteps. */
  stepLimit?(config: C): number;
  /** The charts of what it reports (beyond the loss), in order. */
  readonly charts?: readonly ChartSpec[];
  /** Whether a run of `config` needs a frozen reference policy (a KL term, DPO's implicit reward). */
  needsReference(config: C): boolean;
  /** What makes a config unusable with it beyond each field's range, or null. */
  check?(config: C): string | null;
  create(context: AlgorithmContext<C>): PolicyAlgorithm;
}

/** An algorithm class with the usual optimizer plumbing, and its own statistics of a step. */
interface AlgorithmClass<S> {
  step(episodes: readonly Episode[]): Promise<S>;
  readonly optimizer: Adam;
  readonly baseline: number | undefined;
  setBaseline(value: number): void;
  optimizerWeights(): WeightArray[];
  setOptimizerWeights(state: readonly WeightArray[]): void;
  dispose(): void;
}

/** A class's instance as the loop sees it, its statistics mapped to a PolicyUpdate by its own file. */
export function asPolicyAlgorithm<S>(algorithm: AlgorithmClass<S>, toUpdate: (stats: S) => PolicyUpdate): PolicyAlgorithm {
  return {
    optimizer: algorithm.optimizer,
    get baseline() {
      return algorithm.baseline;
    },
    setBaseline: (value) => algorithm.setBaseline(value),
    optimizerWeights: () => algorithm.optimizerWeights(),
    setOptimizerWeights: (state) => algorithm.setOptimizerWeights(state),
    dispose: () => algorithm.dispose(),
    update: async (episodes) => toUpdate(await algorithm.step(episodes)),
  };
}

/** The KL chart, for each algorithm that reports a KL to its reference. */
export const klChart: ChartSpec = {
  name: 'kl', title: 'KL to the reference', optional: true,
  caption: 'How far the policy has moved from the warm start it started from (reinforce\'s KL, grpo\'s k3 estimate, rloo\'s summed per program).',
};
