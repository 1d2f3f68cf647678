/**
 * REINFORCE as the Monarch RL example writes it: for each sampled response, the mean over its
 * tokens of the log-probability (per-token normalised, so long and short responses weigh the
 * same), times (reward - baseline); the baseline is an exponential moving average of the batch
 * mean reward, updated after each step. loss = -mean_b[(r_b - baseline) * mean_t log p(y_bt)].
 * The baseline starts at the first batch's mean reward, not 0: from a weak warm start most
 * rewards are -1, and a zero baseline then pushes every sampled answer down at once (measured
 * on sum_digits from 41% greedy accuracy: the policy stopped writing answers within 15 steps).
 *
 * Log-probabilities are those of the masked, temperature-scaled distribution the generators
 * sampled from (the same grammar and temperature), so the gradient is on-policy when the
 * generators hold the newest weights. Deliberate simplifications, as the seed: no entropy
 * bonus, no KL term, no return normalisation.
 *
 * Episodes that carry the sampler's own log-probabilities (`behaviourLogProbs`) get a
 * truncated importance weight per token, min(1, p(y) / mu(y)), held constant in the gradient:
 * 1 when the generator held the trainer's weights (the seed's loss, unchanged), and below 1
 * where the policy has already moved away from a token since it was sampled. It matters when
 * generators sample one version behind (`digits.overlap`): without it, sum_digits RL from its
 * warm start collapsed to 0% within 60 steps in every run, against 41% -> 60-68% on-policy
 * (measured, seeds 1 and 2); the push on a stale wrong answer kept going after the policy had
 * already left it (IMPALA's truncated importance sampling, per token).
 */
import * as tf from '@tensorflow/tfjs-core';
import { asPolicyAlgorithm, type AlgorithmDefinition } from '../algorithm';
import type { BaseConfig } from '../configSections';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { stopGradient } from '../model/stopGradient';
import { buildSequenceBatch, clippedStep, disposeBatch, programLogProbs, takenLogProbs } from '../model/training';
import type { TransformerPolicy, WeightArray } from '../model/transformer';

export interface TokenMeanReinforceConfig {
  learningRate: number;
  /** EMA momentum of the reward baseline: baseline <- m * baseline + (1 - m) * mean reward. */
  baselineMomentum: number;
  temperature: number;
  gradClip: number;
  /**
   * Answers per question. Above 1 the baseline of an answer is the mean reward of its group (the
   * other answers to the same question: episodes with the same `group`, else consecutive runs
   * of groupSize) instead of the EMA: a question the policy always gets right then teaches
   * nothing, and one it sometimes gets right teaches which answer was right. 1: the seed's EMA.
   */
  groupSize?: number;
}

export const defaultTokenMeanReinforceConfig: TokenMeanReinforceConfig = { learningRate: 3e-4, baselineMomentum: 0.9, temperature: 1, gradClip: 1, groupSize: 1 };

export interface TokenMeanEpisode {
  prompt: readonly number[];
  tokens: readonly number[];
  reward: number;
  /** Per-token log-probabilities under the policy that sampled `tokens` (same temperature). */
  behaviourLogProbs?: readonly number[];
  /** Episodes of one group share a prompt (group sampling). */
  group?: number;
}

export interface TokenMeanReinforceStats {
  loss: number;
  meanReward: number;
  /** Baseline used by this step (before its own update). */
  baseline: number;
  gradNorm: number;
  /** Mean truncated importance weight over the batch's tokens (1 when on-policy). */
  importanceWeight: number;
  skipped: boolean;
  reason?: string;
}

export class TokenMeanReinforce<S = unknown> {
  readonly optimizer: Adam;
  /** The EMA baseline; undefined until the first batch. */
  baseline: number | undefined;

  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: TokenMeanReinforceConfig = defaultTokenMeanReinforceConfig,
  ) {
    this.optimizer = new Adam(policy.variables, { learningRate: config.learningRate });
  }

  async step(episodes: readonly TokenMeanEpisode[]): Promise<TokenMeanReinforceStats> {
    const B = episodes.length;
    const meanReward = episodes.reduce((sum, e) => sum + e.reward, 0) / B;
    const baseline = this.baseline ?? meanReward;
    const batch = buildSequenceBatch(episodes.map((e) => ({ prompt: e.prompt, tokens: e.tokens })), this.grammar, this.policy.config.context);
    const lengths = tf.tensor1d(episodes.map((e) => Math.max(1, e.tokens.length))); // [B]
    const groups = episodes.every((e) => e.group !== undefined) ? episodes.map((e) => e.group!) : undefined;
    const advantage = tf.tensor1d(advantages(episodes.map((e) => e.reward), baseline, this.config.groupSize ?? 1, groups)); // [B]
    const behaviour = behaviourTensor(episodes, batch.programLength); // [B, P] or null
    try {
      const result = await clippedStep(
        this.optimizer,
        this.policy.variables,
        () => {
          const logProbs = programLogProbs(this.policy, batch, this.config.temperature); // [B, P, V]
          const taken = takenLogProbs(logProbs, batch).mul(batch.tokenMask); // [B, P]
          const rho = behaviour ? stopGradient(tf.minimum(1, tf.exp(taken.sub(behaviour))).mul(batch.tokenMask)) : batch.tokenMask; // [B, P]
          const perToken = taken.mul(rho).sum(1).div(lengths); // [B]
          const loss = perToken.mul(advantage).mean().neg() as tf.Scalar;
          return { loss, importanceWeight: rho.sum().div(batch.tokenCount) as tf.Scalar };
        },
        this.config.gradClip,
      );
      if (!result.skipped) this.baseline = this.config.baselineMomentum * baseline + (1 - this.config.baselineMomentum) * meanReward;
      return { loss: result.values.loss, meanReward, baseline, gradNorm: result.gradNorm, importanceWeight: result.values.importanceWeight ?? 1, skipped: result.skipped, reason: result.reason };
    } finally {
      disposeBatch(batch);
      tf.dispose([lengths, advantage, ...(behaviour ? [behaviour] : [])]);
    }
  }

  optimizerWeights(): WeightArray[] {
    return this.optimizer.getState(this.policy.weightNames());
  }

  setOptimizerWeights(state: readonly WeightArray[]): void {
    this.optimizer.setState(state, this.policy.weightNames());
  }

  setBaseline(value: number): void {
    this.baseline = value;
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}

/**
 * reward - baseline per answer: the EMA baseline, or with groups the mean reward of the answer's
 * group (by `groups`, the group of each answer, when given; else consecutive runs of groupSize).
 */
export function advantages(rewards: readonly number[], baseline: number, groupSize: number, groups?: readonly number[]): number[] {
  if (groupSize <= 1) return rewards.map((r) => r - baseline);
  if (groups) {
    const sums = new Map<number, [number, number]>();
    groups.forEach((g, i) => {
      const [sum, count] = sums.get(g) ?? [0, 0];
      sums.set(g, [sum + rewards[i], count + 1]);
    });
    return rewards.map((r, i) => {
      const [sum, count] = sums.get(groups[i])!;
      return r - sum / count;
    });
  }
  if (rewards.length % groupSize !== 0) throw new Error(`${rewards.length} answers cannot form groups of ${groupSize}`);
  return rewards.map((r, i) => {
    const start = i - (i % groupSize);
    const group = rewards.slice(start, start + groupSize);
    return r - group.reduce((sum, v) => sum + v, 0) / groupSize;
  });
}

/** The episodes' behaviour log-probabilities, right-padded to P; null when none has them. */
function behaviourTensor(episodes: readonly TokenMeanEpisode[], P: number): tf.Tensor2D | null {
  if (!episodes.some((e) => e.behaviourLogProbs)) return null;
  const values = new Float32Array(episodes.length * P);
  episodes.forEach((e, b) => {
    if (!e.behaviourLogProbs) throw new Error(`episode ${b} has no behaviourLogProbs while others do`);
    if (e.behaviourLogProbs.length !== e.tokens.length) throw new Error(`episode ${b}: ${e.behaviourLogProbs.length} behaviour log-probs for ${e.tokens.length} tokens`);
    values.set(e.behaviourLogProbs, b * P);
  });
  return tf.tensor2d(values, [episodes.length, P]);
}

export const reinforceMonarch: AlgorithmDefinition<BaseConfig> = {
  name: 'reinforce_monarch',
  doc: 'REINFORCE as the Monarch example writes it: per-token mean log-probability x (reward - EMA baseline), importance-weighted when generators sample with older weights.',
  reads: ['baselineMomentum'],
  accumulates: false,
  charts: [
    { name: 'baseline', title: 'baseline (EMA of the reward)', optional: true, caption: 'The moving average of the batch reward the advantages are taken against.' },
    { name: 'importance_weight', title: 'importance weight', optional: true, caption: 'Mean truncated importance weight of the batch\'s tokens: 1 on-policy, below 1 when generators sample with older weights.' },
  ],
  needsReference: () => false,
  create: ({ config, policy, grammar }) =>
    asPolicyAlgorithm(new TokenMeanReinforce(policy, grammar, config.algorithm), ({ loss, gradNorm, skipped, reason, importanceWeight, baseline }) => ({
      loss, gradNorm, skipped, reason, metrics: { importance_weight: importanceWeight, baseline },
    })),
};
