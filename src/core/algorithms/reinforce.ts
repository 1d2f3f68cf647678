/**
 * REINFORCE for program synthesis, as the KoLMogorov RL seed describes it, done right: a
 * batch of episodes per update, the reward arriving when the program is complete, returns
 * discounted over program lines (line-level credit assignment), a baseline (an exponential
 * moving average of the batch reward, or the group mean when several programs are sampled per
 * sequence), optional normalisation, an entropy bonus, an optional KL penalty to a frozen
 * reference (warm-start) policy, Adam with global-norm clipping, and a host-side check that
 * the loss is finite before any weight changes.
 *
 * Returns: a program of L lines (the output line included) earns reward R at its end; the
 * tokens of line l get gamma^(L-1-l) * R. Log-probabilities are those of the grammar-masked,
 * temperature-scaled distribution the sampler drew from.
 */
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import { asPolicyAlgorithm, type AlgorithmDefinition, type Episode } from '../algorithm';

export type { Episode };
import type { AlgorithmCommonConfig, BaseConfig, Infer } from '../configSections';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { applyShardedStep, balancedParts, ShardError, shardFailureNote, type GradientShard, type ShardLoss, type SummedGradients } from '../gradientShards';
import { accumulatedStep, buildSequenceBatch, disposeBatch, microBatches, programLogProbs, takenLogProbs, type SequenceBatch, type SequencePair, type UpdateStats } from '../model/training';
import type { TransformerPolicy, WeightArray } from '../model/transformer';

/** reinforce's own fields; it also reads the shared gamma and baselineMomentum. */
export const reinforceFields = {
  normalizeReturns: z.boolean().default(true).describe('Normalise returns to zero mean and unit variance per batch.'),
  entropyCoef: z.number().min(0).default(0.001).describe('Weight of the entropy bonus.'),
  klCoef: z.number().min(0).default(0).describe('Weight of the KL penalty to the reference (warm-start) policy.'),
};

export type ReinforceConfig = Pick<
  AlgorithmCommonConfig & Infer<typeof reinforceFields>,
  'learningRate' | 'gamma' | 'normalizeReturns' | 'baselineMomentum' | 'entropyCoef' | 'klCoef' | 'groupSize' | 'temperature' | 'gradClip' | 'gradientAccumulationSteps'
>;

export const defaultReinforceConfig: ReinforceConfig = {
  learningRate: 3e-4, gamma: 0.99, normalizeReturns: true, baselineMomentum: 0.9, entropyCoef: 0.001, klCoef: 0, groupSize: 1, temperature: 1, gradClip: 1, gradientAccumulationSteps: 1,
};


export interface ReinforceStats {
  loss: number;
  entropy: number;
  kl: number;
  gradNorm: number;
  meanAdvantage: number;
  /** Threads that computed the update's gradients: 1 + the gradient shards it was split with. */
  threads: number;
  skipped: boolean;
  reason?: string;
}

/** The discount of each token: gamma to the number of lines after the token's line. */
export function lineDiscounts(episode: Pick<Episode, 'tokens' | 'lineEnds'>, gamma: number): number[] {
  const lines = Math.max(1, episode.lineEnds.length);
  const out: number[] = [];
  let line = 0;
  episode.tokens.forEach((_, i) => {
    out.push(gamma ** Math.max(0, lines - 1 - line));
    if (episode.lineEnds.includes(i)) line += 1;
  });
  return out;
}

export function discountedLineReturns(episode: Episode, gamma: number): number[] {
  return lineDiscounts(episode, gamma).map((discount) => discount * episode.reward);
}

/** Per-token advantages of a batch: discounted return minus the baseline, optionally normalised. */
export function advantages(episodes: readonly Episode[], config: ReinforceConfig, baseline: number): number[][] {
  const groupMeans = new Map<number, number>();
  if (config.groupSize > 1) {
    const sums = new Map<number, [number, number]>();
    for (const e of episodes) {
      const [sum, count] = sums.get(e.group ?? 0) ?? [0, 0];
      sums.set(e.group ?? 0, [sum + e.reward, count + 1]);
    }
    for (const [group, [sum, count]] of sums) groupMeans.set(group, sum / count);
  }
  const raw = episodes.map((episode) => {
    const base = config.groupSize > 1 ? groupMeans.get(episode.group ?? 0)! : baseline;
    return lineDiscounts(episode, config.gamma).map((discount) => discount * (episode.reward - base));
  });
  if (!config.normalizeReturns) return raw;
  const flat = raw.flat();
  const mean = flat.reduce((a, b) => a + b, 0) / Math.max(1, flat.length);
  const std = Math.sqrt(flat.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, flat.length));
  // With (nearly) identical advantages there is no signal to normalise: keep them as they are.
  if (std < 1e-6) return raw;
  return raw.map((row) => row.map((a) => (a - mean) / std));
}

/** Per-token advantages as a [rows, programLength] tensor, zero past each program's end. */
function advantageTensor(rows: readonly (readonly number[])[], programLength: number): tf.Tensor2D {
  const data = new Float32Array(rows.length * programLength);
  rows.forEach((row, b) => data.set(row, b * programLength));
  return tf.tensor2d(data, [rows.length, programLength]);
}

/**
 * REINFORCE's terms on a batch, each summed over its program tokens: minus the taken
 * log-probabilities times the advantages, the entropy, and the KL to the reference's
 * log-probabilities (0 without them). The one-thread update divides them by the token count;
 * a gradient shard returns them summed.
 */
function summedTerms(policy: TransformerPolicy, batch: SequenceBatch, advantage: tf.Tensor, referenceLogProbs: tf.Tensor | null, temperature: number): { policy: tf.Scalar; entropy: tf.Scalar; kl: tf.Scalar } {
  const logProbs = programLogProbs(policy, batch, temperature); // [B, P, V]
  const taken = takenLogProbs(logProbs, batch); // [B, P]
  const probs = tf.exp(logProbs);
  return {
    policy: taken.mul(advantage).mul(batch.tokenMask).sum().neg() as tf.Scalar,
    entropy: probs.mul(logProbs).sum(2).neg().mul(batch.tokenMask).sum() as tf.Scalar,
    kl: (referenceLogProbs ? probs.mul(logProbs.sub(referenceLogProbs)).sum(2).mul(batch.tokenMask).sum() : tf.scalar(0)) as tf.Scalar,
  };
}

/**
 * REINFORCE's loss on `pairs` summed over their program tokens (not averaged), with the entropy
 * bonus and the KL to `reference` when given, and its gradients: the unit of data-parallel work
 * (gradientShards.ts), whose parts add up to the whole batch's.
 */
export function summedReinforceGradients(
  policy: TransformerPolicy,
  grammar: Grammar<unknown>,
  pairs: readonly SequencePair[],
  { temperature, entropyCoef, klCoef, advantages: perToken }: Omit<Extract<ShardLoss, { kind: 'reinforce' }>, 'kind'>,
  reference?: TransformerPolicy,
): SummedGradients {
  const batch = buildSequenceBatch(pairs, grammar, policy.config.context);
  const advantage = advantageTensor(perToken, batch.programLength);
  let referenceLogProbs: tf.Tensor | null = null;
  try {
    if (reference && klCoef > 0) referenceLogProbs = tf.tidy(() => programLogProbs(reference, batch, temperature));
    let entropy: tf.Scalar | null = null;
    let kl: tf.Scalar | null = null;
    const { value, grads } = tf.variableGrads(() => {
      const terms = summedTerms(policy, batch, advantage, referenceLogProbs, temperature);
      entropy = tf.keep(terms.entropy);
      kl = tf.keep(terms.kl);
      return terms.policy.sub(terms.entropy.mul(entropyCoef)).add(terms.kl.mul(klCoef)) as tf.Scalar;
    }, policy.variables);
    const sums = { loss: value.dataSync()[0], entropy: entropy!.dataSync()[0], kl: kl!.dataSync()[0] };
    tf.dispose([value, entropy!, kl!]);
    return { sums, tokens: batch.tokenCount, grads: policy.variables.map((v) => grads[v.name]) };
  } finally {
    tf.dispose([advantage, ...(referenceLogProbs ? [referenceLogProbs] : [])]);
    disposeBatch(batch);
  }
}

export class Reinforce<S = unknown> {
  readonly optimizer: Adam;
  /** EMA of the mean batch reward. */
  private ema = 0;
  private seen = false;

  /** The baseline a checkpoint keeps: undefined until a first update set it (a resume then takes its first batch's mean, as a fresh run does). */
  get baseline(): number | undefined {
    return this.seen ? this.ema : undefined;
  }

  /**
   * With shards, an update splits its batch between this thread and them (data parallelism); a
   * shard that fails is dropped, the update redone here, and `log` told.
   */
  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: ReinforceConfig,
    private readonly reference?: TransformerPolicy,
    private shards: readonly GradientShard[] = [],
    private readonly log?: (text: string) => void,
  ) {
    this.optimizer = new Adam(policy.variables, { learningRate: config.learningRate });
  }

  async step(episodes: readonly Episode[]): Promise<ReinforceStats> {
    const usable = episodes.filter((e) => e.tokens.length > 0);
    const meanReward = usable.reduce((sum, e) => sum + e.reward, 0) / Math.max(1, usable.length);
    if (!Number.isFinite(meanReward)) {
      return { loss: NaN, entropy: NaN, kl: NaN, gradNorm: NaN, meanAdvantage: NaN, threads: 1, skipped: true, reason: 'non-finite reward; update skipped' };
    }
    if (usable.length === 0) return { loss: 0, entropy: 0, kl: 0, gradNorm: 0, meanAdvantage: 0, threads: 1, skipped: true, reason: 'no tokens sampled' };
    const baseline = this.seen ? this.ema : meanReward;
    const adv = advantages(usable, this.config, baseline);
    const sharded = await this.sharded(usable, adv);
    const result = sharded ?? (await this.accumulated(usable, adv));
    if (!result.skipped) {
      this.ema = this.seen ? this.config.baselineMomentum * this.ema + (1 - this.config.baselineMomentum) * meanReward : meanReward;
      this.seen = true;
    }
    const flat = adv.flat();
    return {
      loss: result.values.loss,
      entropy: result.values.entropy ?? NaN,
      kl: result.values.kl ?? 0,
      gradNorm: result.gradNorm,
      meanAdvantage: flat.reduce((a, b) => a + b, 0) / Math.max(1, flat.length),
      threads: sharded ? sharded.threads : 1,
      skipped: result.skipped,
      reason: result.reason,
    };
  }

  /** The update split with the shards, or null when it is not (none, too small a batch, micro-batches asked for, or a shard failed). */
  private async sharded(usable: readonly Episode[], adv: number[][]): Promise<(UpdateStats & { threads: number }) | null> {
    const { temperature, entropyCoef } = this.config;
    // Micro-batches (gradientAccumulationSteps) bound an update's memory: such an update stays on this thread.
    if (this.shards.length === 0 || usable.length <= this.shards.length || this.config.gradientAccumulationSteps > 1) return null;
    // The KL's reference goes along with each request (the shards keep no run's state).
    const reference = this.reference && this.config.klCoef > 0 ? this.reference : undefined;
    const klCoef = reference ? this.config.klCoef : 0;
    // Any split adds up to the whole (the loss is a sum over episodes, each with its own advantages).
    const [mine, ...theirs] = balancedParts(usable, this.shards.length);
    const loss = (part: number[]) => ({ kind: 'reinforce' as const, temperature, entropyCoef, klCoef, advantages: part.map((i) => adv[i]) });
    const weights = this.policy.getWeights();
    const referenceWeights = reference?.getWeights();
    const remote = theirs.map((part, i) => this.shards[i].compute(weights, part.map((j) => usable[j]), loss(part), referenceWeights));
    try {
      const local = () => summedReinforceGradients(this.policy, this.grammar as Grammar<unknown>, mine.map((j) => usable[j]), loss(mine), reference);
      const { sums, applied } = await applyShardedStep(this.optimizer, remote, local, this.config.gradClip);
      return { values: { loss: sums.loss, entropy: sums.entropy, kl: sums.kl }, ...applied, threads: 1 + remote.length };
    } catch (error) {
      if (!(error instanceof ShardError)) throw error;
      this.shards = [];
      this.log?.(shardFailureNote(error.message));
      return null;
    }
  }

  /** The update on this thread, in micro-batches when gradientAccumulationSteps asks. */
  private async accumulated(usable: readonly Episode[], adv: number[][]): Promise<UpdateStats> {
    const { temperature, entropyCoef, klCoef } = this.config;
    // Gradient accumulation: whole groups per micro-batch, each weighted by its share of the tokens
    // (the loss is a mean over tokens), so the step equals the whole batch's.
    const parts = microBatches(usable.map((episode, i) => ({ episode, advantages: adv[i], group: episode.group })), this.config.gradientAccumulationSteps).map((part) => {
      const batch = buildSequenceBatch(part.map((p) => p.episode), this.grammar, this.policy.config.context);
      const advantage = advantageTensor(part.map((p) => p.advantages), batch.programLength);
      const referenceLogProbs = this.reference && klCoef > 0 ? tf.tidy(() => programLogProbs(this.reference!, batch, temperature)) : null;
      return { batch, advantage, referenceLogProbs };
    });
    const totalTokens = parts.reduce((sum, part) => sum + part.batch.tokenCount, 0);
    try {
      return await accumulatedStep(
        this.optimizer,
        this.policy.variables,
        parts.map(({ batch, advantage, referenceLogProbs }) => ({
          weight: batch.tokenCount / totalTokens,
          lossFn: () => {
            const terms = summedTerms(this.policy, batch, advantage, referenceLogProbs, temperature);
            const count = batch.tokenCount;
            const entropy = terms.entropy.div(count) as tf.Scalar;
            const kl = terms.kl.div(count) as tf.Scalar;
            const loss = terms.policy.div(count).sub(entropy.mul(entropyCoef)).add(kl.mul(klCoef)) as tf.Scalar;
            return { loss, entropy, kl };
          },
        })),
        this.config.gradClip,
      );
    } finally {
      for (const { batch, advantage, referenceLogProbs } of parts) {
        tf.dispose([advantage, ...(referenceLogProbs ? [referenceLogProbs] : [])]);
        disposeBatch(batch);
      }
    }
  }

  optimizerWeights(): WeightArray[] {
    return this.optimizer.getState(this.policy.weightNames());
  }

  setOptimizerWeights(state: readonly WeightArray[]): void {
    this.optimizer.setState(state, this.policy.weightNames());
  }

  setBaseline(value: number): void {
    this.ema = value;
    this.seen = true;
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

type ReinforceRun = BaseConfig & { algorithm: ReinforceConfig };

export const reinforce: AlgorithmDefinition<ReinforceRun> = {
  name: 'reinforce',
  doc: 'REINFORCE as the KoLMogorov seed writes it: returns discounted over program lines, normalised, an entropy bonus, a KL to the warm start, a group-mean baseline with groupSize > 1.',
  fields: reinforceFields,
  reads: ['gamma', 'baselineMomentum'],
  accumulates: true,
  dataParallel: true,
  charts: [
    { name: 'entropy', title: 'entropy', optional: true, caption: 'How spread the policy\'s choices are (nats per token): it falls as the policy grows sure; a collapse to 0 stops exploration.' },
  ],
  needsReference: (config) => config.algorithm.klCoef > 0,
  create: ({ config, policy, grammar, reference, gradientShards, log }) =>
    asPolicyAlgorithm(new Reinforce(policy, grammar, config.algorithm, reference, gradientShards, log), ({ loss, gradNorm, skipped, reason, entropy, kl, threads }) => ({
      loss, gradNorm, skipped, reason, metrics: { entropy, kl, update_threads: threads },
    })),
};
