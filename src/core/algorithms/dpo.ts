/**
 * DPO, Direct Preference Optimization (Rafailov et al. 2023), as TRL's DPOTrainer computes it and
 * with its names. A pair is a prompt with a chosen and a rejected program; with the summed
 * log-probabilities of each program under the policy (p) and the frozen reference (q),
 *
 *   rewards/chosen = beta (p_c - q_c)      rewards/rejected = beta (p_r - q_r)
 *   h = (p_c - p_r) - (q_c - q_r)
 *
 * and the loss per pair, by `dpoLossType`:
 *
 *   sigmoid  -log sigmoid(beta h)          (the paper's)
 *   hinge    max(0, 1 - beta h)            (SLiC)
 *   ipo      (h - 1 / (2 beta))^2          (Azar et al. 2023; as TRL, p and q are then each
 *                                          program's mean log-probability per token, not its sum)
 *
 * Pairs come from a file (`{prompt, chosen, rejected}` in the task's text form, the task turns them
 * into tokens) or from the run's own samples: in each group of programs sampled for one prompt, the
 * best-rewarded correct one over the worst-rewarded one it beats (a correct program over a failing
 * one; for Kolmogorov, of two correct ones the shorter, which earns more).
 *
 * Log-probabilities are those of the grammar-masked distribution at temperature 1, the one the
 * policy's programs are judged under. The reference's are computed once per pair, outside the
 * gradient; a pair file's can be kept across epochs (`referenceCache`).
 */
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import type { AlgorithmDefinition, PolicyUpdate, TokenPair } from '../algorithm';

export type { TokenPair };
import type { AlgorithmCommonConfig, BaseConfig, Infer } from '../configSections';
import type { Grammar } from '../grammar';
import { AdamAlgorithm } from './adamAlgorithm';
import { accumulatedStep, buildSequenceBatch, disposeBatch, microBatches, programLogProbSums, type SequenceBatch } from '../model/training';
import type { TransformerPolicy } from '../model/transformer';
import type { Episode } from './reinforce';

/** dpo's own field (TRL's DPOConfig loss_type); it also reads the shared beta. */
export const dpoFields = {
  dpoLossType: z.enum(['sigmoid', 'ipo', 'hinge']).default('sigmoid').describe('dpo: the loss of a pair from h, its log-ratio margin over the reference: -log sigmoid(beta h) (sigmoid, the paper\'s), (h - 1/(2 beta))^2 (ipo), max(0, 1 - beta h) (hinge). TRL\'s loss_type.'),
};

export type DpoConfig = Pick<AlgorithmCommonConfig & Infer<typeof dpoFields>, 'learningRate' | 'gradClip' | 'beta' | 'dpoLossType' | 'gradientAccumulationSteps'>;
export type DpoLossType = DpoConfig['dpoLossType'];

/** One preference pair in tokens: the prompt and two programs for it. */

/** TRL's DPO metrics, means over the pairs of a batch. */
export interface PreferenceMetrics {
  'rewards/chosen': number;
  'rewards/rejected': number;
  'rewards/margins': number;
  'rewards/accuracies': number;
  'logps/chosen': number;
  'logps/rejected': number;
}

export interface DpoStats extends PreferenceMetrics {
  loss: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  pairs: number;
}

/**
 * The DPO loss and metrics from summed log-probabilities [N] of the chosen and rejected programs
 * under the policy and the reference. Pure tensor arithmetic, tested on hand-computed values.
 */
export function dpoLoss(
  policyChosen: tf.Tensor1D,
  policyRejected: tf.Tensor1D,
  referenceChosen: tf.Tensor1D,
  referenceRejected: tf.Tensor1D,
  beta: number,
  lossType: DpoLossType,
): { loss: tf.Scalar; chosen: tf.Tensor1D; rejected: tf.Tensor1D } {
  const h = policyChosen.sub(policyRejected).sub(referenceChosen.sub(referenceRejected));
  // -log sigmoid(x) is written softplus(-x): tf.logSigmoid's gradient fails on the wasm backend.
  const losses =
    lossType === 'sigmoid' ? tf.softplus(h.mul(-beta))
      : lossType === 'hinge' ? tf.relu(tf.scalar(1).sub(h.mul(beta)))
        : h.sub(1 / (2 * beta)).square();
  return {
    loss: losses.mean() as tf.Scalar,
    chosen: policyChosen.sub(referenceChosen).mul(beta) as tf.Tensor1D,
    rejected: policyRejected.sub(referenceRejected).mul(beta) as tf.Tensor1D,
  };
}

/** The metrics of pairs from their implicit rewards and the policy's log-probabilities. */
export function preferenceMetrics(chosen: readonly number[], rejected: readonly number[], logpsChosen: readonly number[], logpsRejected: readonly number[]): PreferenceMetrics {
  const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);
  return {
    'rewards/chosen': mean(chosen),
    'rewards/rejected': mean(rejected),
    'rewards/margins': mean(chosen.map((c, i) => c - rejected[i])),
    // A tie is not a win, as TRL's (chosen_rewards > rejected_rewards).
    'rewards/accuracies': mean(chosen.map((c, i) => (c > rejected[i] ? 1 : 0))),
    'logps/chosen': mean(logpsChosen),
    'logps/rejected': mean(logpsRejected),
  };
}

/**
 * Pairs from the run's own samples: per group, the best-rewarded program, when it is correct (or
 * correctness is not known), over the worst-rewarded one, when it earned strictly less.
 */
export function pairsFromEpisodes(episodes: readonly Episode[]): TokenPair[] {
  const groups = new Map<number, Episode[]>();
  episodes.forEach((e, i) => groups.set(e.group ?? i, [...(groups.get(e.group ?? i) ?? []), e]));
  const pairs: TokenPair[] = [];
  for (const group of groups.values()) {
    const ranked = group.filter((e) => e.tokens.length > 0).sort((a, b) => b.reward - a.reward);
    if (ranked.length < 2) continue;
    const [best, worst] = [ranked[0], ranked[ranked.length - 1]];
    if (best.correct === false || !(best.reward > worst.reward)) continue;
    pairs.push({ prompt: best.prompt, chosen: best.tokens, rejected: worst.tokens });
  }
  return pairs;
}

/** One batch of 2N rows: the chosen programs, then the rejected ones. */
function pairBatch<S>(pairs: readonly TokenPair[], grammar: Grammar<S>, context: number): SequenceBatch {
  return buildSequenceBatch([...pairs.map((p) => ({ prompt: p.prompt, tokens: p.chosen })), ...pairs.map((p) => ({ prompt: p.prompt, tokens: p.rejected }))], grammar, context);
}

/** The token counts of the pairs' programs, chosen ones then rejected ones (the rows of pairBatch). */
const pairLengths = (pairs: readonly TokenPair[]): number[] => [...pairs.map((p) => Math.max(1, p.chosen.length)), ...pairs.map((p) => Math.max(1, p.rejected.length))];

/** Summed log-probabilities of each pair's chosen and rejected program under a policy (per token, IPO's, when `perToken`), without gradients. */
export async function pairLogProbs<S>(policy: TransformerPolicy, grammar: Grammar<S>, pairs: readonly TokenPair[], perToken = false): Promise<{ chosen: number[]; rejected: number[] }> {
  const batch = pairBatch(pairs, grammar, policy.config.context);
  try {
    const summed = tf.tidy(() => programLogProbSums(policy, batch));
    const values = [...(await summed.data())];
    summed.dispose();
    const lengths = perToken ? pairLengths(pairs) : null;
    const per = (value: number, i: number) => (lengths ? value / lengths[i] : value);
    return { chosen: values.slice(0, pairs.length).map(per), rejected: values.slice(pairs.length).map((v, i) => per(v, pairs.length + i)) };
  } finally {
    disposeBatch(batch);
  }
}

/**
 * The implicit-reward metrics of `policy` against `reference` on pairs, in chunks (the figures
 * `eval --preferences` reports): nothing is trained.
 */
export async function scorePreferences<S>(policy: TransformerPolicy, reference: TransformerPolicy, grammar: Grammar<S>, pairs: readonly TokenPair[], beta: number, { chunk = 32, perToken = false }: { chunk?: number; perToken?: boolean } = {}): Promise<PreferenceMetrics & { n: number }> {
  const rewards = { chosen: [] as number[], rejected: [] as number[], logpsChosen: [] as number[], logpsRejected: [] as number[] };
  for (let start = 0; start < pairs.length; start += chunk) {
    const part = pairs.slice(start, start + chunk);
    const p = await pairLogProbs(policy, grammar, part, perToken);
    const q = await pairLogProbs(reference, grammar, part, perToken);
    part.forEach((_, i) => {
      rewards.chosen.push(beta * (p.chosen[i] - q.chosen[i]));
      rewards.rejected.push(beta * (p.rejected[i] - q.rejected[i]));
      rewards.logpsChosen.push(p.chosen[i]);
      rewards.logpsRejected.push(p.rejected[i]);
    });
  }
  return { n: pairs.length, ...preferenceMetrics(rewards.chosen, rewards.rejected, rewards.logpsChosen, rewards.logpsRejected) };
}

export class Dpo<S = unknown> extends AdamAlgorithm {
  constructor(
    policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: DpoConfig,
    private readonly reference: TransformerPolicy,
    /** Reference log-probabilities of pairs seen before (a pair file's, across epochs), by the pair object. */
    private readonly referenceCache = new WeakMap<TokenPair, [number, number]>(),
  ) {
    super(policy, config.learningRate);
  }

  /** IPO compares programs by their mean log-probability per token (TRL's), the others by the sum. */
  private get perToken(): boolean {
    return this.config.dpoLossType === 'ipo';
  }

  /** An update on the pairs the run's own samples make (pairsFromEpisodes). */
  step(episodes: readonly Episode[]): Promise<DpoStats> {
    return this.stepPairs(pairsFromEpisodes(episodes));
  }

  /** One update on these pairs. */
  async stepPairs(pairs: readonly TokenPair[]): Promise<DpoStats> {
    const none = { 'rewards/chosen': NaN, 'rewards/rejected': NaN, 'rewards/margins': NaN, 'rewards/accuracies': NaN, 'logps/chosen': NaN, 'logps/rejected': NaN };
    if (pairs.length === 0) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'no preference pair: no group had a correct program that beat another', pairs: 0, ...none };
    const missing = pairs.filter((p) => !this.referenceCache.has(p));
    if (missing.length) {
      const q = await pairLogProbs(this.reference, this.grammar, missing, this.perToken);
      missing.forEach((p, i) => this.referenceCache.set(p, [q.chosen[i], q.rejected[i]]));
    }
    // Gradient accumulation: each micro-batch of pairs weighted by its share of them (the loss and
    // the figures are means over pairs), so the step equals the whole batch's.
    const parts = microBatches(pairs, this.config.gradientAccumulationSteps).map((part) => {
      const reference = part.map((p) => this.referenceCache.get(p)!);
      return {
        n: part.length,
        batch: pairBatch(part, this.grammar, this.policy.config.context),
        lengths: this.perToken ? tf.tensor1d(pairLengths(part)) : null,
        referenceChosen: tf.tensor1d(reference.map(([c]) => c)),
        referenceRejected: tf.tensor1d(reference.map(([, r]) => r)),
      };
    });
    try {
      const result = await accumulatedStep(
        this.optimizer,
        this.policy.variables,
        parts.map(({ n, batch, lengths, referenceChosen, referenceRejected }) => ({
          weight: n / pairs.length,
          lossFn: () => {
            const summed: tf.Tensor1D = lengths ? programLogProbSums(this.policy, batch).div(lengths) : programLogProbSums(this.policy, batch);
            const [policyChosen, policyRejected] = [summed.slice(0, n), summed.slice(n, n)];
            const { loss, chosen, rejected } = dpoLoss(policyChosen, policyRejected, referenceChosen, referenceRejected, this.config.beta, this.config.dpoLossType);
            return {
              loss,
              'rewards/chosen': chosen.mean(),
              'rewards/rejected': rejected.mean(),
              'rewards/margins': chosen.sub(rejected).mean(),
              'rewards/accuracies': chosen.greater(rejected).cast('float32').mean(),
              'logps/chosen': policyChosen.mean(),
              'logps/rejected': policyRejected.mean(),
            } as Record<string, tf.Scalar>;
          },
        })),
        this.config.gradClip,
      );
      const { loss, ...metrics } = result.values;
      return { loss, gradNorm: result.gradNorm, skipped: result.skipped, reason: result.reason, pairs: pairs.length, ...(metrics as unknown as PreferenceMetrics) };
    } finally {
      for (const { batch, lengths, referenceChosen, referenceRejected } of parts) {
        tf.dispose([referenceChosen, referenceRejected, ...(lengths ? [lengths] : [])]);
        disposeBatch(batch);
      }
    }
  }
}

type DpoRun = BaseConfig & { algorithm: DpoConfig };

/** A DPO step's statistics as a PolicyUpdate: a batch with no pair has no figures to chart, only its count (0). */
function dpoUpdate({ loss, gradNorm, skipped, reason, pairs, ...named }: DpoStats): PolicyUpdate {
  // A batch with no pair is DPO's data, not a fault: said once.
  return { loss, gradNorm, skipped, reason, metrics: pairs > 0 ? { ...named, pairs } : { pairs }, expected: skipped && pairs === 0 };
}

export const dpo: AlgorithmDefinition<DpoRun> = {
  name: 'dpo',
  doc: 'DPO (TRL\'s DPOTrainer): preference pairs (the best correct program of a group over the worst, or a pair file) against a frozen reference, scaled by beta.',
  fields: dpoFields,
  reads: ['beta'],
  // TRL's DPOConfig beta; a pair needs two programs of one prompt.
  defaults: { algorithm: { beta: 0.1, groupSize: 4 } },
  accumulates: true,
  mixesBatches: true,
  charts: [
    { name: 'rewards/accuracies', title: 'rewards/accuracies (dpo)', optional: true, caption: 'Share of preference pairs whose chosen program the policy favours more than the reference does.' },
    { name: 'rewards/margins', title: 'rewards/margins (dpo)', optional: true, caption: 'Mean implicit reward of the chosen program minus the rejected one: beta times the log-ratio to the reference.' },
    { name: 'logps/chosen', title: 'logps/chosen (dpo)', optional: true, caption: 'Log-probability of the chosen programs under the policy; a fall in both this and logps/rejected is DPO\'s known drift.' },
    { name: 'logps/rejected', title: 'logps/rejected (dpo)', optional: true, caption: 'Log-probability of the rejected programs under the policy.' },
  ],
  check: (config) => (config.algorithm.beta > 0 ? null : 'algorithm.beta must be above 0 for dpo (it scales the implicit reward): try 0.1, TRL\'s default'),
  needsReference: () => true,
  create({ config, policy, grammar, reference }) {
    if (!reference) throw new Error('dpo needs a reference policy');
    const algorithm = new Dpo(policy, grammar, config.algorithm, reference);
    return {
      optimizer: algorithm.optimizer,
      baseline: undefined,
      setBaseline: () => undefined,
      optimizerWeights: () => algorithm.optimizerWeights(),
      setOptimizerWeights: (state) => algorithm.setOptimizerWeights(state),
      dispose: () => algorithm.dispose(),
      update: async (episodes) => dpoUpdate(await algorithm.step(episodes)),
      updatePairs: async (pairs) => dpoUpdate(await algorithm.stepPairs(pairs)),
    };
  },
};
