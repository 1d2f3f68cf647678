/**
 * The functions policy shipped in public/ (made by `npm run recipe -- --task functions --ship`)
 * loads and, evaluated as the recipe evaluated it (greedy and k - 1 samples from the run's
 * seed, on the same backend), solves the seed problems recorded beside it in
 * public/functions.json and scores the recorded held-out figures. A regression guard: a change
 * that alters what the saved policy computes, how programs print or how tests are judged fails here.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';
import { functions } from '../core/functions/definition';
import { openFunctionsCheckpointRunner } from './checkpointRunner';
import { asShippedPolicy } from './functionsRecipe';
import { loadProblemsFile } from './data';

interface ShippedRecord {
  k: number;
  seed_training_solved: string[];
  seed_evaluation_solved: string[];
  heldout: { n: number; pass_at_1: number; solved: number };
}

const record = JSON.parse(readFileSync('public/functions.json', 'utf8')) as ShippedRecord;
const bytes = new Uint8Array(readFileSync('public/functions.prl'));

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('the shipped functions policy', () => {
  it('is small, loads, solves the recorded seed problems and scores the recorded held-out figures', async () => {
    expect(bytes.byteLength).toBeLessThan(4 << 20);
    const { runner, close } = await openFunctionsCheckpointRunner(bytes, { poolSize: 1 });
    try {
      const solved = async (path: string) => {
        const result = await runner.evaluate(loadProblemsFile(path, { quiet: true }), { k: record.k });
        return result.per_problem.filter((row) => row.solved).map((row) => row.function_name);
      };
      expect(await solved('datasets/functions/training_problems.json')).toEqual(record.seed_training_solved);
      expect(await solved('datasets/functions/evaluation_problems.json')).toEqual(record.seed_evaluation_solved);
      // Issue 17's targets: every seed problem, and at least 60% of the held-out ones with best-of-8.
      expect(record.seed_training_solved).toHaveLength(loadProblemsFile('datasets/functions/training_problems.json', { quiet: true }).length);
      expect(record.seed_evaluation_solved).toHaveLength(loadProblemsFile('datasets/functions/evaluation_problems.json', { quiet: true }).length);
      expect(record.heldout.solved).toBeGreaterThanOrEqual(0.6);
      const heldout = await runner.evaluate(loadProblemsFile('datasets/functions/heldout.jsonl', { quiet: true }), { k: record.k });
      expect(heldout.n).toBe(record.heldout.n);
      expect(heldout.solved).toBeCloseTo(record.heldout.solved, 6);
      expect(heldout.pass_at_1).toBeCloseTo(record.heldout.pass_at_1, 6);
    } finally {
      await close();
    }
  });

  it('is a warm start for the page: the recipe\'s RL learning rate, not its warm start\'s, at step 0 with no optimizer state and no step budget', async () => {
    // The page runs RL from the shipped policy with the config inside it; at the warm start's 1e-3
    // DQN and REINFORCE drifted there (training accuracy 0.80 -> 0.63 in 60 s) where the CLI's 1e-4 kept it.
    const { meta, tensors } = await decodeCheckpoint(bytes);
    expect(meta.config.algorithm.learningRate).toBe(functions.defaults?.algorithm?.learningRate);
    expect(meta.step).toBe(0);
    expect(meta.config.run).toMatchObject({ maxSteps: 0, timeLimit: 0 }); // the RL stage's --max-steps would end the page's run
    expect(tensors.every((t) => t.group === 'weights')).toBe(true);
    const warmStage = await asShippedPolicy(bytes, 1e-3);
    const rewritten = await decodeCheckpoint(await asShippedPolicy(warmStage, 1e-4));
    expect(rewritten.meta.config.algorithm.learningRate).toBe(1e-4);
    expect(rewritten.tensors.map((t) => [t.name, [...t.data.slice(0, 8)]])).toEqual(tensors.map((t) => [t.name, [...t.data.slice(0, 8)]]));
  });
});
