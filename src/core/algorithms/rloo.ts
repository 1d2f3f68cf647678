/**
 * RLOO, REINFORCE Leave-One-Out (Kool et al. 2019; Ahmadian et al. 2024, as TRL's RLOOTrainer):
 * `groupSize` programs per prompt; the KL to the reference policy is folded into each program's
 * reward (r - beta KL, KL the sum over its tokens of log p - log q under the sampler's
 * probabilities), and a program's baseline is the mean of the other programs of its group, so its
 * advantage is unbiased without a learned value. The loss is REINFORCE on whole programs:
 *
 *   -(1/B) sum_i A_i sum_t log p(token_t of program i)
 *
 * A group of one has no other program to compare with: its advantage is 0.
 */
import * as tf from '@tensorflow/tfjs-core';
import { asPolicyAlgorithm, klChart, type AlgorithmDefinition } from '../algorithm';
import type { AlgorithmCommonConfig, BaseConfig } from '../configSections';
import type { Grammar } from '../grammar';
import { AdamAlgorithm } from './adamAlgorithm';
import { accumulatedStep, buildSequenceBatch, disposeBatch, microBatches, programTokenLogProbs } from '../model/training';
import type { TransformerPolicy } from '../model/transformer';
import { behaviourTensor } from './grpo';
import type { Episode } from './reinforce';

export type RlooConfig = Pick<AlgorithmCommonConfig, 'learningRate' | 'groupSize' | 'temperature' | 'gradClip' | 'beta' | 'numIterations' | 'gradientAccumulationSteps'>;

export interface RlooStats {
  loss: number;
  /** Mean over programs of their summed per-token KL to the reference. */
  kl: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
}

/** Leave-one-out advantages: each reward minus the mean of the others of its group (0 alone). */
export function leaveOneOutAdvantages(episodes: readonly Pick<Episode, 'reward' | 'group'>[], rewards: readonly number[] = episodes.map((e) => e.reward)): number[] {
  const sums = new Map<number, [number, number]>();
  episodes.forEach((e, i) => {
    const [sum, count] = sums.get(e.group ?? i) ?? [0, 0];
    sums.set(e.group ?? i, [sum + rewards[i], count + 1]);
  });
  return episodes.map((e, i) => {
    const [sum, count] = sums.get(e.group ?? i)!;
    return count > 1 ? rewards[i] - (sum - rewards[i]) / (count - 1) : 0;
  });
}

/** The RLOO loss from per-token log-probabilities [B, P], advantages [B] and the token mask [B, P]. */
export function rlooLoss(logProbs: tf.Tensor2D, advantages: tf.Tensor1D, mask: tf.Tensor2D): tf.Scalar {
  return logProbs.mul(mask).sum(1).mul(advantages).mean().neg() as tf.Scalar;
}

export class Rloo<S = unknown> extends AdamAlgorithm {
  constructor(
    policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: RlooConfig,
    private readonly reference?: TransformerPolicy,
  ) {
    super(policy, config.learningRate);
  }

  async step(episodes: readonly Episode[]): Promise<RlooStats> {
    const usable = episodes.filter((e) => e.tokens.length > 0);
    if (usable.length === 0) return { loss: 0, kl: 0, gradNorm: 0, skipped: true, reason: 'no tokens sampled' };
    if (usable.some((e) => !Number.isFinite(e.reward))) return { loss: NaN, kl: NaN, gradNorm: NaN, skipped: true, reason: 'non-finite reward; update skipped' };
    // Gradient accumulation: whole groups per micro-batch, each weighted by its share of the
    // programs (the loss is a mean over programs), so the step equals the whole batch's.
    const parts = microBatches(usable, this.config.gradientAccumulationSteps).map((episodes) => ({ episodes, batch: buildSequenceBatch(episodes, this.grammar, this.policy.config.context) }));
    try {
      // The KL of each program, from the sampler's log-probabilities and the reference's, folded into its reward.
      const kls: number[] = [];
      for (const { episodes, batch } of parts) {
        if (!this.reference || this.config.beta <= 0) {
          kls.push(...episodes.map(() => 0));
          continue;
        }
        const sampled = behaviourTensor(episodes, batch.programLength);
        const perProgram = tf.tidy(() => sampled.sub(programTokenLogProbs(this.reference!, batch, this.config.temperature)).mul(batch.tokenMask).sum(1));
        kls.push(...(await perProgram.data()));
        tf.dispose([sampled, perProgram]);
      }
      const ordered = parts.flatMap((part) => part.episodes);
      const shaped = ordered.map((e, i) => e.reward - this.config.beta * kls[i]);
      const all = leaveOneOutAdvantages(ordered, shaped);
      let offset = 0;
      const advantages = parts.map(({ episodes }) => tf.tensor1d(all.slice(offset, (offset += episodes.length))));
      try {
        let last: RlooStats = { loss: NaN, kl: NaN, gradNorm: NaN, skipped: true, reason: 'no update' };
        for (let iteration = 0; iteration < this.config.numIterations; iteration++) {
          const result = await accumulatedStep(
            this.optimizer,
            this.policy.variables,
            parts.map(({ episodes, batch }, p) => ({
              weight: episodes.length / ordered.length,
              lossFn: () => ({ loss: rlooLoss(programTokenLogProbs(this.policy, batch, this.config.temperature), advantages[p], batch.tokenMask) }),
            })),
            this.config.gradClip,
          );
          last = { loss: result.values.loss, kl: kls.reduce((a, b) => a + b, 0) / kls.length, gradNorm: result.gradNorm, skipped: result.skipped, reason: result.reason };
          if (result.skipped) break;
        }
        return last;
      } finally {
        tf.dispose(advantages);
      }
    } finally {
      for (const { batch } of parts) disposeBatch(batch);
    }
  }
}

type RlooRun = BaseConfig & { algorithm: RlooConfig };

export const rloo: AlgorithmDefinition<RlooRun> = {
  name: 'rloo',
  doc: 'RLOO (TRL\'s RLOOTrainer): each program against the mean of the others of its group, the KL to the warm start folded into its reward.',
  reads: ['beta', 'numIterations'],
  defaults: { algorithm: { groupSize: 4 } },
  accumulates: true,
  charts: [klChart],
  needsReference: (config) => config.algorithm.beta > 0,
  create: ({ config, policy, grammar, reference }) =>
    asPolicyAlgorithm(new Rloo(policy, grammar, config.algorithm, reference), ({ loss, gradNorm, skipped, reason, kl }) => ({
      loss, gradNorm, skipped, reason, metrics: { kl },
    })),
};
