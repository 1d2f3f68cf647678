/** GRPO and RLOO against hand-computed values on tiny tensors (src/cli/groupAlgorithms.test.ts runs them through the one loop). */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { grpoAdvantages, grpoLoss } from './grpo';
import { leaveOneOutAdvantages, rlooLoss } from './rloo';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const rewards = [{ reward: 1, group: 0 }, { reward: 0, group: 0 }, { reward: 2, group: 1 }, { reward: 2, group: 1 }];
const close = (actual: readonly number[], expected: readonly number[]) => actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i], 5));

describe('GRPO', () => {
  it('advantages: reward minus the group mean, over the group std (unbiased, +1e-4), the batch std, or not scaled', () => {
    close(grpoAdvantages(rewards, 'none'), [0.5, -0.5, 0, 0]);
    close(grpoAdvantages(rewards, 'group'), [0.5 / (Math.SQRT1_2 + 1e-4), -0.5 / (Math.SQRT1_2 + 1e-4), 0, 0]);
    const batchStd = Math.sqrt(2.75 / 3);
    close(grpoAdvantages(rewards, 'batch'), [0.5 / (batchStd + 1e-4), -0.5 / (batchStd + 1e-4), 0, 0]);
  });

  // Two programs: [p .5, .5] sampled at [.25, .5] with advantage 1, and [.25] (one token) with -1.
  const tensors = () => ({
    logProbs: tf.tensor2d([[Math.log(0.5), Math.log(0.5)], [Math.log(0.25), 0]]),
    old: tf.tensor2d([[Math.log(0.25), Math.log(0.5)], [Math.log(0.25), 0]]),
    reference: tf.tensor2d([[Math.log(0.5), Math.log(0.25)], [Math.log(0.5), -1e9]]),
    advantages: tf.tensor1d([1, -1]),
    mask: tf.tensor2d([[1, 1], [1, 0]]),
  });
  const settings = { beta: 0, epsilon: 0.2, epsilonHigh: 0.2 };

  it('the clipped loss per loss_type: per program then over programs, over batch x max tokens, over all tokens', () => {
    // Token losses: ratio 2 clipped to 1.2 -> -1.2; ratio 1 -> -1; ratio 1 with advantage -1 -> +1.
    const t = tensors();
    const value = (lossType: 'grpo' | 'dr_grpo' | 'dapo') => grpoLoss(t.logProbs, t.old, null, t.advantages, t.mask, { ...settings, lossType }, 4);
    expect(value('grpo').loss.dataSync()[0]).toBeCloseTo(((-1.2 - 1) / 2 + 1) / 2, 6);
    expect(value('dr_grpo').loss.dataSync()[0]).toBeCloseTo((-1.2 - 1 + 1) / (2 * 4), 6);
    const dapo = value('dapo');
    expect(dapo.loss.dataSync()[0]).toBeCloseTo((-1.2 - 1 + 1) / 3, 6);
    expect(dapo.clipRatio.dataSync()[0]).toBeCloseTo(1 / 3, 6);
    expect(dapo.kl.dataSync()[0]).toBe(0);
  });

  it('clip-higher: epsilonHigh above epsilon lets a rising ratio go further', () => {
    const t = tensors();
    const loss = grpoLoss(t.logProbs, t.old, null, t.advantages, t.mask, { ...settings, epsilonHigh: 1.5, lossType: 'dapo' }, 4);
    expect(loss.loss.dataSync()[0]).toBeCloseTo((-2 - 1 + 1) / 3, 6);
    expect(loss.clipRatio.dataSync()[0]).toBe(0);
  });

  it('beta adds the k3 KL to the reference, exp(q - p) - (q - p) - 1 per token (padding ignored)', () => {
    const t = tensors();
    const k3 = (d: number) => Math.exp(d) - d - 1;
    const kls = [k3(0), k3(Math.log(0.5)), k3(Math.log(2))];
    const loss = grpoLoss(t.logProbs, t.old, t.reference, t.advantages, t.mask, { ...settings, beta: 0.1, lossType: 'dapo' }, 4);
    expect(loss.kl.dataSync()[0]).toBeCloseTo((kls[0] + kls[1] + kls[2]) / 3, 6);
    expect(loss.loss.dataSync()[0]).toBeCloseTo((-1.2 + (-1 + 0.1 * kls[1]) + (1 + 0.1 * kls[2])) / 3, 6);
  });
});

describe('RLOO', () => {
  it('each program\'s baseline is the mean of the others of its group; a group of one has advantage 0', () => {
    const episodes = [{ reward: 1, group: 0 }, { reward: 0, group: 0 }, { reward: 2, group: 0 }, { reward: 5, group: 1 }];
    close(leaveOneOutAdvantages(episodes), [0, -1.5, 1.5, 0]);
    // With the KL folded in, the shaped rewards are what is compared.
    close(leaveOneOutAdvantages(episodes, [1, 0, 1, 5]), [0.5, -1, 0.5, 0]);
  });

  it('the loss is minus the mean of advantage x the program\'s summed log-probability', () => {
    const loss = rlooLoss(tf.tensor2d([[Math.log(0.5), Math.log(0.5)], [Math.log(0.25), -1e9]]), tf.tensor1d([1, -2]), tf.tensor2d([[1, 1], [1, 0]]));
    expect(loss.dataSync()[0]).toBeCloseTo(-(2 * Math.log(0.5) * 1 + Math.log(0.25) * -2) / 2, 5);
  });
});
