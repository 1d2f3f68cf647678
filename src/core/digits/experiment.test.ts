import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../config';
import { scheduledRate } from '../model/schedule';
import { digitRecipeDefaults, runDigitTask, withDigitRecipe, type DigitStepMetrics } from './experiment';
import { GeneratorPool, inProcessGenerator } from '../generators';

describe('digit recipe defaults', () => {
  it('fill the fields not named on the command line, per task, and leave named ones alone', () => {
    const base = defaultConfig();
    const config = parseConfig({ ...base, task: { ...base.task, name: 'sum_digits' }, model: { ...base.model, dModel: 32 } });
    const applied = withDigitRecipe(config, new Set(['d-model']));
    expect(applied.model.dModel).toBe(32);
    expect(applied.model.context).toBe(Number(digitRecipeDefaults.sum_digits.context));
    expect(applied.digits.warmStartSteps).toBe(Number(digitRecipeDefaults.sum_digits['warm-start-steps']));
    expect(withDigitRecipe(base, new Set())).toEqual(base); // the Kolmogorov task is untouched
  });

  it('give dqn on a digit task whole-answer targets, alpha 1 against the target network, and one update per step on the newest batch, unless named', () => {
    const base = defaultConfig();
    const config = parseConfig({ ...base, task: { ...base.task, name: 'sum_digits' }, algorithm: { ...base.algorithm, name: 'dqn' } });
    const applied = withDigitRecipe(config, new Set(['algorithm']));
    expect(applied.algorithm).toMatchObject({ name: 'dqn', nStep: 16, softAlpha: 1, softPrior: 'target', bufferSize: 800, batchSize: 128, dqnBatchSize: 128, trainFrequency: 128 });
    const named = withDigitRecipe(parseConfig({ ...config, algorithm: { ...config.algorithm, nStep: 4, batchSize: 32 } }), new Set(['algorithm', 'n-step', 'batch-size']));
    expect(named.algorithm).toMatchObject({ nStep: 4, softAlpha: 1, batchSize: 32, dqnBatchSize: 32, trainFrequency: 32 });
    // reverse_digits' batch is 64: so are dqn's.
    const reverse = withDigitRecipe(parseConfig({ ...config, task: { ...config.task, name: 'reverse_digits' } }), new Set(['algorithm']));
    expect(reverse.algorithm).toMatchObject({ batchSize: 64, dqnBatchSize: 64, trainFrequency: 64 });
    // Other algorithms keep the recipe's (the dqn fields stay at their schema defaults).
    expect(withDigitRecipe(config, new Set()).algorithm).toMatchObject({ name: 'reinforce_monarch', nStep: 1, softAlpha: 0.1, softPrior: 'reference', dqnBatchSize: 32 });
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
