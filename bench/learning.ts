/**
 * Benchmarks of the learning algorithms' cost, as JSON lines (`npm run bench -- --only=...`):
 *
 * - `expert_iteration`: rounds a minute and demonstrations a minute of expert iteration from the
 *   shipped Kolmogorov policy (public/pretrained.prl), the task's full search on each round's
 *   unsolved items, on the training data.
 * - `dqn`: the time of one step of DQN (soft Q, its defaults: one update of 32 replayed programs
 *   a step of 32, online, target and reference passes) against one of REINFORCE at the same
 *   batch, from the shipped functions policy on the seed's training problems, and their ratio.
 */
import { readFileSync } from 'node:fs';
import { decodeCheckpoint } from '../src/core/checkpoint';
import { parseConfig, withVariant, type LabConfig } from '../src/core/config';
import { createTrainingLoop } from '../src/core/loop';
import { taskDefinition } from '../src/core/registry';
import { taskPreludes } from '../src/core/runner';
import { sandboxLimits } from '../src/cli/report';
import { createNodeSandboxPool } from '../src/cli/sandboxHost';
import { loadItemsFile } from '../src/cli/data';
import { median } from './stats';

export type Report = (figure: { name: string; unit: string; median: number; min: number; max: number; runs: number; [extra: string]: unknown }) => void;

async function checkpointConfig(path: string, algorithm: string, change: Record<string, unknown> = {}): Promise<{ bytes: Uint8Array; config: LabConfig }> {
  const bytes = new Uint8Array(readFileSync(path));
  const { meta } = await decodeCheckpoint(bytes);
  const base = withVariant(parseConfig(meta.config), { algorithm });
  return { bytes, config: parseConfig({ ...base, algorithm: { ...base.algorithm, ...change }, sandbox: { ...base.sandbox, workers: 1 } }) };
}

export async function expertIterationFigures(rounds: number, report: Report): Promise<void> {
  const { bytes, config } = await checkpointConfig('public/pretrained.prl', 'expert_iteration', { batchSize: 64, numSamples: 4, search: 'full' });
  const definition = taskDefinition('kolmogorov');
  const train = await loadItemsFile(definition, 'datasets/train.jsonl');
  const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(config), preludes: taskPreludes() });
  const loop = await createTrainingLoop(config, definition.createTask(config, []), train, { pool, initFrom: bytes });
  try {
    const seconds: number[] = [];
    let demonstrations = 0;
    for (let round = 0; round < rounds; round++) {
      const start = performance.now();
      const result = await loop.step();
      seconds.push((performance.now() - start) / 1000);
      demonstrations += (result.metrics.store_added ?? 0) + (result.metrics.store_improved ?? 0);
    }
    const total = seconds.reduce((a, b) => a + b, 0);
    report({
      name: 'expert_iteration_rounds/kolmogorov_shipped', unit: 'rounds/min', median: 60 / median(seconds), min: 60 / Math.max(...seconds), max: 60 / Math.min(...seconds), runs: rounds,
      demonstrations_per_min: (60 * demonstrations) / total, items_per_round: config.algorithm.batchSize / config.algorithm.numSamples, samples_per_item: config.algorithm.numSamples, search: config.algorithm.search,
    });
  } finally {
    loop.dispose();
    await pool.close();
  }
}

export async function dqnFigures(steps: number, report: Report): Promise<void> {
  const definition = taskDefinition('functions');
  const train = await loadItemsFile(definition, 'datasets/functions/training_problems.json');
  const perStep: Record<string, number[]> = {};
  for (const algorithm of ['reinforce', 'dqn']) {
    const { bytes, config } = await checkpointConfig('public/functions.prl', algorithm, { batchSize: 32 });
    const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(config), preludes: taskPreludes() });
    const loop = await createTrainingLoop(config, definition.createTask(config, []), train, { pool, initFrom: bytes });
    try {
      // DQN's first steps fill its buffer (learningStarts) and take no update: warm up past them.
      for (let i = 0; i < 4; i++) await loop.step();
      perStep[algorithm] = [];
      for (let i = 0; i < steps; i++) {
        const start = performance.now();
        await loop.step();
        perStep[algorithm].push(performance.now() - start);
      }
    } finally {
      loop.dispose();
      await pool.close();
    }
  }
  const [reinforce, dqn] = [median(perStep.reinforce), median(perStep.dqn)];
  report({ name: 'dqn_step/functions_shipped_b32', unit: 'ms', median: dqn, min: Math.min(...perStep.dqn), max: Math.max(...perStep.dqn), runs: steps, reinforce_ms: reinforce, ratio_to_reinforce: dqn / reinforce });
}
