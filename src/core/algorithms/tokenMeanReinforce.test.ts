import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { sampleBatch } from '../model/sampler';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { TransformerPolicy } from '../model/transformer';
import { buildSequenceBatch, disposeBatch, programLogProbs } from '../model/training';
import { TokenMeanReinforce, advantages, defaultTokenMeanReinforceConfig } from './tokenMeanReinforce';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const config = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
const grammar = new ToyGrammar();
const prompt = [TOY.BOS, 6];

async function probability(policy: TransformerPolicy, tokens: number[]): Promise<number> {
  const batch = buildSequenceBatch([{ prompt, tokens }], grammar, config.context);
  const logProb = tf.tidy(() => programLogProbs(policy, batch).mul(tf.oneHot(batch.targets, TOY.vocabSize)).sum());
  const value = (await logProb.data())[0];
  logProb.dispose();
  disposeBatch(batch);
  return Math.exp(value);
}

describe('digit REINFORCE (per-token normalised log-probs, EMA baseline)', () => {
  it('moves the baseline as an EMA of the batch mean reward, after using it, starting at the first mean', async () => {
    const policy = new TransformerPolicy(config, 1);
    const algorithm = new TokenMeanReinforce(policy, grammar, { ...defaultTokenMeanReinforceConfig, baselineMomentum: 0.5 });
    const episode = (reward: number) => ({ prompt, tokens: [TOY.A, TOY.EOL, TOY.DONE], reward });
    const first = await algorithm.step([episode(-1), episode(-1), episode(-1), episode(1)]);
    expect(first.baseline).toBe(-0.5);
    expect(algorithm.baseline).toBeCloseTo(-0.5);
    const second = await algorithm.step([episode(1), episode(1)]);
    expect(second.baseline).toBeCloseTo(-0.5);
    expect(second.meanReward).toBe(1);
    expect(algorithm.baseline).toBeCloseTo(0.25);
    algorithm.dispose();
    policy.dispose();
  });

  it('with groups, measures each answer against the mean reward of its own group, not the EMA', async () => {
    expect(advantages([1, -1, -1, -1, 1, 1, 1, 1], 0.3, 4)).toEqual([1.5, -0.5, -0.5, -0.5, 0, 0, 0, 0]);
    expect(advantages([1, -1], 0.5, 1)).toEqual([0.5, -1.5]);
    expect(() => advantages([1, 1, 1], 0, 2)).toThrow('cannot form groups of 2');
    const policy = new TransformerPolicy(config, 3);
    const algorithm = new TokenMeanReinforce(policy, grammar, { ...defaultTokenMeanReinforceConfig, learningRate: 1e-9, groupSize: 2 });
    const a = [TOY.A, TOY.EOL, TOY.DONE];
    const b = [TOY.B, TOY.EOL, TOY.A, TOY.EOL, TOY.DONE];
    algorithm.baseline = 0.9; // ignored with groups
    // Group 1: rewards 1 and -1 (advantages 1, -1); group 2: both right (advantages 0).
    const expected = -((1 * Math.log(await probability(policy, a))) / 3 + (-1 * Math.log(await probability(policy, b))) / 5) / 4;
    const episodes = [{ tokens: a, reward: 1 }, { tokens: b, reward: -1 }, { tokens: a, reward: 1 }, { tokens: b, reward: 1 }].map((e) => ({ prompt, ...e }));
    expect((await algorithm.step(episodes)).loss).toBeCloseTo(expected, 4);
    algorithm.dispose();
    policy.dispose();
  });

  it('the loss is -mean[(r - b) * mean_t log p]: checked against the log-probs by hand', async () => {
    const policy = new TransformerPolicy(config, 2);
    const algorithm = new TokenMeanReinforce(policy, grammar, { ...defaultTokenMeanReinforceConfig, learningRate: 1e-9 });
    const a = [TOY.A, TOY.EOL, TOY.DONE];
    const b = [TOY.B, TOY.EOL, TOY.A, TOY.EOL, TOY.DONE];
    algorithm.baseline = 0.5;
    const expected = -((0.5 * Math.log(await probability(policy, a))) / 3 + (-1.5 * Math.log(await probability(policy, b))) / 5) / 2;
    const stats = await algorithm.step([{ prompt, tokens: a, reward: 1 }, { prompt, tokens: b, reward: -1 }]);
    expect(stats.loss).toBeCloseTo(expected, 4);
    algorithm.dispose();
    policy.dispose();
  });

  it('weights each token by min(1, p / mu) of the sampler: 1 on-policy (loss unchanged), p / mu where the policy moved away', async () => {
    const policy = new TransformerPolicy(config, 5);
    const episodes = (await sampleBatch(policy, grammar, Array(6).fill(prompt), { maxTokens: 8, temperature: 1, rng: new Rng(5) })).map((s, i) => ({
      prompt,
      tokens: s.tokens,
      logProbs: s.logProbs,
      reward: i % 2 ? 1 : -1,
    }));
    const lossWith = async (behaviour: (logProbs: number[]) => number[] | undefined) => {
      const algorithm = new TokenMeanReinforce(policy, grammar, { ...defaultTokenMeanReinforceConfig, learningRate: 1e-9 });
      algorithm.baseline = 0.25;
      const stats = await algorithm.step(episodes.map((e) => ({ prompt, tokens: e.tokens, reward: e.reward, behaviourLogProbs: behaviour(e.logProbs) })));
      algorithm.dispose();
      return stats;
    };
    const plain = await lossWith(() => undefined);
    const onPolicy = await lossWith((logProbs) => logProbs);
    expect(plain.importanceWeight).toBe(1);
    expect(onPolicy.importanceWeight).toBeCloseTo(1, 4);
    expect(onPolicy.loss).toBeCloseTo(plain.loss, 5);
    // The sampler gave every token 4x the probability the policy gives it now: weight 1/4.
    const movedAway = await lossWith((logProbs) => logProbs.map((l) => l + Math.log(4)));
    expect(movedAway.importanceWeight).toBeCloseTo(0.25, 4);
    expect(movedAway.loss).toBeCloseTo(plain.loss / 4, 5);
    // Tokens the policy now likes more than the sampler did are not weighted up (truncated at 1).
    const movedCloser = await lossWith((logProbs) => logProbs.map((l) => l - Math.log(4)));
    expect(movedCloser.importanceWeight).toBeCloseTo(1, 4);
    expect(movedCloser.loss).toBeCloseTo(plain.loss, 5);
    await expect(lossWith((logProbs) => logProbs.slice(1))).rejects.toThrow(/behaviour log-probs for/);
    policy.dispose();
  });

  it('learns to prefer the rewarded answer', async () => {
    const policy = new TransformerPolicy(config, 3);
    const algorithm = new TokenMeanReinforce(policy, grammar, { ...defaultTokenMeanReinforceConfig, learningRate: 0.01 });
    const rewarded = [TOY.B, TOY.EOL, TOY.DONE];
    const before = await probability(policy, rewarded);
    const rng = new Rng(3);
    for (let step = 0; step < 15; step++) {
      const samples = await sampleBatch(policy, grammar, Array(16).fill(prompt), { maxTokens: 8, temperature: 1, rng });
      await algorithm.step(samples.map((s) => ({ prompt, tokens: s.tokens, reward: s.tokens[0] === TOY.B ? 1 : -1 })));
    }
    expect(await probability(policy, rewarded)).toBeGreaterThan(before + 0.2);
    algorithm.dispose();
    policy.dispose();
  });

  it('skips a non-finite update and keeps the tensor count flat', async () => {
    const policy = new TransformerPolicy(config, 4);
    const algorithm = new TokenMeanReinforce(policy, grammar, { ...defaultTokenMeanReinforceConfig, learningRate: 0.001 });
    const skipped = await algorithm.step([{ prompt, tokens: [TOY.A, TOY.EOL, TOY.DONE], reward: Number.NaN }]);
    expect(skipped.skipped).toBe(true);
    expect(algorithm.baseline).toBeUndefined();
    const rng = new Rng(4);
    const run = async () => {
      const samples = await sampleBatch(policy, grammar, Array(8).fill(prompt), { maxTokens: 8, temperature: 1, rng });
      await algorithm.step(samples.map((s) => ({ prompt, tokens: s.tokens, reward: s.tokens.length % 2 ? 1 : -1 })));
    };
    for (let i = 0; i < 3; i++) await run();
    const count = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) await run();
    expect(tf.memory().numTensors).toBe(count);
    algorithm.dispose();
    policy.dispose();
  });
});
