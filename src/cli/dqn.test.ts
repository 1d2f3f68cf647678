/** DQN through the one loop from the CLI: it trains on the functions and Kolmogorov tasks, logs CleanRL's figures, and its checkpoint resumes it whole. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';

const tsx = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { encoding: 'utf8' });
const dqn = ['--algorithm', 'dqn', '--exploration', 'epsilon', '--learning-starts', '4', '--train-frequency', '4', '--dqn-batch-size', '8', '--target-network-frequency', '2', '--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--eval-samples', '2', '--checkpoint-freq', '0'];

describe('DQN from the CLI', () => {
  it('trains on the functions task, logging td loss, Q-values and epsilon; its checkpoint holds the target network and resumes at its counters', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'prl-dqn-')), 'run');
    const flags = ['--task', 'functions', '--context', '160', '--max-program-tokens', '24', '--problems', 'datasets/functions/training_problems.json', ...dqn];
    const run = tsx(['src/cli/train.ts', ...flags, '--max-steps', '4', '--output-dir', out]);
    expect(run.status, run.stderr).toBe(0);
    const events = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string; value: number });
    const series = (name: string) => events.filter((e) => e.name === name);
    expect(series('charts/epsilon').map((e) => e.value)).toEqual([0.995 ** 4, 0.995 ** 8, 0.995 ** 12, 0.995 ** 16].map((v) => expect.closeTo(v, 9)));
    expect(series('losses/td_loss').length).toBeGreaterThan(0);
    for (const e of series('losses/td_loss')) expect(Number.isFinite(e.value)).toBe(true);
    expect(series('losses/q_values').length).toBe(series('losses/td_loss').length);
    const { meta, tensors } = await decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'latest.prl'))));
    const names = tensors.map((t) => t.name);
    expect(names).toContain('target/head/w');
    expect(names).toContain('dueling/w');
    expect(names).toContain('dqn/counters');
    expect(meta.step).toBe(4);

    const resumed = tsx(['src/cli/train.ts', ...flags, '--max-steps', '5', '--output-dir', out, '--resume', join(out, 'latest.prl')]);
    expect(resumed.status, resumed.stderr).toBe(0);
    const after = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string; value: number });
    // The program count came back with the checkpoint: epsilon goes on from 16 programs, not from 0.
    expect(after.find((e) => e.step === 5 && e.name === 'charts/epsilon')!.value).toBeCloseTo(0.995 ** 20, 9);
  }, 120_000);

  it('trains on the Kolmogorov task too, within a wall-clock budget (--time-limit)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'prl-dqn-k-')), 'run');
    const run = tsx(['src/cli/train.ts', ...dqn, '--max-program-tokens', '40', '--max-sequence-length', '32', '--context', '96', '--max-steps', '100000', '--time-limit', '4', '--output-dir', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toContain('"name":"losses/td_loss"');
    const { meta } = await decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'latest.prl'))));
    expect(meta.step).toBeGreaterThan(0);
    expect(meta.step).toBeLessThan(100000);
  }, 120_000);

  it('runs on the digit tasks too, sampling in the trainer (no generator workers are started)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-dqn-digits-'));
    const out = join(dir, 'run');
    // A --config file's fields are the user's, as flags are: the digit recipe does not overwrite them (its temperature is 0.5).
    writeFileSync(join(dir, 'config.yaml'), 'algorithm:\n  temperature: 0.9\n');
    const run = tsx(['src/cli/digits.ts', '--config', join(dir, 'config.yaml'), '--task', 'sum_digits', '--algorithm', 'dqn', '--num-steps', '3', '--warm-start-steps', '2', '--warm-start-examples', '16', '--eval-samples', '10', '--learning-starts', '8', '--train-frequency', '8', '--batch-size', '8', '--d-model', '16', '--layers', '1', '--heads', '2', '--context', '40', '--output-dir', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/step 3\/3 .*loss \d/);
    expect(run.stdout).toContain('after RL');
    expect(run.stdout).toContain('RL 3 steps x 8 sampled on the trainer (dqn)');
    expect(run.stdout).not.toMatch(/generator\(s\)|generator workers stay idle/);
    expect(JSON.parse(readFileSync(join(out, 'eval_results.json'), 'utf8')).num_generators).toBe(0);
    // Its own figures reach metrics.jsonl, as the Kolmogorov and functions runs' do.
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toContain('"name":"losses/td_loss"');
    // Every line has its value (dqn has no baseline and no importance weight: those are left out).
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { name: string; value?: number });
    expect(lines.filter((line) => typeof line.value !== 'number').map((line) => line.name)).toEqual([]);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).config.algorithm.temperature).toBe(0.9);
    // The config file is recorded, as a train run's is: a grid sees it edited.
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).files.map((f: { role: string }) => f.role)).toEqual(['config file']);
  }, 120_000);
});
