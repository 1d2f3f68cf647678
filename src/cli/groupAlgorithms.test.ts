/** GRPO and RLOO (core/algorithms) through the one training loop with the real sandbox, from a warm start that is also their KL reference. */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import { createKolmogorovRunner as createRunner } from '../core/kolmogorov/runner';
import { taskPreludes } from '../core/runner';
import { createNodeSandboxPool } from './sandboxHost';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('GRPO and RLOO through the one loop', () => {
  for (const algorithm of ['grpo', 'rloo'] as const) {
    it(`${algorithm} trains a tiny Kolmogorov policy from a warm start with its KL to it: finite figures, flat tensor count`, async () => {
      const config = configFromSearchParams(`layers=1&d-model=16&heads=2&context=96&max-program-tokens=40&max-sequence-length=32&batch-size=4&group-size=2&workers=1&algorithm=${algorithm}&beta=0.05&num-iterations=2`);
      const pool = createNodeSandboxPool({ size: 1, limits: { deadlineMs: 100, watchdogMs: 1000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 1 << 16, maxOutputLength: 4096 }, preludes: taskPreludes() });
      const data = { train: generateDataset(3, 12), heldout: [] };
      const first = await createRunner(config, data, { pool });
      const warm = await first.saveCheckpoint();
      first.dispose();
      const runner = await createRunner(config, data, { pool, initFrom: warm });
      try {
        const before = (await runner.step()).metrics;
        const tensors = tf.memory().numTensors;
        const after = (await runner.step()).metrics;
        await runner.step();
        expect(tf.memory().numTensors).toBe(tensors);
        for (const metrics of [before, after]) {
          expect(Number.isFinite(metrics.policy_loss)).toBe(true);
          expect(metrics.kl).toBeGreaterThanOrEqual(algorithm === 'grpo' ? 0 : -Infinity);
          expect(Number.isFinite(metrics.kl)).toBe(true);
        }
        if (algorithm === 'grpo') expect(before.clip_ratio).toBeGreaterThanOrEqual(0);
      } finally {
        runner.dispose();
        await pool.close();
      }
    }, 60_000);

    it(`${algorithm} with beta 0 has no reference, and charts no KL (its 0 was never measured)`, async () => {
      const config = configFromSearchParams(`layers=1&d-model=16&heads=2&context=96&max-program-tokens=40&max-sequence-length=32&batch-size=4&group-size=2&workers=1&algorithm=${algorithm}&beta=0`);
      const pool = createNodeSandboxPool({ size: 1, limits: { deadlineMs: 100, watchdogMs: 1000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 1 << 16, maxOutputLength: 4096 }, preludes: taskPreludes() });
      const runner = await createRunner(config, { train: generateDataset(3, 12), heldout: [] }, { pool });
      try {
        const { metrics } = await runner.step();
        expect(Number.isFinite(metrics.policy_loss)).toBe(true);
        expect('kl' in metrics).toBe(false);
      } finally {
        runner.dispose();
        await pool.close();
      }
    }, 60_000);
  }
});

describe('GRPO and RLOO from the CLI', () => {
  it('npm run train -- --algorithm grpo (or rloo) trains and logs KL and the clipped share instead of entropy', async () => {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    for (const algorithm of ['grpo', 'rloo']) {
      const out = join(mkdtempSync(join(tmpdir(), 'prl-group-')), 'run');
      const flags = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--group-size', '2', '--max-program-tokens', '40', '--eval-samples', '2', '--max-steps', '2', '--checkpoint-freq', '0', '--algorithm', algorithm];
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/train.ts', ...flags, '--output-dir', out], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/step 2\/2 .* loss -?\d/);
      if (algorithm === 'grpo') expect(run.stderr).toMatch(/clipped \d/);
    }
  }, 120_000);
});
