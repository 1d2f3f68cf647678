import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig, withVariant } from '../config';
import { scheduledRate } from '../model/schedule';
import { runDigitTask, type DigitStepMetrics } from './experiment';
import { withDqnBatchEdit, withDqnBatchFollowing } from './definition';
import { GeneratorPool, inProcessGenerator } from '../generators';

describe('digit recipe defaults', () => {
  it('are the task\'s defaults, so fields not set take them and set ones stay, with no pass of their own', () => {
    const config = parseConfig({ task: { name: 'sum_digits' }, model: { dModel: 32 } });
    expect(config.model).toMatchObject({ dModel: 32, context: 40, layers: 2 });
    expect(config.digits).toMatchObject({ warmStartSteps: 400, warmStartExamples: 2000, numSteps: 2500, requireTag: true });
    expect(config.algorithm).toMatchObject({ name: 'reinforce_monarch', batchSize: 128, temperature: 0.5, learningRate: 0.0001 });
    expect(defaultConfig('reverse_digits').algorithm).toMatchObject({ batchSize: 64, temperature: 1, learningRate: 0.0005 });
    // Only dqn's batch coupling is applied after parsing; it touches no other algorithm or task.
    expect(withDqnBatchFollowing(config, new Set())).toBe(config);
    const base = defaultConfig('kolmogorov', 'dqn');
    expect(withDqnBatchFollowing(base, new Set())).toBe(base);
  });

  it('give dqn on a digit task whole-answer targets, alpha 1 against the target network, and one update per step on the newest batch, in the page and the CLI', () => {
    // What the page and any config get: the task's defaults for dqn, from the registry.
    expect(defaultConfig('sum_digits', 'dqn').algorithm).toMatchObject({ nStep: 16, softAlpha: 1, softPrior: 'target', bufferSize: 800, batchSize: 128, dqnBatchSize: 128, trainFrequency: 128 });
    expect(defaultConfig('reverse_digits', 'dqn').algorithm).toMatchObject({ nStep: 16, softAlpha: 1, batchSize: 64, dqnBatchSize: 64, trainFrequency: 64 });
    // The page's form: picking dqn on a sum_digits run.
    expect(withVariant(defaultConfig('sum_digits'), { algorithm: 'dqn' }).algorithm).toMatchObject({ softPrior: 'target', dqnBatchSize: 128, bufferSize: 800 });
    // Set fields stay; other algorithms and tasks keep their own.
    expect(parseConfig({ task: { name: 'sum_digits' }, algorithm: { name: 'dqn', nStep: 4 } }).algorithm).toMatchObject({ nStep: 4, softAlpha: 1 });
    expect(defaultConfig('sum_digits').algorithm).toMatchObject({ name: 'reinforce_monarch', nStep: 1, softAlpha: 0.1, softPrior: 'reference', dqnBatchSize: 32 });
    expect(defaultConfig('functions', 'dqn').algorithm).toMatchObject({ nStep: 1, softPrior: 'reference', bufferSize: 20_000 });
    // The CLI: a named --batch-size carries dqn's batch fields with it, unless those are named too.
    const named = withDqnBatchFollowing(parseConfig({ task: { name: 'sum_digits' }, algorithm: { name: 'dqn', batchSize: 48 } }), new Set(['algorithm', 'batch-size']));
    expect(named.algorithm).toMatchObject({ batchSize: 48, dqnBatchSize: 48, trainFrequency: 48, bufferSize: 300 }); // 800 tokens at 128: the same 1.25 batches of answers
    expect(withDqnBatchFollowing(parseConfig({ task: { name: 'sum_digits' }, algorithm: { name: 'dqn' } }), new Set(['algorithm'])).algorithm.bufferSize).toBe(800);
    const buffer = withDqnBatchFollowing(parseConfig({ task: { name: 'sum_digits' }, algorithm: { name: 'dqn', batchSize: 48, bufferSize: 5000 } }), new Set(['algorithm', 'batch-size', 'buffer-size']));
    expect(buffer.algorithm.bufferSize).toBe(5000); // named: kept
    const both = withDqnBatchFollowing(parseConfig({ task: { name: 'sum_digits' }, algorithm: { name: 'dqn', batchSize: 48, dqnBatchSize: 16 } }), new Set(['algorithm', 'batch-size', 'dqn-batch-size']));
    expect(both.algorithm).toMatchObject({ batchSize: 48, dqnBatchSize: 16, trainFrequency: 48 });
    // The page's form: an edit of the batch size carries the fields that followed it, not one set apart.
    const dqn = defaultConfig('sum_digits', 'dqn');
    const halved = withDqnBatchEdit(dqn, { ...dqn, algorithm: { ...dqn.algorithm, batchSize: 64 } });
    expect(halved.algorithm).toMatchObject({ batchSize: 64, dqnBatchSize: 64, trainFrequency: 64, bufferSize: 400 });
    const apart = { ...dqn, algorithm: { ...dqn.algorithm, dqnBatchSize: 16 } };
    expect(withDqnBatchEdit(apart, { ...apart, algorithm: { ...apart.algorithm, batchSize: 64 } }).algorithm).toMatchObject({ batchSize: 64, dqnBatchSize: 16, trainFrequency: 64 });
    // A switch to dqn after the batch size was changed: its batch fields are of that batch, not the recipe's.
    const reinforce = defaultConfig('sum_digits');
    const switched = withDqnBatchEdit({ ...reinforce, algorithm: { ...reinforce.algorithm, batchSize: 32 } }, withVariant({ ...reinforce, algorithm: { ...reinforce.algorithm, batchSize: 32 } }, { algorithm: 'dqn' }));
    expect(switched.algorithm).toMatchObject({ name: 'dqn', batchSize: 32, dqnBatchSize: 32, trainFrequency: 32, bufferSize: 200 });
    // Other tasks and algorithms are left as they are.
    expect(withDqnBatchEdit(reinforce, { ...reinforce, algorithm: { ...reinforce.algorithm, batchSize: 64 } }).algorithm.dqnBatchSize).toBe(reinforce.algorithm.dqnBatchSize);
  });

  it('give expert iteration on a digit task the store alone, one supervised step a round; Kolmogorov keeps its rehearsal', () => {
    for (const task of ['sum_digits', 'reverse_digits']) {
      expect(defaultConfig(task, 'expert_iteration').algorithm).toMatchObject({ rehearsal: 0, sftStepsPerRound: 1 });
      expect(withVariant(defaultConfig(task), { algorithm: 'expert_iteration' }).algorithm).toMatchObject({ rehearsal: 0, sftStepsPerRound: 1 });
    }
    expect(parseConfig({ task: { name: 'sum_digits' }, algorithm: { name: 'expert_iteration', rehearsal: 0.25 } }).algorithm).toMatchObject({ rehearsal: 0.25, sftStepsPerRound: 1 });
    expect(defaultConfig('kolmogorov', 'expert_iteration').algorithm).toMatchObject({ rehearsal: 0.5, sftStepsPerRound: 4 });
  });
});

describe('digit RL options', () => {
  it('decays the learning rate along a cosine to a tenth with lrDecay, and samples groups of answers to one question', async () => {
    await tf.setBackend('wasm');
    const base = defaultConfig();
    const config = parseConfig({
      ...base,
      task: { ...base.task, name: 'sum_digits' },
      model: { ...base.model, layers: 1, dModel: 16, heads: 2, context: 40 },
      algorithm: { ...base.algorithm, batchSize: 8, groupSize: 4, learningRate: 1e-3 },
      run: { ...base.run, evalSamples: 4 },
      digits: { ...base.digits, numSteps: 3, numGenerators: 1, lrDecay: true, warmStartExamples: 8, warmStartSteps: 1 },
    });
    const steps: DigitStepMetrics[] = [];
    const pool = new GeneratorPool([inProcessGenerator()]);
    try {
      await runDigitTask(config, pool, { log: () => undefined, step: (m) => steps.push(m) }, 8);
    } finally {
      pool.close();
    }
    expect(steps.map((m) => m.learningRate)).toEqual([1, 2, 3].map((step) => scheduledRate(1e-3, step, 3, 0)));
    expect(steps[2].learningRate).toBeCloseTo(1e-4);
    for (const m of steps) {
      const questions = m.samples.map((sample) => sample.question);
      expect(new Set(questions.slice(0, 4)).size).toBe(1);
      expect(new Set(questions.slice(4)).size).toBe(1);
    }
    await expect(runDigitTask(parseConfig({ ...config, algorithm: { ...config.algorithm, batchSize: 6 } }), pool, { log: () => undefined })).rejects.toThrow('not a multiple of --group-size 4');
  });
});
