/**
 * A learned reward model, as TRL's RewardTrainer trains one: the policy's transformer trunk
 * (started from the warm start's weights) with a scalar head on the last token of prompt +
 * program, trained on preference pairs with the Bradley-Terry loss
 *
 *   -log sigmoid(r_chosen - r_rejected - margin) + center_rewards_coefficient (r_chosen + r_rejected)^2
 *
 * (the centring term keeps rewards near zero, Eisenstein et al. 2023). Its accuracy is the share
 * of pairs whose chosen program it scores higher. RL then uses its score as a reward
 * (`--use-reward-model`), alone or added to the task's.
 *
 * Its file is a lab checkpoint whose weights are the trunk's and the head's (`rm/head/w`,
 * `rm/head/b`), with `extra.rewardModel` set: a policy checkpoint is not a reward model.
 */
import * as tf from '@tensorflow/tfjs-core';
import { variableFrom } from '../model/variable';
import { decodeCheckpoint, encodeCheckpoint, tensorArrays, type CheckpointMeta } from '../checkpoint';
import { Adam } from '../model/adam';
import { leftPad } from '../model/sampler';
import { clippedStep } from '../model/training';
import { Rng } from '../rng';
import { TransformerPolicy, type PolicyConfig, type WeightArray } from '../model/transformer';
import type { TokenPair } from './dpo';

export interface RewardModelSettings {
  learningRate: number;
  gradClip: number;
  /** Subtracted from the chosen-minus-rejected difference (TRL's per-pair margin, one value here). */
  margin: number;
  /** TRL's center_rewards_coefficient; 0 = off. */
  centerRewardsCoefficient: number;
}

export const defaultRewardModelSettings: RewardModelSettings = { learningRate: 1e-4, gradClip: 1, margin: 0, centerRewardsCoefficient: 0 };

/** The Bradley-Terry loss of rewards [N] of chosen and rejected programs. Pure tensor arithmetic, tested on hand-computed values. */
export function bradleyTerryLoss(chosen: tf.Tensor1D, rejected: tf.Tensor1D, margin = 0, centerRewardsCoefficient = 0): tf.Scalar {
  // -log sigmoid(x) is softplus(-x) (tf.logSigmoid's gradient fails on the wasm backend).
  let loss = tf.softplus(chosen.sub(rejected).sub(margin).neg()).mean() as tf.Scalar;
  if (centerRewardsCoefficient > 0) loss = loss.add(chosen.add(rejected).square().mean().mul(centerRewardsCoefficient));
  return loss;
}

export interface RewardModelStats {
  loss: number;
  accuracy: number;
  margin: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
}

export class RewardModel {
  readonly trunk: TransformerPolicy;
  private readonly headW: tf.Variable;
  private readonly headB: tf.Variable;
  private optimizer: Adam | null = null;

  constructor(readonly config: PolicyConfig, seed: number) {
    this.trunk = new TransformerPolicy(config, seed);
    this.headW = variableFrom(tf.randomNormal([config.dModel, 1], 0, 0.02, 'float32', seed * 7 + 1), true, `${this.trunk.prefix}/rm/head/w`);
    this.headB = variableFrom(tf.zeros([1]), true, `${this.trunk.prefix}/rm/head/b`);
  }

  get variables(): tf.Variable[] {
    return [...this.trunk.variables, this.headW, this.headB];
  }

  /** What training changes: all but the trunk's language-model head, which the reward never reads. */
  get trainable(): tf.Variable[] {
    const unused = new Set([`${this.trunk.prefix}/head/w`, `${this.trunk.prefix}/head/b`]);
    return this.variables.filter((v) => !unused.has(v.name));
  }

  /** The reward of each (prompt, program) row: the head on the last token's hidden state, [N]. */
  rewards(rows: readonly { prompt: readonly number[]; tokens: readonly number[] }[]): tf.Tensor1D {
    return tf.tidy(() => {
      const { data, length, starts } = leftPad(rows.map((row) => [...row.prompt, ...row.tokens]));
      const input = tf.tensor2d(data, [rows.length, length], 'int32');
      const hidden = this.trunk.hidden(input, starts); // [N, T, d]
      const last = hidden.slice([0, length - 1, 0], [rows.length, 1, this.config.dModel]).reshape([rows.length, this.config.dModel]);
      return tf.matMul(last, this.headW).add(this.headB).reshape([rows.length]) as tf.Tensor1D;
    });
  }

  /** Rewards as numbers, in chunks. */
  async score(rows: readonly { prompt: readonly number[]; tokens: readonly number[] }[], chunk = 32): Promise<number[]> {
    const out: number[] = [];
    for (let start = 0; start < rows.length; start += chunk) {
      const rewards = this.rewards(rows.slice(start, start + chunk));
      out.push(...(await rewards.data()));
      rewards.dispose();
    }
    return out;
  }

  /** One Adam step of the Bradley-Terry loss on these pairs; accuracy and margin are the batch's before the step. */
  async trainStep(pairs: readonly TokenPair[], settings: RewardModelSettings): Promise<RewardModelStats> {
    this.optimizer ??= new Adam(this.trainable, { learningRate: settings.learningRate });
    this.optimizer.learningRate = settings.learningRate;
    const rows = [...pairs.map((p) => ({ prompt: p.prompt, tokens: p.chosen })), ...pairs.map((p) => ({ prompt: p.prompt, tokens: p.rejected }))];
    const n = pairs.length;
    const result = await clippedStep(this.optimizer, this.trainable, () => {
      const rewards = this.rewards(rows);
      const [chosen, rejected] = [rewards.slice(0, n), rewards.slice(n, n)];
      return {
        loss: bradleyTerryLoss(chosen, rejected, settings.margin, settings.centerRewardsCoefficient),
        accuracy: chosen.greater(rejected).cast('float32').mean() as tf.Scalar,
        margin: chosen.sub(rejected).mean() as tf.Scalar,
      };
    }, settings.gradClip);
    return { loss: result.values.loss, accuracy: result.values.accuracy, margin: result.values.margin, gradNorm: result.gradNorm, skipped: result.skipped, reason: result.reason };
  }

  /** Share of pairs whose chosen program scores higher, and the mean difference. */
  async evaluate(pairs: readonly TokenPair[]): Promise<{ n: number; accuracy: number; margin: number }> {
    const chosen = await this.score(pairs.map((p) => ({ prompt: p.prompt, tokens: p.chosen })));
    const rejected = await this.score(pairs.map((p) => ({ prompt: p.prompt, tokens: p.rejected })));
    const n = pairs.length;
    return {
      n,
      accuracy: chosen.filter((c, i) => c > rejected[i]).length / Math.max(1, n),
      margin: chosen.reduce((sum, c, i) => sum + c - rejected[i], 0) / Math.max(1, n),
    };
  }

  getWeights(): WeightArray[] {
    return [...this.trunk.getWeights(), ...[this.headW, this.headB].map((v) => ({ name: v.name.slice(this.trunk.prefix.length + 1), shape: [...v.shape], data: v.dataSync() as Float32Array }))];
  }

  /** Trunk weights (a policy's, to start from) and, when given, the head's. */
  setWeights(weights: readonly WeightArray[]): void {
    const head = new Map(weights.filter((w) => w.name.startsWith('rm/')).map((w) => [w.name, w]));
    this.trunk.setWeights(weights.filter((w) => !w.name.startsWith('rm/')));
    for (const [variable, name] of [[this.headW, 'rm/head/w'], [this.headB, 'rm/head/b']] as const) {
      const weight = head.get(name);
      if (!weight) continue;
      if (weight.shape.join(',') !== variable.shape.join(',')) throw new Error(`reward model weight ${name} has shape [${weight.shape}], the model needs [${variable.shape}]`);
      tf.tidy(() => variable.assign(tf.tensor(weight.data, weight.shape)));
    }
  }

  /** The reward model as a lab checkpoint (the run's config, `extra.rewardModel`). */
  save(meta: Pick<CheckpointMeta, 'config' | 'vocab'> & { step: number; extra?: Record<string, unknown> }): Promise<Uint8Array> {
    return encodeCheckpoint(
      { config: meta.config, step: meta.step, rngState: new Rng(meta.config.run.seed).state(), vocab: meta.vocab, extra: { ...meta.extra, rewardModel: true } },
      this.getWeights().map((w) => ({ ...w, group: 'weights' as const, dtype: 'float32' as const })),
    );
  }

  /** A reward model from its file; a checkpoint that is not one (a policy's) is refused with that said. */
  static async load(bytes: Uint8Array, policyConfig: (config: CheckpointMeta['config']) => PolicyConfig): Promise<{ model: RewardModel; meta: CheckpointMeta }> {
    const { meta, tensors } = await decodeCheckpoint(bytes);
    if (!(meta.extra as { rewardModel?: boolean } | undefined)?.rewardModel) throw new Error('this checkpoint is a policy, not a reward model (make one with `npm run train-reward-model`)');
    const model = new RewardModel(policyConfig(meta.config), meta.config.run.seed);
    try {
      model.setWeights(tensorArrays(tensors, 'weights'));
    } catch (error) {
      model.dispose();
      throw error;
    }
    return { model, meta };
  }

  dispose(): void {
    this.optimizer?.dispose();
    tf.dispose([this.headW, this.headB]);
    this.trunk.dispose();
  }
}
