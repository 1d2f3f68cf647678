/** The reward model's Bradley-Terry loss on hand-computed values, and a toy preference it must learn and generalise. */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config';
import { TOY } from '../model/testGrammar';
import { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import { decodeCheckpoint, encodeCheckpoint, tensorArrays } from '../checkpoint';
import type { TokenPair } from './dpo';
import { RewardModel, bradleyTerryLoss, defaultRewardModelSettings } from './rewardModel';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const softplus = (x: number) => Math.log1p(Math.exp(x));
const config = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };

describe('Bradley-Terry loss', () => {
  it('is -log sigmoid(r_c - r_r - margin), plus the centring term', () => {
    const chosen = tf.tensor1d([1, 0]);
    const rejected = tf.tensor1d([0, 2]);
    expect(bradleyTerryLoss(chosen, rejected).dataSync()[0]).toBeCloseTo((softplus(-1) + softplus(2)) / 2, 6);
    expect(bradleyTerryLoss(chosen, rejected, 0.5).dataSync()[0]).toBeCloseTo((softplus(-0.5) + softplus(2.5)) / 2, 6);
    expect(bradleyTerryLoss(chosen, rejected, 0, 0.1).dataSync()[0]).toBeCloseTo((softplus(-1) + softplus(2)) / 2 + 0.1 * ((1 + 0) ** 2 + (0 + 2) ** 2) / 2, 6);
  });
});

describe('reward model', () => {
  // One line is preferred over two, whatever the tokens: prompts 6 and 7 train, 8 and 9 test.
  const pair = (p: number, a: number, b: number): TokenPair => ({ prompt: [TOY.BOS, p], chosen: [a, TOY.EOL, TOY.DONE], rejected: [a, TOY.EOL, b, TOY.EOL, TOY.DONE] });
  const train = [pair(6, TOY.A, TOY.B), pair(7, TOY.B, TOY.A), pair(6, TOY.B, TOY.B), pair(7, TOY.A, TOY.A)];
  const heldOut = [pair(8, TOY.A, TOY.A), pair(9, TOY.B, TOY.A), pair(8, TOY.B, TOY.B), pair(9, TOY.A, TOY.B)];

  it('learns a separable preference from a policy\'s trunk, and scores pairs it never saw', async () => {
    const start = new TransformerPolicy(config, 2);
    const model = new RewardModel(config, 2);
    model.setWeights(start.getWeights()); // the trunk starts from the policy; the head is new
    start.dispose();
    let first = NaN;
    let last = NaN;
    let afterFirst = 0;
    for (let i = 0; i < 60; i++) {
      const stats = await model.trainStep(train, { ...defaultRewardModelSettings, learningRate: 0.01 });
      if (i === 0) [first, afterFirst] = [stats.loss, tf.memory().numTensors];
      last = stats.loss;
    }
    expect(tf.memory().numTensors).toBe(afterFirst); // the optimizer's state is made once, nothing per update
    expect(first).toBeCloseTo(Math.LN2, 1);
    expect(last).toBeLessThan(0.2);
    const scored = await model.evaluate(heldOut);
    expect(scored).toMatchObject({ n: 4, accuracy: 1 });
    expect(scored.margin).toBeGreaterThan(0);
    model.dispose();
  });

  it('saves and loads as a checkpoint; a policy\'s checkpoint is refused as a reward model', async () => {
    const model = new RewardModel(config, 4);
    const meta = { config: defaultConfig(), step: 3, vocab: { name: 'toy', size: TOY.vocabSize } };
    const bytes = await model.save(meta);
    const { model: loaded } = await RewardModel.load(bytes, () => config);
    const rows = heldOut.map((p) => ({ prompt: p.prompt, tokens: p.chosen }));
    expect(await loaded.score(rows)).toEqual(await model.score(rows));
    const policy = new TransformerPolicy(config, 4);
    const policyFile = await encodeCheckpoint({ ...meta, rngState: new Rng(1).state() }, policy.getWeights().map((w) => ({ ...w, group: 'weights', dtype: 'float32' })));
    await expect(RewardModel.load(policyFile, () => config)).rejects.toThrow(/a policy, not a reward model/);
    // And the other way: a reward model's weights given to a policy say what they are.
    const { tensors } = await decodeCheckpoint(bytes);
    expect(() => policy.setWeights(tensorArrays(tensors, 'weights'))).toThrow(/a reward model's weights .* not a policy's/);
    [model, loaded, policy].forEach((m) => m.dispose());
  });
});
