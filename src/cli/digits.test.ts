import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../core/config';
import { hostScored, runDigitTask, type DigitStepMetrics } from '../core/digits/experiment';
import { digitTask } from '../core/digits/task';
import { createTrainingLoop, SKIPS_SAID_AGAIN } from '../core/loop';
import { TransformerPolicy } from '../core/model/transformer';
import { createNodeGeneratorPool } from './digitGenerators';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('digit tasks with generator worker_threads', () => {
  it.each([
    // On-policy: step s samples with version s (the sync sent after step s-1).
    { overlap: false, sampledWith: (step: number) => step },
    // Overlapped: batch s was requested before update s-1, so it holds version s-1 (batch 1: the first sync).
    { overlap: true, sampledWith: (step: number) => Math.max(1, step - 1) },
  ])('smoke: 2 generators run a few RL steps (overlap $overlap), sampling with the versions it implies', async ({ overlap, sampledWith }) => {
    const base = defaultConfig();
    const config = parseConfig({
      ...base,
      task: { ...base.task, name: 'reverse_digits' },
      model: { ...base.model, layers: 1, dModel: 16, heads: 2, context: 40 },
      algorithm: { ...base.algorithm, batchSize: 8, learningRate: 1e-3 },
      run: { ...base.run, evalSamples: 10 },
      digits: { ...base.digits, numSteps: 3, numGenerators: 2, overlap, warmStartExamples: 16, warmStartSteps: 2 },
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
      expect(m.generators.map((g) => g.generatedWith)).toEqual([sampledWith(m.step), sampledWith(m.step)]);
      expect(m.samples.every((sample) => sample.version === sampledWith(m.step))).toBe(true);
      expect(m.trainerVersion).toBe(m.step + 1);
      expect(m.samples).toHaveLength(2);
      expect(Number.isFinite(m.loss)).toBe(true);
    });
    expect(steps.at(-1)!.generators.map((g) => g.generated)).toEqual([12, 12]);
  });
});

describe('a warm start made outside the loop', () => {
  it('becomes the reference when the loop is told (startFromHere): the KL to it is zero at the first step, not the distance to the weights the loop began with', async () => {
    const base = defaultConfig('sum_digits', 'reinforce');
    const config = parseConfig({ ...base, model: { ...base.model, layers: 1, dModel: 16, heads: 2, context: 40 }, algorithm: { ...base.algorithm, batchSize: 8, groupSize: 1, klCoef: 0.05 } });
    const kl = async (rebase: boolean) => {
      const loop = await createTrainingLoop(config, digitTask(config, new Set()), [], { pool: hostScored });
      try {
        // The warm start: other weights put into the policy from outside.
        const other = new TransformerPolicy(loop.policy.config, 99);
        loop.policy.setWeights(other.getWeights());
        other.dispose();
        if (rebase) loop.startFromHere();
        return (await loop.step()).metrics.kl;
      } finally {
        loop.dispose();
      }
    };
    expect(Math.abs(await kl(true))).toBeLessThan(1e-4);
    expect(Math.abs(await kl(false))).toBeGreaterThan(1e-3);
  });
});

/** A tiny sum_digits DQN loop with `algorithm` settings, its log lines collected, run for `steps` steps. */
async function dqnLog(algorithm: Record<string, number>, steps: number): Promise<{ logs: string[]; skipped: boolean[] }> {
  const base = defaultConfig('sum_digits', 'dqn');
  const config = parseConfig({ ...base, model: { ...base.model, layers: 1, dModel: 16, heads: 2, context: 40 }, algorithm: { ...base.algorithm, groupSize: 1, ...algorithm } });
  const logs: string[] = [];
  const loop = await createTrainingLoop(config, digitTask(config, new Set()), [], { pool: hostScored, onLog: (line) => logs.push(line) });
  try {
    const skipped: boolean[] = [];
    for (let i = 0; i < steps; i++) skipped.push((await loop.step()).skipped);
    return { logs, skipped };
  } finally {
    loop.dispose();
  }
}

describe('skipped updates in the log', () => {
  it('a skip by design (DQN filling its buffer, then between its training steps) is said once per kind, not at every step', async () => {
    const { logs, skipped } = await dqnLog({ batchSize: 4, learningStarts: 8, trainFrequency: 12 }, 10);
    // Two steps fill the buffer, then two of every three steps owe no update (12 programs, 4 a step).
    expect(skipped.filter(Boolean).length).toBeGreaterThanOrEqual(6);
    const skips = logs.filter((line) => line.includes('update skipped'));
    expect(skips).toHaveLength(2);
    expect(skips[0]).toMatch(/filling the replay buffer.*not reported again/);
    expect(skips[1]).toMatch(/no update owed yet.*not reported again/);
  });

  it(`a run that never updates says so again after ${SKIPS_SAID_AGAIN} expected skips in a row, and then as the count doubles, not every ${SKIPS_SAID_AGAIN} steps`, async () => {
    const { logs } = await dqnLog({ batchSize: 2, learningStarts: 100_000, bufferSize: 200_000 }, 3 * SKIPS_SAID_AGAIN);
    expect(logs.filter((line) => /update skipped|no update/.test(line))).toEqual([
      expect.stringMatching(/^step 1: update skipped \(filling the replay buffer/),
      expect.stringMatching(new RegExp(`^step ${SKIPS_SAID_AGAIN}: no update in the last ${SKIPS_SAID_AGAIN} steps`)),
      expect.stringMatching(new RegExp(`^step ${2 * SKIPS_SAID_AGAIN}: no update in the last ${2 * SKIPS_SAID_AGAIN} steps`)),
    ]);
  });
});

describe('npm run digits refused before it begins', () => {
  it('holds nothing on (signal handlers, the folder lock) when its output folder is refused', async () => {
    const { digitsMain } = await import('./digits');
    const { mkdtempSync, writeFileSync, existsSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'prl-digits-refused-'));
    const file = join(dir, 'in-the-way');
    writeFileSync(file, 'not a folder');
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    await expect(digitsMain(['--task', 'sum_digits', '--backend', 'cpu', '--output-dir', file])).rejects.toThrow(/output-dir/);
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    // A folder that holds a run: refused, and its lock released (a second try is refused for the run, not for a lock).
    const run = join(dir, 'run');
    await import('node:fs').then(({ mkdirSync }) => mkdirSync(run));
    writeFileSync(join(run, 'run.json'), '{}');
    for (let i = 0; i < 2; i++) await expect(digitsMain(['--task', 'sum_digits', '--backend', 'cpu', '--output-dir', run])).rejects.toThrow(/already holds a run/);
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    expect(existsSync(run) && readdirSync(run).filter((name) => name.includes('lock'))).toEqual([]);
  });

  it('--max-steps is said as the steps RL takes, of the schedule it keeps; --quiet prints no progress, the warm start\'s included', async () => {
    const { digitsMain } = await import('./digits');
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: unknown) => void lines.push(String(line));
    try {
      await digitsMain(['--task', 'reverse_digits', '--max-steps', '2', '--warm-start-steps', '50', '--eval-samples', '4', '--num-generators', '1', '--layers', '1', '--d-model', '16', '--heads', '2', '--quiet']);
    } finally {
      console.log = log;
    }
    expect(lines.join('\n')).toContain("RL 2 of the schedule's 200 steps");
    expect(lines.filter((line) => /^warm start \d+\/|^step \d+\//.test(line))).toEqual([]);
    expect(lines.join('\n')).toContain('after RL');
  }, 60_000);
});
