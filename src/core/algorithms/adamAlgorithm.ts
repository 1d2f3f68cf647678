/**
 * What the algorithms with one Adam over the policy's weights and no state of their own between
 * batches (GRPO, RLOO, DPO) share: the optimizer, its state in checkpoints, and no baseline.
 */
import { Adam } from '../model/adam';
import type { TransformerPolicy, WeightArray } from '../model/transformer';

export abstract class AdamAlgorithm {
  readonly optimizer: Adam;
  /** These algorithms' baselines live within a batch (a group's mean, the other programs): none carries over. */
  readonly baseline = undefined;

  protected constructor(protected readonly policy: TransformerPolicy, learningRate: number) {
    this.optimizer = new Adam(policy.variables, { learningRate });
  }

  optimizerWeights(): WeightArray[] {
    return this.optimizer.getState(this.policy.weightNames());
  }

  setOptimizerWeights(state: readonly WeightArray[]): void {
    this.optimizer.setState(state, this.policy.weightNames());
  }

  setBaseline(): void {
    // nothing carries between batches
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}
