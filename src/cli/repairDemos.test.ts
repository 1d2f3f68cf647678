/**
 * RL with repair demonstrations (algorithm.repairDemos), on the shipped policy, which writes
 * near-miss programs that repair can fix: a group whose samples all fail gets the shortest
 * correct program the search finds as one more episode, with its own positive reward.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';
import { createKolmogorovRunner as createRunner } from '../core/kolmogorov/runner';
import { taskPreludes } from '../core/runner';
import { loadKolmogorovFile } from './data';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

const bytes = new Uint8Array(readFileSync('public/pretrained.prl'));
let pool: ReturnType<typeof createNodeSandboxPool> | null = null;

beforeAll(async () => {
  await tf.setBackend('wasm');
});
afterAll(() => pool?.close());

describe('RL with repair demonstrations', () => {
  it('adds a found program to groups whose samples all fail, and nothing when off', async () => {
    const { meta } = await decodeCheckpoint(bytes);
    pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(meta.config), preludes: taskPreludes() });
    const heldout = (await loadKolmogorovFile('datasets/heldout.jsonl', { quiet: true })).slice(0, 150);
    // Sequences greedy misses but repair solves: the ones a group of samples may fail on (of the first 150;
    // the policy shipped since the copy pointer samples right often enough that fewer groups fail).
    const probe = await createRunner(meta.config, { train: heldout, heldout }, { pool });
    await probe.loadCheckpoint(bytes);
    const found = await probe.evaluate(heldout, { k: 1, repair: 8, repairRounds: 2 });
    probe.dispose();
    const train = heldout.filter((_, i) => found.rows[i].foundBy === 'repair');
    expect(train.length).toBeGreaterThan(0);

    for (const repairDemos of [0, 8]) {
      const config = structuredClone(meta.config);
      config.algorithm = { ...config.algorithm, groupSize: 4, batchSize: 4 * train.length, repairDemos };
      // The whole sequences, as the probe scored them: the shipped RL config trains on at most 32
      // values and on pieces of longer ones, which this policy mostly writes right.
      config.task = { ...config.task, maxTrainLength: 0, trainPieces: 0 };
      const runner = await createRunner(config, { train, heldout: [] }, { pool, initFrom: bytes });
      try {
        const { metrics } = await runner.step();
        if (repairDemos === 0) expect(metrics.repair_demos).toBeUndefined();
        else {
          expect(metrics.repair_demos).toBeGreaterThan(0);
          expect(metrics.repair_demos).toBeLessThanOrEqual(train.length);
        }
      } finally {
        runner.dispose();
      }
    }
  }, 180_000);
});
