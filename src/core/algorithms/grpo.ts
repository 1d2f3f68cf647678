/**
 * GRPO (Shao et al. 2024, DeepSeekMath) as TRL's GRPOTrainer computes it, with TRL's names:
 * `groupSize` programs are sampled per prompt (TRL's num_generations); each program's advantage
 * is its reward minus its group's mean, divided by the group's standard deviation
 * (`scaleRewards` group), the batch's (batch) or nothing (none); every token of the program gets
 * that advantage. The loss per token is
 *
 *   -min(r A, clip(r, 1 - epsilon, 1 + epsilonHigh) A) + beta (exp(q - p) - (q - p) - 1)
 *
 * with r = exp(p - p_old) the ratio of the current to the sampling probability of the token, p
 * and q the current and reference log-probabilities (the KL's k3 estimator). `lossType` says how
 * token losses average: over each program's tokens then over programs (grpo), summed and divided
 * by programs x the longest program allowed (dr_grpo), or over all tokens of the batch (dapo).
 * `numIterations` updates are taken on each batch, the ratio always to the sampling
 * probabilities (the sampler's log-probabilities, `Episode.behaviourLogProbs`).
 */
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import { asPolicyAlgorithm, klChart, type AlgorithmDefinition } from '../algorithm';
import type { AlgorithmCommonConfig, BaseConfig, Infer } from '../configSections';
import type { Grammar } from '../grammar';
import { AdamAlgorithm } from './adamAlgorithm';
import { accumulatedStep, buildSequenceBatch, disposeBatch, microBatches, programTokenLogProbs, type SequenceBatch } from '../model/training';
import type { TransformerPolicy } from '../model/transformer';
import type { Episode } from './reinforce';

/** grpo's own fields (TRL's GRPOConfig names); it also reads the shared beta and numIterations. */
export const grpoFields = {
  epsilon: z.number().min(0).max(1).default(0.2).describe('grpo: the probability ratio is clipped to [1 - epsilon, 1 + epsilonHigh].'),
  epsilonHigh: z.number().min(0).max(10).default(0.2).describe('grpo: upper clip of the ratio (DAPO\'s clip-higher when above epsilon).'),
  scaleRewards: z.enum(['group', 'batch', 'none']).default('group').describe('grpo: advantages are reward minus the group mean, divided by the group\'s std (group), the batch\'s std (batch), or not divided (none).'),
  lossType: z.enum(['grpo', 'dr_grpo', 'dapo']).default('grpo').describe('grpo: how token losses average: per sequence then over sequences (grpo), summed over the batch and divided by batch x max program tokens (dr_grpo), or over all tokens of the batch (dapo).'),
};

export type GrpoConfig = Pick<AlgorithmCommonConfig & Infer<typeof grpoFields>, 'learningRate' | 'groupSize' | 'temperature' | 'gradClip' | 'beta' | 'epsilon' | 'epsilonHigh' | 'scaleRewards' | 'lossType' | 'numIterations' | 'gradientAccumulationSteps'>;

export interface GrpoStats {
  loss: number;
  kl: number;
  /** Share of tokens whose ratio was clipped (TRL's clip_ratio). */
  clipRatio: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
/** The unbiased standard deviation, as torch.std (TRL's). */
const std = (values: readonly number[]) => {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1));
};

/** Groups of rewards by `group` (episodes of one prompt share it), in first-seen order. */
export function groupsOf(episodes: readonly Pick<Episode, 'reward' | 'group'>[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  episodes.forEach((e, i) => groups.set(e.group ?? i, [...(groups.get(e.group ?? i) ?? []), e.reward]));
  return groups;
}

/** Each episode's GRPO advantage: reward minus its group's mean, scaled as `scaleRewards` says (1e-4 added to the std, as TRL). */
export function grpoAdvantages(episodes: readonly Pick<Episode, 'reward' | 'group'>[], scale: GrpoConfig['scaleRewards']): number[] {
  const groups = groupsOf(episodes);
  const batchStd = std(episodes.map((e) => e.reward));
  return episodes.map((e, i) => {
    const rewards = groups.get(e.group ?? i)!;
    const centred = e.reward - mean(rewards);
    if (scale === 'none') return centred;
    return centred / ((scale === 'group' ? std(rewards) : batchStd) + 1e-4);
  });
}

/**
 * The GRPO loss of a batch from its per-token log-probabilities [B, P] (current, sampling,
 * reference or null), advantages [B] and token mask [B, P]: a scalar, with the mean k3 KL and
 * the share of clipped tokens. Pure tensor arithmetic, so it is tested on tiny hand-made tensors.
 */
export function grpoLoss(
  logProbs: tf.Tensor2D,
  oldLogProbs: tf.Tensor2D,
  referenceLogProbs: tf.Tensor2D | null,
  advantages: tf.Tensor1D,
  mask: tf.Tensor2D,
  settings: Pick<GrpoConfig, 'beta' | 'epsilon' | 'epsilonHigh' | 'lossType'>,
  maxTokens: number,
): { loss: tf.Scalar; kl: tf.Scalar; clipRatio: tf.Scalar } {
  const [B] = logProbs.shape;
  // Padding positions are zeroed first: a masked -1e9 there would overflow exp() into NaN.
  [logProbs, oldLogProbs] = [logProbs.mul<tf.Tensor2D>(mask), oldLogProbs.mul<tf.Tensor2D>(mask)];
  if (referenceLogProbs) referenceLogProbs = referenceLogProbs.mul<tf.Tensor2D>(mask);
  const ratio = tf.exp(logProbs.sub(oldLogProbs));
  const clipped = tf.clipByValue(ratio, 1 - settings.epsilon, 1 + settings.epsilonHigh);
  const advantage = advantages.reshape([B, 1]);
  let perToken = tf.minimum(ratio.mul(advantage), clipped.mul(advantage)).neg();
  const count = mask.sum();
  let kl: tf.Scalar = tf.scalar(0);
  if (referenceLogProbs && settings.beta > 0) {
    const delta = referenceLogProbs.sub(logProbs);
    const perTokenKl = tf.exp(delta).sub(delta).sub(1);
    perToken = perToken.add(perTokenKl.mul(settings.beta));
    kl = perTokenKl.mul(mask).sum().div(count) as tf.Scalar;
  }
  const masked = perToken.mul(mask);
  const loss =
    settings.lossType === 'grpo'
      ? masked.sum(1).div(tf.maximum(mask.sum(1), 1)).mean()
      : settings.lossType === 'dr_grpo'
        ? masked.sum().div(B * maxTokens)
        : masked.sum().div(tf.maximum(count, 1));
  const isClipped = tf.logicalOr(ratio.less(1 - settings.epsilon), ratio.greater(1 + settings.epsilonHigh)).cast('float32');
  return { loss: loss as tf.Scalar, kl, clipRatio: isClipped.mul(mask).sum().div(tf.maximum(count, 1)) as tf.Scalar };
}

/** The sampler's log-probabilities of the batch's tokens [B, P] (right-padded with 0). */
export function behaviourTensor(episodes: readonly Pick<Episode, 'tokens' | 'behaviourLogProbs'>[], programLength: number): tf.Tensor2D {
  const data = new Float32Array(episodes.length * programLength);
  episodes.forEach((e, b) => {
    if (!e.behaviourLogProbs || e.behaviourLogProbs.length !== e.tokens.length) throw new Error('GRPO needs the sampler\'s log-probabilities of every token (Episode.behaviourLogProbs)');
    data.set(e.behaviourLogProbs, b * programLength);
  });
  return tf.tensor2d(data, [episodes.length, programLength]);
}

export class Grpo<S = unknown> extends AdamAlgorithm {
  constructor(
    policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: GrpoConfig,
    private readonly maxTokens: number,
    private readonly reference?: TransformerPolicy,
  ) {
    super(policy, config.learningRate);
  }

  async step(episodes: readonly Episode[]): Promise<GrpoStats> {
    const usable = episodes.filter((e) => e.tokens.length > 0);
    if (usable.length === 0) return { loss: 0, kl: 0, clipRatio: 0, gradNorm: 0, skipped: true, reason: 'no tokens sampled' };
    if (usable.some((e) => !Number.isFinite(e.reward))) return { loss: NaN, kl: NaN, clipRatio: NaN, gradNorm: NaN, skipped: true, reason: 'non-finite reward; update skipped' };
    const allAdvantages = grpoAdvantages(usable, this.config.scaleRewards);
    // Gradient accumulation: whole groups per micro-batch, each weighted by its share of what the
    // loss type averages over (programs, or tokens for dapo), so the step equals the whole batch's.
    const parts = microBatches(usable.map((episode, i) => ({ episode, advantage: allAdvantages[i], group: episode.group })), this.config.gradientAccumulationSteps).map((part) => {
      const episodes = part.map((p) => p.episode);
      const batch = buildSequenceBatch(episodes, this.grammar, this.policy.config.context);
      return {
        batch,
        programs: part.length,
        advantages: tf.tensor1d(part.map((p) => p.advantage)),
        old: behaviourTensor(episodes, batch.programLength),
        reference: this.reference && this.config.beta > 0 ? tf.tidy(() => this.tokenLogProbs(this.reference!, batch)) : null,
      };
    });
    const tokens = parts.reduce((sum, part) => sum + part.batch.tokenCount, 0);
    try {
      let last: GrpoStats = { loss: NaN, kl: NaN, clipRatio: NaN, gradNorm: NaN, skipped: true, reason: 'no update' };
      for (let iteration = 0; iteration < this.config.numIterations; iteration++) {
        const result = await accumulatedStep(
          this.optimizer,
          this.policy.variables,
          parts.map(({ batch, programs, advantages, old, reference }) => ({
            weight: this.config.lossType === 'dapo' ? batch.tokenCount / tokens : programs / usable.length,
            lossFn: () => grpoLoss(this.tokenLogProbs(this.policy, batch), old, reference, advantages, batch.tokenMask, this.config, this.maxTokens),
          })),
          this.config.gradClip,
        );
        // A later iteration skipped leaves the earlier ones applied: the step is an update, said by their figures.
        if (result.skipped && iteration > 0) break;
        last = { loss: result.values.loss, kl: result.values.kl ?? 0, clipRatio: result.values.clipRatio ?? 0, gradNorm: result.gradNorm, skipped: result.skipped, reason: result.reason };
        if (result.skipped) break;
      }
      return last;
    } finally {
      for (const { batch, advantages, old, reference } of parts) {
        tf.dispose([advantages, old, ...(reference ? [reference] : [])]);
        disposeBatch(batch);
      }
    }
  }

  private tokenLogProbs(policy: TransformerPolicy, batch: SequenceBatch): tf.Tensor2D {
    return programTokenLogProbs(policy, batch, this.config.temperature);
  }
}


type GrpoRun = BaseConfig & { algorithm: GrpoConfig };

export const grpo: AlgorithmDefinition<GrpoRun> = {
  name: 'grpo',
  doc: 'GRPO (TRL\'s GRPOTrainer): rewards normalised within each group, a clipped-ratio step, a k3 KL to the warm start weighted by beta.',
  fields: grpoFields,
  reads: ['beta', 'numIterations'],
  // TRL's GRPOConfig: beta 0 (no reference model), num_generations 8; groups of 4 suit batches of 32 here.
  defaults: { algorithm: { groupSize: 4 } },
  accumulates: true,
  charts: [
    klChart,
    { name: 'clip_ratio', title: 'clipped share (grpo)', optional: true, caption: 'Share of tokens whose probability ratio to the sampler\'s was clipped: high means the update moves further than epsilon allows.' },
  ],
  needsReference: (config) => config.algorithm.beta > 0,
  create: ({ config, policy, grammar, reference, maxTokens }) =>
    asPolicyAlgorithm(new Grpo(policy, grammar, config.algorithm, maxTokens, reference), ({ loss, gradNorm, skipped, reason, kl, clipRatio }) => ({
      loss, gradNorm, skipped, reason, metrics: { kl, clip_ratio: clipRatio },
    })),
};
