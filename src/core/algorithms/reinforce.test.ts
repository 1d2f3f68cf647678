import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { sampleBatch } from '../model/sampler';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { TransformerPolicy } from '../model/transformer';
import { buildSequenceBatch, disposeBatch, programLogProbs } from '../model/training';
import { Reinforce, advantages, defaultReinforceConfig, discountedLineReturns, type Episode } from './reinforce';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const config = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
const grammar = new ToyGrammar();
const prompt = [TOY.BOS, 6];

/** Probability of a whole program under the policy (product of its masked token probabilities). */
async function programProbability(policy: TransformerPolicy, tokens: number[]): Promise<number> {
  const batch = buildSequenceBatch([{ prompt, tokens }], grammar, config.context);
  const logProbs = tf.tidy(() => programLogProbs(policy, batch).mul(tf.oneHot(batch.targets, TOY.vocabSize)).sum());
  const value = (await logProbs.data())[0];
  logProbs.dispose();
  disposeBatch(batch);
  return Math.exp(value);
}

const short = [TOY.A, TOY.EOL, TOY.DONE];
const long = [TOY.A, TOY.EOL, TOY.A, TOY.EOL, TOY.DONE];

describe('REINFORCE', () => {
  it('discounts the reward over lines: earlier lines get less', () => {
    const returns = discountedLineReturns({ prompt, tokens: long, lineEnds: [1, 3, 4], reward: 1 }, 0.5);
    expect(returns).toEqual([0.25, 0.25, 0.5, 0.5, 1]);
  });

  it('uses the group mean as baseline when several programs share a prompt', () => {
    const episodes: Episode[] = [
      { prompt, tokens: short, lineEnds: [1, 2], reward: 1, group: 0 },
      { prompt, tokens: short, lineEnds: [1, 2], reward: 0, group: 0 },
    ];
    const adv = advantages(episodes, { ...defaultReinforceConfig, gamma: 1, groupSize: 2, normalizeReturns: false }, 123);
    expect(adv).toEqual([[0.5, 0.5, 0.5], [-0.5, -0.5, -0.5]]);
  });

  it('has no baseline to keep until its first update sets it (a checkpoint before then resumes as a fresh run starts: at the first batch\'s mean)', async () => {
    const policy = new TransformerPolicy(config, 1);
    const algorithm = new Reinforce(policy, grammar, { ...defaultReinforceConfig, normalizeReturns: false });
    expect(algorithm.baseline).toBeUndefined();
    await algorithm.step([{ prompt, tokens: short, lineEnds: [1, 2], reward: 0.25 }]);
    expect(algorithm.baseline).toBe(0.25);
    algorithm.dispose();
    policy.dispose();
  });

  it('raises the probability of a rewarded action and lowers a punished one', async () => {
    const policy = new TransformerPolicy(config, 1);
    const rewarded = [TOY.B, TOY.EOL, TOY.DONE];
    const algorithm = new Reinforce(policy, grammar, { ...defaultReinforceConfig, learningRate: 0.01, entropyCoef: 0 });
    const before = await programProbability(policy, rewarded);
    const beforeOther = await programProbability(policy, short);
    const rng = new Rng(1);
    for (let step = 0; step < 15; step++) {
      const samples = await sampleBatch(policy, grammar, Array(16).fill(prompt), { maxTokens: 8, temperature: 1, rng });
      await algorithm.step(samples.map((s) => ({ prompt, tokens: s.tokens, lineEnds: s.lineEnds, reward: s.tokens[0] === TOY.B ? 1 : 0 })));
    }
    expect(await programProbability(policy, rewarded)).toBeGreaterThan(before + 0.2);
    expect(await programProbability(policy, short)).toBeLessThan(beforeOther);
    algorithm.dispose();
    policy.dispose();
  });

  it('with a length penalty, prefers the shorter of two correct programs', async () => {
    const policy = new TransformerPolicy(config, 2);
    const algorithm = new Reinforce(policy, grammar, { ...defaultReinforceConfig, learningRate: 0.01, entropyCoef: 0 });
    // Both programs are "correct"; the reward is C - lambda * bits, with bits = 10 per line.
    const reward = (lines: number) => 1 - 0.02 * 10 * lines;
    const rng = new Rng(2);
    const pShort = await programProbability(policy, short);
    const pLong = await programProbability(policy, long);
    for (let step = 0; step < 20; step++) {
      const samples = await sampleBatch(policy, grammar, Array(16).fill(prompt), { maxTokens: 8, temperature: 1, rng });
      await algorithm.step(samples.map((s) => ({ prompt, tokens: s.tokens, lineEnds: s.lineEnds, reward: reward(s.lineEnds.length - 1) })));
    }
    const shortAfter = await programProbability(policy, short);
    const longAfter = await programProbability(policy, long);
    expect(shortAfter / longAfter).toBeGreaterThan((pShort / pLong) * 2);
    algorithm.dispose();
    policy.dispose();
  });

  it('skips a non-finite update without touching the weights', async () => {
    const policy = new TransformerPolicy(config, 3);
    const algorithm = new Reinforce(policy, grammar, { ...defaultReinforceConfig, learningRate: 0.01 });
    const before = policy.getWeights();
    const stats = await algorithm.step([{ prompt, tokens: short, lineEnds: [1, 2], reward: Number.NaN }]);
    expect(stats.skipped).toBe(true);
    expect(stats.reason).toMatch(/non-finite/);
    policy.getWeights().forEach((w, i) => expect(w.data).toEqual(before[i].data));
    algorithm.dispose();
    policy.dispose();
  });

  it('keeps the tensor count flat over many sample-and-update steps', async () => {
    const policy = new TransformerPolicy(config, 4);
    const algorithm = new Reinforce(policy, grammar, { ...defaultReinforceConfig, learningRate: 0.001 });
    const rng = new Rng(4);
    const run = async () => {
      const samples = await sampleBatch(policy, grammar, Array(8).fill(prompt), { maxTokens: 8, temperature: 1, rng });
      await algorithm.step(samples.map((s) => ({ prompt, tokens: s.tokens, lineEnds: s.lineEnds, reward: s.tokens.length % 2 })));
    };
    for (let i = 0; i < 3; i++) await run(); // warm-up creates Adam's slots
    const count = tf.memory().numTensors;
    for (let i = 0; i < 30; i++) await run();
    expect(tf.memory().numTensors).toBe(count);
    algorithm.dispose();
    policy.dispose();
  });
});
