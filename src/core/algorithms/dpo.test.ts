/** DPO against hand-computed values on tiny tensors, and on a toy preference it must learn. */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { TransformerPolicy } from '../model/transformer';
import { Dpo, dpoLoss, pairLogProbs, pairsFromEpisodes, scorePreferences, type TokenPair } from './dpo';
import type { Episode } from './reinforce';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const t = (values: number[]) => tf.tensor1d(values);
const logSigmoid = (x: number) => -Math.log1p(Math.exp(-x));

describe('DPO loss', () => {
  // Two pairs: policy log-probs chosen [-1, -2], rejected [-3, -1]; reference chosen [-2, -2], rejected [-2, -2].
  // h = (pc - pr) - (qc - qr) = [2, -1]; with beta 0.5: beta h = [1, -0.5].
  const inputs = () => [t([-1, -2]), t([-3, -1]), t([-2, -2]), t([-2, -2])] as const;

  it('sigmoid: -log sigmoid(beta h), the implicit rewards beta (p - q)', () => {
    const { loss, chosen, rejected } = dpoLoss(...inputs(), 0.5, 'sigmoid');
    expect(loss.dataSync()[0]).toBeCloseTo(-(logSigmoid(1) + logSigmoid(-0.5)) / 2, 6);
    expect([...chosen.dataSync()]).toEqual([0.5, 0]);
    expect([...rejected.dataSync()]).toEqual([-0.5, 0.5]);
  });

  it('hinge: max(0, 1 - beta h)', () => {
    expect(dpoLoss(...inputs(), 0.5, 'hinge').loss.dataSync()[0]).toBeCloseTo((0 + 1.5) / 2, 6);
  });

  it('ipo: (h - 1 / (2 beta))^2', () => {
    expect(dpoLoss(...inputs(), 0.5, 'ipo').loss.dataSync()[0]).toBeCloseTo(((2 - 1) ** 2 + (-1 - 1) ** 2) / 2, 6);
  });

  it('ipo compares programs by their mean log-probability per token, as TRL (in training and in eval --preferences); the others by the sum', async () => {
    const grammar = new ToyGrammar();
    const config = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
    const policy = new TransformerPolicy(config, 3);
    const reference = new TransformerPolicy(config, 4);
    const pairs: TokenPair[] = [{ prompt: [TOY.BOS, 6], chosen: [TOY.A, TOY.EOL, TOY.DONE], rejected: [TOY.B, TOY.EOL, TOY.A, TOY.EOL, TOY.DONE] }];
    const summed = await pairLogProbs(policy, grammar, pairs);
    const perToken = await pairLogProbs(policy, grammar, pairs, true);
    expect(perToken.chosen[0]).toBeCloseTo(summed.chosen[0] / 3, 6);
    expect(perToken.rejected[0]).toBeCloseTo(summed.rejected[0] / 5, 6);
    const q = await pairLogProbs(reference, grammar, pairs, true);
    const h = perToken.chosen[0] - perToken.rejected[0] - (q.chosen[0] - q.rejected[0]);
    expect((await scorePreferences(policy, reference, grammar, pairs, 0.5, { perToken: true }))['rewards/margins']).toBeCloseTo(0.5 * h, 5);
    const settings = { learningRate: 0.01, gradClip: 1, beta: 0.5, gradientAccumulationSteps: 1 };
    const start = policy.getWeights();
    for (const dpoLossType of ['ipo', 'sigmoid'] as const) {
      policy.setWeights(start); // each from the same weights
      const dpo = new Dpo(policy, grammar, { ...settings, dpoLossType }, reference);
      const stats = await dpo.stepPairs(pairs);
      dpo.dispose();
      if (dpoLossType === 'ipo') expect(stats.loss).toBeCloseTo((h - 1) ** 2, 5);
      expect(stats['logps/chosen']).toBeCloseTo(dpoLossType === 'ipo' ? summed.chosen[0] / 3 : summed.chosen[0], 5);
    }
    policy.dispose();
    reference.dispose();
  });

  it('a policy equal to its reference has loss log 2 and margin 0', async () => {
    const grammar = new ToyGrammar();
    const config = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
    const policy = new TransformerPolicy(config, 3);
    const reference = new TransformerPolicy(config, 3);
    reference.setWeights(policy.getWeights());
    const pairs: TokenPair[] = [{ prompt: [TOY.BOS, 6], chosen: [TOY.A, TOY.EOL, TOY.DONE], rejected: [TOY.B, TOY.EOL, TOY.A, TOY.EOL, TOY.DONE] }];
    const scored = await scorePreferences(policy, reference, grammar, pairs, 0.1);
    expect(scored['rewards/margins']).toBe(0);
    expect(scored['rewards/accuracies']).toBe(0); // a tie is not a win
    const dpo = new Dpo(policy, grammar, { learningRate: 0.01, gradClip: 1, beta: 0.1, dpoLossType: 'sigmoid', gradientAccumulationSteps: 1 }, reference);
    const stats = await dpo.stepPairs(pairs);
    expect(stats.loss).toBeCloseTo(Math.LN2, 6);
    expect(stats['rewards/margins']).toBeCloseTo(0, 6);
    dpo.dispose();
    policy.dispose();
    reference.dispose();
  });
});

describe('DPO pairs from samples', () => {
  const episode = (tokens: number[], reward: number, group: number, correct?: boolean): Episode => ({ prompt: [TOY.BOS, 6 + group], tokens, lineEnds: [], reward, group, correct });

  it('per group: the best correct program over the worst one it beats; groups without such a pair give none', () => {
    const pairs = pairsFromEpisodes([
      episode([2], 0.9, 0, true), episode([3], 0, 0, false), episode([4], 0.5, 0, false),
      episode([2], 0, 1, false), episode([3], 0, 1, false), // all equal: nothing to prefer
      episode([2], 0.4, 2, false), episode([3], 0, 2, false), // the best is wrong: no pair
      episode([5], 0.99, 3, true), episode([2, 2], 0.98, 3, true), // two correct ones: the better (Kolmogorov: shorter) wins
    ]);
    expect(pairs).toEqual([
      { prompt: [TOY.BOS, 6], chosen: [2], rejected: [3] },
      { prompt: [TOY.BOS, 9], chosen: [5], rejected: [2, 2] },
    ]);
  });
});

describe('DPO learning', () => {
  it('learns a separable preference (one line over two) and generalises it to prompts it never trained on', async () => {
    const grammar = new ToyGrammar();
    const config = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
    const policy = new TransformerPolicy(config, 5);
    const reference = new TransformerPolicy(config, 5);
    reference.setWeights(policy.getWeights());
    // Shorter programs are preferred, whatever their token: prompts 6 and 7 train, 8 and 9 test.
    const pair = (p: number, a: number, b: number): TokenPair => ({ prompt: [TOY.BOS, p], chosen: [a, TOY.EOL, TOY.DONE], rejected: [a, TOY.EOL, b, TOY.EOL, TOY.DONE] });
    const train = [pair(6, TOY.A, TOY.B), pair(7, TOY.B, TOY.A), pair(6, TOY.B, TOY.B), pair(7, TOY.A, TOY.A)];
    const heldOut = [pair(8, TOY.A, TOY.A), pair(9, TOY.B, TOY.A), pair(8, TOY.B, TOY.B), pair(9, TOY.A, TOY.B)];
    const dpo = new Dpo(policy, grammar, { learningRate: 0.01, gradClip: 1, beta: 0.1, dpoLossType: 'sigmoid', gradientAccumulationSteps: 1 }, reference);
    const before = tf.memory().numTensors;
    let first = NaN;
    let last = NaN;
    for (let i = 0; i < 40; i++) {
      const stats = await dpo.stepPairs(train);
      if (i === 0) first = stats.loss;
      last = stats.loss;
    }
    expect(tf.memory().numTensors).toBe(before); // nothing leaks per update
    expect(last).toBeLessThan(first * 0.5);
    const scored = await scorePreferences(policy, reference, grammar, heldOut, 0.1);
    expect(scored['rewards/accuracies']).toBe(1);
    expect(scored['rewards/margins']).toBeGreaterThan(0);
    dpo.dispose();
    policy.dispose();
    reference.dispose();
  });
});
