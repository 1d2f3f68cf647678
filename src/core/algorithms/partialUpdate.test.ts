/**
 * A step of several updates (GRPO's numIterations, DQN's owed updates) whose later update is
 * skipped has still changed the weights by the earlier ones: it is reported as an update (the
 * loop then syncs the generators), not as skipped, and DQN keeps owing the updates it did not try.
 */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Episode } from '../algorithm';
import { defaultConfig } from '../config';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { TransformerPolicy } from '../model/transformer';
import { Dqn, type DqnConfig } from './dqn';
import { Grpo, type GrpoConfig } from './grpo';

// Every second accumulated step fails as a non-finite one would (skipped, weights untouched).
vi.mock('../model/training', async (original) => {
  const training = await original<typeof import('../model/training')>();
  let calls = 0;
  return {
    ...training,
    accumulatedStep: (...args: Parameters<typeof training.accumulatedStep>) =>
      ++calls % 2 === 0 ? Promise.resolve({ values: { loss: NaN }, gradNorm: NaN, skipped: true, reason: 'non-finite loss (injected)' }) : training.accumulatedStep(...args),
  };
});

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const policyConfig = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
const prompt = [TOY.BOS, 6];
const programs = [[TOY.A, TOY.EOL, TOY.DONE], [TOY.B, TOY.EOL, TOY.DONE]];
const weightsOf = (policy: TransformerPolicy) => policy.getWeights().map((w) => [...w.data]);

describe('a step whose later update is skipped', () => {
  it('GRPO, two iterations, the second skipped: reported as the first iteration\'s update', async () => {
    const policy = new TransformerPolicy(policyConfig, 3);
    const config = { ...defaultConfig('kolmogorov', 'grpo').algorithm, numIterations: 2, groupSize: 2, learningRate: 0.01 } as GrpoConfig;
    const grpo = new Grpo(policy, new ToyGrammar(), config, 6);
    const before = weightsOf(policy);
    const episodes: Episode[] = programs.map((tokens, i) => ({ prompt, tokens, lineEnds: [1, 2], reward: i, group: 0, behaviourLogProbs: tokens.map(() => Math.log(0.5)) }));
    const stats = await grpo.step(episodes);
    expect(weightsOf(policy)).not.toEqual(before); // the first iteration was applied
    expect(stats.skipped).toBe(false);
    expect(Number.isFinite(stats.loss)).toBe(true);
    grpo.dispose();
    policy.dispose();
  });

  it('DQN, four updates owed, the second skipped: reported as an update, and the two not tried stay owed', async () => {
    const policy = new TransformerPolicy(policyConfig, 3);
    const config = { ...defaultConfig('kolmogorov', 'dqn').algorithm, qForm: 'hard', learningStarts: 1, trainFrequency: 1, dqnBatchSize: 2 } as DqnConfig;
    const dqn = new Dqn(policy, new ToyGrammar(), config, 1);
    const update = dqn.update.bind(dqn);
    let calls = 0;
    dqn.update = async () => (++calls === 2 ? { loss: NaN, q: NaN, gradNorm: NaN, skipped: true, reason: 'non-finite loss (injected)' } : update());
    const episodes = (n: number): Episode[] => Array.from({ length: n }, (_, i) => ({ prompt, tokens: programs[i % 2], lineEnds: [1, 2], reward: i % 2 }));
    const first = await dqn.step(episodes(4));
    expect(first.skipped).toBe(false);
    expect(first.named.updates).toBe(1);
    // One more program owes one more update, on top of the two not tried.
    const second = await dqn.step(episodes(1));
    expect(second.named.updates).toBe(4);
    dqn.dispose();
    policy.dispose();
  });
});
