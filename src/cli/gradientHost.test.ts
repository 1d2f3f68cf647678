/**
 * Data-parallel warm start: a step whose batch is split between this thread and a gradient
 * worker thread changes the weights as the one-thread step does (same loss, same update,
 * within float tolerance), and a worker's failure surfaces as an error, not a hang.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultReinforceConfig, Reinforce, type Episode } from '../core/algorithms/reinforce';
import { SupervisedTrainer } from '../core/algorithms/supervised';
import { ExpertIteration, type ExpertIterationConfig } from '../core/algorithms/expertIteration';
import { configFromSearchParams } from '../core/config';
import { ShardError } from '../core/gradientShards';
import { generateDataset } from '../core/kolmogorov/generator';
import { KolmogorovGrammar, vocabSize } from '../core/kolmogorov/grammar';
import { toPair, type Pair } from '../core/kolmogorov/pairs';
import { TransformerPolicy } from '../core/model/transformer';
import type { GradientShards } from '../core/gradientShards';
import { createNodeGradientShards } from './gradientHost';

const policyConfig = { vocabSize, layers: 1, dModel: 16, heads: 2, context: 96, previousToken: true };
const limits = { maxSequenceLength: 48, context: 96, maxProgramTokens: 40 };
const pairs = generateDataset(11, 24, { maxBase: 2, maxLength: 10 })
  .map((record) => toPair(record, limits))
  .filter((pair): pair is Pair => pair !== null)
  .slice(0, 6);
let host: GradientShards;

beforeAll(async () => {
  await tf.setBackend('wasm');
  host = await createNodeGradientShards(1, policyConfig, 'wasm');
});
afterAll(() => host.close());

describe('data-parallel updates: the warm start and REINFORCE', () => {
  it('splits a batch with a worker thread and updates the weights as one thread does', async () => {
    expect(pairs.length).toBe(6);
    const single = new TransformerPolicy(policyConfig, 1);
    const parallel = new TransformerPolicy(policyConfig, 1);
    const one = new SupervisedTrainer(single, new KolmogorovGrammar(), { learningRate: 1e-2, gradClip: 1 });
    const two = new SupervisedTrainer(parallel, new KolmogorovGrammar(), { learningRate: 1e-2, gradClip: 1 }, host.shards);
    for (let step = 0; step < 3; step++) {
      const a = await one.step(pairs);
      const b = await two.step(pairs);
      expect([a.threads, b.threads]).toEqual([1, 2]);
      expect(b.loss).toBeCloseTo(a.loss, 4);
      expect(b.tokenAccuracy).toBeCloseTo(a.tokenAccuracy, 6);
    }
    const expected = single.getWeights();
    parallel.getWeights().forEach((weight, i) => {
      let maxDiff = 0;
      weight.data.forEach((value, j) => (maxDiff = Math.max(maxDiff, Math.abs(value - expected[i].data[j]))));
      expect(maxDiff, weight.name).toBeLessThan(1e-4);
    });
    // The weights did move: the comparison above is not between two untouched policies.
    const untouched = new TransformerPolicy(policyConfig, 1).getWeights();
    const moved = expected.reduce((sum, weight, i) => sum + weight.data.reduce((s, value, j) => s + Math.abs(value - untouched[i].data[j]), 0), 0);
    expect(moved).toBeGreaterThan(0.1);
    [one, two].forEach((trainer) => trainer.dispose());
    [single, parallel].forEach((policy) => policy.dispose());
  });

  it('a worker that cannot compute: the step is done on this thread alone and the worker\'s reason is told once', async () => {
    const policy = new TransformerPolicy({ ...policyConfig, dModel: 32 }, 1); // weights the worker's model refuses
    const alone = new TransformerPolicy({ ...policyConfig, dModel: 32 }, 1);
    const trainer = new SupervisedTrainer(policy, new KolmogorovGrammar(), { learningRate: 1e-2, gradClip: 1 });
    const reference = new SupervisedTrainer(alone, new KolmogorovGrammar(), { learningRate: 1e-2, gradClip: 1 });
    const told: string[] = [];
    trainer.useShards(host.shards, (message) => told.push(message));
    for (let step = 0; step < 2; step++) {
      const [a, b] = [await reference.step(pairs), await trainer.step(pairs)];
      expect(b).toMatchObject({ skipped: false, threads: 1 });
      expect(b.loss).toBe(a.loss);
    }
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^gradient worker: weight .* has shape/);
    [trainer, reference].forEach((t) => t.dispose());
    [policy, alone].forEach((p) => p.dispose());
  });

  it('splits a REINFORCE update (advantages, entropy bonus, KL to a reference) with a worker thread and updates the weights as one thread does', async () => {
    const episodes: Episode[] = pairs.map((pair, i) => ({ ...pair, lineEnds: [], reward: (i % 3) / 2, group: i >> 1 }));
    const config = { ...defaultReinforceConfig, learningRate: 1e-2, entropyCoef: 0.01, klCoef: 0.5 };
    const reference = new TransformerPolicy(policyConfig, 5);
    const single = new TransformerPolicy(policyConfig, 2);
    const parallel = new TransformerPolicy(policyConfig, 2);
    const one = new Reinforce(single, new KolmogorovGrammar(), config, reference);
    const two = new Reinforce(parallel, new KolmogorovGrammar(), config, reference, host.shards);
    for (let step = 0; step < 3; step++) {
      const a = await one.step(episodes);
      const b = await two.step(episodes);
      expect(b.skipped).toBe(false);
      expect([a.threads, b.threads]).toEqual([1, 2]);
      expect(b.loss).toBeCloseTo(a.loss, 4);
      expect(b.entropy).toBeCloseTo(a.entropy, 4);
      expect(a.kl).toBeGreaterThan(1e-3); // the policies differ, so the KL term is there
      expect(b.kl).toBeCloseTo(a.kl, 4);
      expect(b.gradNorm).toBeCloseTo(a.gradNorm, 3);
    }
    expect(maxDifference(parallel.getWeights(), single.getWeights())).toBeLessThan(1e-3); // a tenth of one Adam step (lr 1e-2): float sums in another order, amplified where a gradient is near 0
    expect(maxDifference(single.getWeights(), new TransformerPolicy(policyConfig, 2).getWeights())).toBeGreaterThan(1e-3); // they moved
    [one, two].forEach((trainer) => trainer.dispose());
    [single, parallel, reference].forEach((policy) => policy.dispose());
  });

  it('a REINFORCE update in micro-batches (gradientAccumulationSteps) stays on one thread, its memory bound kept', async () => {
    const episodes: Episode[] = pairs.map((pair, i) => ({ ...pair, lineEnds: [], reward: i % 2 }));
    const policy = new TransformerPolicy(policyConfig, 3);
    const algorithm = new Reinforce(policy, new KolmogorovGrammar(), { ...defaultReinforceConfig, gradientAccumulationSteps: 2 }, undefined, host.shards);
    expect(await algorithm.step(episodes)).toMatchObject({ skipped: false, threads: 1 });
    algorithm.dispose();
    policy.dispose();
  });

  it('a REINFORCE update whose shard fails is done on one thread, said once, and the shard is not asked again', async () => {
    const episodes: Episode[] = pairs.map((pair, i) => ({ ...pair, lineEnds: [], reward: i % 2 }));
    let asked = 0;
    const broken = { compute: () => (asked++, Promise.reject(new ShardError('gradient worker failed: it exited with code 1'))) };
    const logs: string[] = [];
    const single = new TransformerPolicy(policyConfig, 3);
    const parallel = new TransformerPolicy(policyConfig, 3);
    const one = new Reinforce(single, new KolmogorovGrammar(), { ...defaultReinforceConfig, learningRate: 1e-2 });
    const two = new Reinforce(parallel, new KolmogorovGrammar(), { ...defaultReinforceConfig, learningRate: 1e-2 }, undefined, [broken], (text) => logs.push(text));
    for (let step = 0; step < 2; step++) {
      await one.step(episodes);
      expect(await two.step(episodes)).toMatchObject({ skipped: false, threads: 1 });
    }
    expect(asked).toBe(1);
    expect(logs).toEqual(['gradient worker failed: it exited with code 1; updates go on in one thread']);
    expect(maxDifference(parallel.getWeights(), single.getWeights())).toBeLessThan(1e-6);
    [one, two].forEach((trainer) => trainer.dispose());
    [single, parallel].forEach((policy) => policy.dispose());
  });
});

describe('closed gradient workers', () => {
  it('refuse a request with a ShardError (its caller computes alone) instead of leaving it waiting', async () => {
    const closed = await createNodeGradientShards(1, policyConfig, 'wasm');
    const policy = new TransformerPolicy(policyConfig, 1);
    await closed.close();
    await expect(closed.shards[0].compute(policy.getWeights(), pairs)).rejects.toThrow(ShardError);
    await expect(closed.shards[0].compute(policy.getWeights(), pairs)).rejects.toThrow('the gradient workers were closed');
    const trainer = new SupervisedTrainer(policy, new KolmogorovGrammar(), { learningRate: 1e-2, gradClip: 1 }, closed.shards);
    expect(await trainer.step(pairs)).toMatchObject({ skipped: false, threads: 1 });
    trainer.dispose();
    policy.dispose();
  });
});

describe('expert iteration with a gradient worker', () => {
  it('takes its supervised steps on two threads', async () => {
    const config = configFromSearchParams('algorithm=expert_iteration&batch-size=6&sft-steps-per-round=2&rehearsal=0');
    const policy = new TransformerPolicy(policyConfig, 4);
    const algorithm = new ExpertIteration(policy, new KolmogorovGrammar(), config.algorithm as ExpertIterationConfig, undefined, 1, undefined, host.shards);
    const episodes: Episode[] = pairs.map((pair, i) => ({ ...pair, lineEnds: [], reward: 1, correct: true, cost: pair.tokens.length, group: i }));
    const update = await algorithm.update(episodes);
    expect(update.skipped).toBe(false);
    expect(update.metrics.update_threads).toBe(2);
    algorithm.dispose();
    policy.dispose();
  });
});

function maxDifference(a: { data: Float32Array }[], b: { data: Float32Array }[]): number {
  return a.reduce((max, weight, i) => weight.data.reduce((m, value, j) => Math.max(m, Math.abs(value - b[i].data[j])), max), 0);
}
