/** DQN's parts against hand-computed values, and a toy program it must learn to write. */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config';
import { sampleBatch, uniformToken } from '../model/sampler';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import { Dqn, ReplayBuffer, dqnTargets, duelingQ, epsilonAt, nStepTarget, type DqnConfig, type Transition } from './dqn';
import type { Episode } from './reinforce';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const base: DqnConfig = { ...defaultConfig().algorithm, name: 'dqn' } as DqnConfig;

describe('DQN targets', () => {
  // Two next states over 3 tokens; token 2 is not allowed in the first.
  const online = Float32Array.from([1, 3, 9, 5, 2, 0]);
  const target = Float32Array.from([10, 20, 99, 7, 8, 4]);
  const mask = Uint8Array.from([1, 1, 0, 1, 1, 1]);

  it('double DQN: the online network picks, the target network values; plain DQN: the target\'s max; both masked', () => {
    // Row 0: online argmax over {0, 1} is 1 -> target 20; row 1: online argmax is 0 -> target 7.
    expect(dqnTargets([0.5, 1], [0.9, 0.5], online, target, mask, 3, true)).toEqual([0.5 + 0.9 * 20, 1 + 0.5 * 7]);
    // Plain: max of the target over allowed tokens: 20 (not the masked 99) and 8.
    expect(dqnTargets([0.5, 1], [0.9, 0.5], online, target, mask, 3, false)).toEqual([0.5 + 0.9 * 20, 1 + 0.5 * 8]);
    // A terminal row takes its reward alone.
    expect(dqnTargets([2, 1], [0, 0.5], online, target, mask, 3, true)[0]).toBe(2);
  });

  it('n-step returns: the reward discounted from the program\'s end; a cut program bootstraps at its budget', () => {
    const episode = (complete: boolean, t: number): Transition => ({ prompt: [1], tokens: [2, 4, 5], t, reward: 1, complete });
    expect(nStepTarget(episode(true, 2), 1, 0.9)).toEqual({ ret: 1, next: null, discount: 0 });
    expect(nStepTarget(episode(true, 0), 1, 0.9)).toEqual({ ret: 0, next: 1, discount: 0.9 });
    expect(nStepTarget(episode(true, 0), 3, 0.9)).toEqual({ ret: 0.9 ** 2, next: null, discount: 0 });
    expect(nStepTarget(episode(true, 1), 3, 0.9)).toEqual({ ret: 0.9, next: null, discount: 0 });
    // Truncated at the budget: the reward is paid, and the value of the state after it is added.
    expect(nStepTarget(episode(false, 2), 1, 0.9)).toEqual({ ret: 1, next: 3, discount: 0.9 });
  });

  it('dueling: Q - V has mean zero over the allowed tokens', () => {
    const q = duelingQ(tf.tensor2d([[2], [-1]]), tf.tensor2d([[1, 5, 100], [3, 3, 0]]), tf.tensor2d([[1, 1, 0], [1, 1, 1]]));
    const rows = q.arraySync();
    expect(rows[0][0] - 2 + rows[0][1] - 2).toBeCloseTo(0, 5);
    expect(rows[1][0] + 1 + rows[1][1] + 1 + rows[1][2] + 1).toBeCloseTo(0, 5);
    expect(rows[0][1] - rows[0][0]).toBeCloseTo(4, 5); // differences between actions are the advantages'
  });

  it('epsilon: the seed\'s decay per episode and CleanRL\'s straight line, floored at the end value', () => {
    expect(epsilonAt({ ...base, epsilonSchedule: 'exponential' }, 2, 999)).toBeCloseTo(0.995 ** 2, 9);
    expect(epsilonAt({ ...base, epsilonSchedule: 'exponential' }, 10_000, 0)).toBe(0.01);
    expect(epsilonAt({ ...base, epsilonSchedule: 'linear', explorationSteps: 100 }, 0, 50)).toBeCloseTo(1 - 0.99 / 2, 9);
    expect(epsilonAt({ ...base, epsilonSchedule: 'linear', explorationSteps: 100 }, 0, 500)).toBe(0.01);
  });
});

describe('replay buffer', () => {
  const transition = (t: number): Transition => ({ prompt: [1], tokens: [2], t, reward: 0, complete: true });

  it('wraps at its capacity, replacing the oldest, and samples uniformly', () => {
    const buffer = new ReplayBuffer(4);
    for (let t = 0; t < 6; t++) buffer.add(transition(t));
    expect(buffer.size).toBe(4);
    expect([0, 1, 2, 3].map((i) => buffer.at(i).t)).toEqual([4, 5, 2, 3]);
    const counts = [0, 0, 0, 0];
    const { indices, weights } = buffer.sample(8000, new Rng(3));
    for (const i of indices) counts[i] += 1;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
    expect(new Set(weights)).toEqual(new Set([1]));
  });

  it('prioritized: draws follow priority^alpha, and importance weights are (N p)^-beta over their max', () => {
    const buffer = new ReplayBuffer(4, true, 1);
    for (let t = 0; t < 4; t++) buffer.add(transition(t));
    [1, 2, 3, 4].forEach((p, i) => buffer.setPriority(i, p));
    const counts = [0, 0, 0, 0];
    const { indices, weights } = buffer.sample(10_000, new Rng(5), 0.5);
    indices.forEach((i) => (counts[i] += 1));
    counts.forEach((c, i) => expect(c / 10_000).toBeCloseTo((i + 1) / 10, 1));
    const weightOf = (i: number) => (4 * ((i + 1) / 10)) ** -0.5 / (4 * 0.1) ** -0.5;
    indices.slice(0, 50).forEach((index, k) => expect(weights[k]).toBeCloseTo(weightOf(index), 9));
  });
});

describe('DQN on the toy grammar', () => {
  const grammar = new ToyGrammar();
  const policyConfig = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
  const prompt = [TOY.BOS, 6];
  /** The toy task: only "B then stop" earns 1; so the first choice must be B and the second DONE. */
  const reward = (tokens: readonly number[]) => (tokens.join(',') === [TOY.B, TOY.EOL, TOY.DONE].join(',') ? 1 : 0);

  it('never chooses a masked token, even when exploring', () => {
    const rng = new Rng(1);
    const mask = Uint8Array.from([0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    for (let i = 0; i < 200; i++) expect([TOY.A, TOY.B]).toContain(uniformToken(mask, rng)[0]);
  });

  it('learns the two-step task: greedy writes B then stops; the target syncs exactly; tensors stay flat', async () => {
    const policy = new TransformerPolicy(policyConfig, 4);
    const config: DqnConfig = { ...base, learningRate: 3e-3, learningStarts: 32, trainFrequency: 8, dqnBatchSize: 32, targetNetworkFrequency: 20, epsilonDecay: 0.97, gamma: 0.9, prioritized: true };
    const dqn = new Dqn(policy, grammar, config, 2);
    const rng = new Rng(9);
    const [before] = await sampleBatch(policy, grammar, [prompt], { maxTokens: 6, temperature: 1, greedy: true });
    expect(before.tokens).not.toEqual([TOY.B, TOY.EOL, TOY.DONE]); // not solved by the initial weights
    let tensors = 0;
    for (let round = 0; round < 60; round++) {
      const samples = await sampleBatch(policy, grammar, Array(8).fill(prompt), { maxTokens: 6, temperature: 1, greedy: true, epsilon: dqn.samplingEpsilon(), rng });
      const episodes: Episode[] = samples.map((s) => ({ prompt, tokens: s.tokens, lineEnds: s.lineEnds, reward: reward(s.tokens) }));
      await dqn.step(episodes);
      if (round === 20) tensors = tf.memory().numTensors;
    }
    expect(tf.memory().numTensors).toBe(tensors);
    const [greedy] = await sampleBatch(policy, grammar, [prompt], { maxTokens: 6, temperature: 1, greedy: true });
    expect(greedy.tokens).toEqual([TOY.B, TOY.EOL, TOY.DONE]);
    // A sync makes the target network the online one, bit for bit.
    dqn.syncTarget();
    const online = policy.getWeights();
    dqn.targetWeights().forEach((w, i) => expect(w.data).toEqual(online[i].data));
    dqn.dispose();
    policy.dispose();
  }, 60_000);
});
