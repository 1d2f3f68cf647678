/**
 * Supervised warm start: cross-entropy on the program tokens of (prompt, program) pairs, under
 * the grammar mask, so no probability is spent on tokens the grammar forbids. The KoLMogorov
 * Test trained its SeqCoder models this way on synthetic pairs; RL then starts from here.
 */
import * as tf from '@tensorflow/tfjs';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { buildSequenceBatch, clippedStep, disposeBatch, programLogProbs, takenLogProbs, type SequencePair } from '../model/training';
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
  skipped: boolean;
  reason?: string;
}

export class SupervisedTrainer<S = unknown> {
  readonly optimizer: Adam;

  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: SupervisedConfig = defaultSupervisedConfig,
  ) {
    this.optimizer = new Adam(policy.variables, { learningRate: config.learningRate });
  }

  private terms(pairs: readonly SequencePair[], batch: ReturnType<typeof buildSequenceBatch>) {
    const logProbs = programLogProbs(this.policy, batch); // [B, P, V]
    const taken = takenLogProbs(logProbs, batch); // [B, P]
    const loss = taken.mul(batch.tokenMask).sum().div(-batch.tokenCount) as tf.Scalar;
    const correct = logProbs.argMax(2).equal(batch.targets).cast('float32').mul(batch.tokenMask).sum().div(batch.tokenCount) as tf.Scalar;
    void pairs;
    return { loss, tokenAccuracy: correct };
  }

  async step(pairs: readonly SequencePair[]): Promise<SupervisedStats> {
    const batch = buildSequenceBatch(pairs, this.grammar, this.policy.config.context);
    try {
      const result = await clippedStep(this.optimizer, this.policy.variables, () => this.terms(pairs, batch), this.config.gradClip);
      return { loss: result.values.loss, tokenAccuracy: result.values.tokenAccuracy, skipped: result.skipped, reason: result.reason };
    } finally {
      disposeBatch(batch);
    }
  }

  /** Mean cross-entropy per program token, without updating (held-out loss). */
  async loss(pairs: readonly SequencePair[], batchSize = 32): Promise<number> {
    let total = 0;
    let tokens = 0;
    for (let i = 0; i < pairs.length; i += batchSize) {
      const part = pairs.slice(i, i + batchSize);
      const batch = buildSequenceBatch(part, this.grammar, this.policy.config.context);
      const value = tf.tidy(() => this.terms(part, batch).loss);
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
