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

  it('give dqn on a digit task whole-answer targets and alpha 0.3, unless named', () => {
    const base = defaultConfig();
    const config = parseConfig({ ...base, task: { ...base.task, name: 'sum_digits' }, algorithm: { ...base.algorithm, name: 'dqn' } });
    const applied = withDigitRecipe(config, new Set(['algorithm']));
    expect(applied.algorithm).toMatchObject({ name: 'dqn', nStep: 16, softAlpha: 0.3 });
    const named = withDigitRecipe(parseConfig({ ...config, algorithm: { ...config.algorithm, nStep: 4 } }), new Set(['algorithm', 'n-step']));
    expect(named.algorithm).toMatchObject({ nStep: 4, softAlpha: 0.3 });
    // Other algorithms keep the recipe's (the dqn fields stay at their schema defaults).
    expect(withDigitRecipe(config, new Set()).algorithm).toMatchObject({ name: 'reinforce_monarch', nStep: 1, softAlpha: 0.1 });
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
