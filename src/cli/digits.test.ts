import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../core/config';
import { runDigitTask, type DigitStepMetrics } from '../core/digits/experiment';
import { createNodeGeneratorPool } from './digitGenerators';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('digit tasks with generator worker_threads', () => {
  it('smoke: 2 generators run a few RL steps, each sampling with the newest weights', async () => {
    const base = defaultConfig();
    const config = parseConfig({
      ...base,
      task: { ...base.task, name: 'reverse_digits' },
      model: { ...base.model, layers: 1, dModel: 16, heads: 2, context: 40 },
      algorithm: { ...base.algorithm, batchSize: 8, learningRate: 1e-3 },
      run: { ...base.run, evalSamples: 10 },
      digits: { ...base.digits, numSteps: 3, numGenerators: 2, warmStartExamples: 16, warmStartSteps: 2 },
    });
    const steps: DigitStepMetrics[] = [];
    const pool = createNodeGeneratorPool(2);
    try {
      const result = await runDigitTask(config, pool, { log: () => undefined, step: (m) => steps.push(m) }, 2);
      expect(result.before.n).toBe(10);
      expect(result.after.n).toBe(10);
      expect(result.generationsPerSecond).toBeGreaterThan(0);
    } finally {
      pool.close();
    }
    expect(steps.map((m) => m.step)).toEqual([1, 2, 3]);
    steps.forEach((m) => {
      // Step s samples with version s (the sync sent after step s-1) and then publishes s+1.
      expect(m.generators.map((g) => g.generatedWith)).toEqual([m.step, m.step]);
      expect(m.trainerVersion).toBe(m.step + 1);
      expect(m.samples).toHaveLength(2);
      expect(Number.isFinite(m.loss)).toBe(true);
    });
    expect(steps.at(-1)!.generators.map((g) => g.generated)).toEqual([12, 12]);
  });
});
