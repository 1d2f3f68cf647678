/**
 * Supervised warm start: cross-entropy on the program tokens of (prompt, program) pairs, under
 * the grammar mask, so no probability is spent on tokens the grammar forbids. The KoLMogorov
 * Test trained its SeqCoder models this way on synthetic pairs; RL then starts from here.
 */
import * as tf from '@tensorflow/tfjs-core';
import { applyShardedStep, balancedParts, ShardError, type GradientShard, type SummedGradients } from '../gradientShards';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { buildSequenceBatch, clippedStep, disposeBatch, programLogProbs, takenLogProbs, type SequenceBatch, type SequencePair } from '../model/training';
import type { TransformerPolicy } from '../model/transformer';

export interface SupervisedConfig {
  learningRate: number;
  gradClip: number;
}

export const defaultSupervisedConfig: SupervisedConfig = { learningRate: 1e-3, gradClip: 1 };

export interface SupervisedStats {
  loss: number;
  /** Share of program tokens the policy's argmax got right (teacher forcing). */
  tokenAccuracy: number;
  /** Threads that computed the gradients: 1 + the gradient shards the batch was split with. */
  threads: number;
  skipped: boolean;
  reason?: string;
}

/** Cross-entropy and correctly predicted tokens of a batch, summed over its program tokens. */
function summedTerms(policy: TransformerPolicy, batch: SequenceBatch): { loss: tf.Scalar; correct: tf.Scalar } {
  const logProbs = programLogProbs(policy, batch); // [B, P, V]
  const loss = takenLogProbs(logProbs, batch).mul(batch.tokenMask).sum().neg() as tf.Scalar;
  const correct = logProbs.argMax(2).equal(batch.targets).cast('float32').mul(batch.tokenMask).sum() as tf.Scalar;
  return { loss, correct };
}

/** Summed cross-entropy (`loss`), correctly predicted tokens (`correct`) and the gradients on `pairs` (the unit of data-parallel work). */
export function summedGradients<S>(policy: TransformerPolicy, grammar: Grammar<S>, pairs: readonly SequencePair[]): SummedGradients {
  const batch = buildSequenceBatch(pairs, grammar, policy.config.context);
  try {
    let correct: tf.Scalar | null = null;
    const { value, grads } = tf.variableGrads(() => {
      const sums = summedTerms(policy, batch);
      correct = tf.keep(sums.correct);
      return sums.loss;
    }, policy.variables);
    const sums = { loss: value.dataSync()[0], correct: correct!.dataSync()[0] };
    tf.dispose([value, correct!]);
    return { sums, tokens: batch.tokenCount, grads: policy.variables.map((v) => grads[v.name]) };
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
    private shards: readonly GradientShard[] = [],
  ) {
    this.optimizer = new Adam(policy.variables, { learningRate: config.learningRate });
  }

  private onShardFailure?: (message: string) => void;

  /**
   * Splits the next steps with these shards ([]: this thread alone); the optimizer's state is
   * kept. A shard that fails is dropped, its step redone on this thread, and `onFailure` told.
   */
  useShards(shards: readonly GradientShard[], onFailure?: (message: string) => void): void {
    this.shards = shards;
    this.onShardFailure = onFailure;
  }

  /** Mean cross-entropy and token accuracy per program token. */
  private terms(batch: SequenceBatch) {
    const sums = summedTerms(this.policy, batch);
    return { loss: sums.loss.div(batch.tokenCount) as tf.Scalar, tokenAccuracy: sums.correct.div(batch.tokenCount) as tf.Scalar };
  }

  async step(pairs: readonly SequencePair[]): Promise<SupervisedStats> {
    if (this.shards.length > 0 && pairs.length > this.shards.length) {
      try {
        return await this.parallelStep(pairs);
      } catch (error) {
        if (!(error instanceof ShardError)) throw error;
        this.shards = []; // the weights did not change: the same batch again, on this thread alone
        this.onShardFailure?.(error.message);
      }
    }
    const batch = buildSequenceBatch(pairs, this.grammar, this.policy.config.context);
    try {
      const result = await clippedStep(this.optimizer, this.policy.variables, () => this.terms(batch), this.config.gradClip);
      return { loss: result.values.loss, tokenAccuracy: result.values.tokenAccuracy, threads: 1, skipped: result.skipped, reason: result.reason };
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
    const [mine, ...theirs] = balancedParts(pairs, this.shards.length).map((part) => part.map((i) => pairs[i]));
    const weights = this.policy.getWeights();
    const remote = theirs.map((part, i) => this.shards[i].compute(weights, part));
    const { sums, applied } = await applyShardedStep(this.optimizer, remote, () => summedGradients(this.policy, this.grammar, mine), this.config.gradClip);
    return { loss: sums.loss, tokenAccuracy: sums.correct, threads: 1 + remote.length, skipped: applied.skipped, reason: applied.reason };
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
