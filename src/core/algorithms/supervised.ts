/**
 * Supervised warm start: cross-entropy on the program tokens of (prompt, program) pairs, under
 * the grammar mask, so no probability is spent on tokens the grammar forbids. The KoLMogorov
 * Test trained its SeqCoder models this way on synthetic pairs; RL then starts from here.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { applyClipped, buildSequenceBatch, clippedStep, disposeBatch, programLogProbs, takenLogProbs, type SequenceBatch, type SequencePair } from '../model/training';
import type { TransformerPolicy, WeightArray } from '../model/transformer';

export interface SupervisedConfig {
  learningRate: number;
  gradClip: number;
}

export const defaultSupervisedConfig: SupervisedConfig = { learningRate: 1e-3, gradClip: 1 };

export interface SupervisedStats {
  loss: number;
  /** Share of program tokens the policy's argmax got right (teacher forcing). */
  tokenAccuracy: number;
  skipped: boolean;
  reason?: string;
}

/** Summed (not averaged) loss terms and gradients of part of a batch. */
export interface ShardGradients {
  lossSum: number;
  correctSum: number;
  tokens: number;
  /** One per policy variable, in the policy's order. */
  grads: Float32Array[];
}

/**
 * Computes a part of a batch's gradients with the given weights somewhere else: a worker
 * thread in Node (src/cli/gradientHost.ts). tfjs-wasm runs one thread per engine, so a second
 * engine in a worker is how training uses a second core (data parallelism).
 */
export interface GradientShard {
  compute(weights: WeightArray[], pairs: readonly SequencePair[]): Promise<ShardGradients>;
}

/** Cross-entropy and correctly predicted tokens of a batch, summed over its program tokens. */
function summedTerms(policy: TransformerPolicy, batch: SequenceBatch): { loss: tf.Scalar; correct: tf.Scalar } {
  const logProbs = programLogProbs(policy, batch); // [B, P, V]
  const loss = takenLogProbs(logProbs, batch).mul(batch.tokenMask).sum().neg() as tf.Scalar;
  const correct = logProbs.argMax(2).equal(batch.targets).cast('float32').mul(batch.tokenMask).sum() as tf.Scalar;
  return { loss, correct };
}

/** Summed cross-entropy and its gradients on `pairs` (the unit of data-parallel work). */
export function summedGradients<S>(policy: TransformerPolicy, grammar: Grammar<S>, pairs: readonly SequencePair[]): { lossSum: number; correctSum: number; tokens: number; grads: tf.Tensor[] } {
  const batch = buildSequenceBatch(pairs, grammar, policy.config.context);
  try {
    let correct: tf.Scalar | null = null;
    const { value, grads } = tf.variableGrads(() => {
      const sums = summedTerms(policy, batch);
      correct = tf.keep(sums.correct);
      return sums.loss;
    }, policy.variables);
    const lossSum = value.dataSync()[0];
    const correctSum = correct!.dataSync()[0];
    tf.dispose([value, correct!]);
    return { lossSum, correctSum, tokens: batch.tokenCount, grads: policy.variables.map((v) => grads[v.name]) };
  } finally {
    disposeBatch(batch);
  }
}

export class SupervisedTrainer<S = unknown> {
  readonly optimizer: Adam;

  /** With shards, each step splits its batch between this thread and them (data parallelism). */
  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: SupervisedConfig = defaultSupervisedConfig,
    private readonly shards: readonly GradientShard[] = [],
  ) {
    this.optimizer = new Adam(policy.variables, { learningRate: config.learningRate });
  }

  /** Mean cross-entropy and token accuracy per program token. */
  private terms(batch: SequenceBatch) {
    const sums = summedTerms(this.policy, batch);
    return { loss: sums.loss.div(batch.tokenCount) as tf.Scalar, tokenAccuracy: sums.correct.div(batch.tokenCount) as tf.Scalar };
  }

  async step(pairs: readonly SequencePair[]): Promise<SupervisedStats> {
    if (this.shards.length > 0 && pairs.length > this.shards.length) return this.parallelStep(pairs);
    const batch = buildSequenceBatch(pairs, this.grammar, this.policy.config.context);
    try {
      const result = await clippedStep(this.optimizer, this.policy.variables, () => this.terms(batch), this.config.gradClip);
      return { loss: result.values.loss, tokenAccuracy: result.values.tokenAccuracy, skipped: result.skipped, reason: result.reason };
    } finally {
      disposeBatch(batch);
    }
  }

  /**
   * The same update as step(), with the batch split in equal parts: the shards compute theirs
   * from a copy of the current weights while this thread computes its own; the summed
   * gradients are divided by the batch's token count, exactly as the one-thread loss does.
   */
  private async parallelStep(pairs: readonly SequencePair[]): Promise<SupervisedStats> {
    const size = Math.ceil(pairs.length / (this.shards.length + 1));
    const weights = this.policy.getWeights();
    const remote = this.shards
      .map((shard, i) => ({ shard, part: pairs.slice((i + 1) * size, (i + 2) * size) }))
      .filter(({ part }) => part.length > 0)
      .map(({ shard, part }) => shard.compute(weights, part));
    const local = summedGradients(this.policy, this.grammar, pairs.slice(0, size));
    const results = await Promise.all(remote);
    const tokens = local.tokens + results.reduce((sum, r) => sum + r.tokens, 0);
    const loss = (local.lossSum + results.reduce((sum, r) => sum + r.lossSum, 0)) / tokens;
    const tokenAccuracy = (local.correctSum + results.reduce((sum, r) => sum + r.correctSum, 0)) / tokens;
    const total = tf.tidy(() =>
      local.grads.map((grad, v) => results.reduce((acc, r) => acc.add(tf.tensor(r.grads[v], grad.shape)), grad).div(tokens)),
    );
    try {
      const applied = await applyClipped(this.optimizer, total, loss, this.config.gradClip);
      return { loss, tokenAccuracy, skipped: applied.skipped, reason: applied.reason };
    } finally {
      tf.dispose([...total, ...local.grads]);
    }
  }

  /** Mean cross-entropy per program token, without updating (held-out loss). */
  async loss(pairs: readonly SequencePair[], batchSize = 32): Promise<number> {
    let total = 0;
    let tokens = 0;
    for (let i = 0; i < pairs.length; i += batchSize) {
      const part = pairs.slice(i, i + batchSize);
      const batch = buildSequenceBatch(part, this.grammar, this.policy.config.context);
      const value = tf.tidy(() => this.terms(batch).loss);
      total += (await value.data())[0] * batch.tokenCount;
      tokens += batch.tokenCount;
      value.dispose();
      disposeBatch(batch);
    }
    return tokens ? total / tokens : 0;
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}
