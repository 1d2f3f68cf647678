/**
 * Learning from preferences through the one loop and the CLI. DPO: on pairs the run makes from its
 * own samples (from the shipped Kolmogorov warm start), and on a pair file (`train --preferences`),
 * scored by `eval --preferences` on pairs it never trained on. The reward model: trained on a pair
 * file (`train-reward-model`), scored on held-out pairs, then RL against it (`--use-reward-model`).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';
import { configFromSearchParams } from '../core/config';
import { createKolmogorovRunner as createRunner } from '../core/kolmogorov/runner';
import { taskPreludes } from '../core/runner';
import { loadKolmogorovFile } from './data';
import { createNodeSandboxPool } from './sandboxHost';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const tsx = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { encoding: 'utf8' });

describe('DPO on its own samples', () => {
  it('pairs each group\'s best correct program with its worst, from the shipped warm start: TRL\'s figures, flat tensor count', async () => {
    const shipped = new Uint8Array(readFileSync('public/pretrained.prl'));
    const { meta } = await decodeCheckpoint(shipped);
    const config = configFromSearchParams('algorithm=dpo&beta=0.1&batch-size=32&group-size=8&learning-rate=0.0001&workers=1&temperature=1.5', meta.config);
    const pool = createNodeSandboxPool({ size: 1, limits: { deadlineMs: 100, watchdogMs: 1000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 1 << 16, maxOutputLength: 4096 }, preludes: taskPreludes() });
    // Short sequences the warm start solves often: most groups hold a correct and a wrong program.
    const train = (await loadKolmogorovFile('datasets/train.jsonl', { quiet: true })).filter((r) => r.sequence.length <= 12).slice(0, 40);
    const runner = await createRunner(config, { train, heldout: [] }, { pool, initFrom: shipped });
    try {
      const first = await runner.step();
      const tensors = tf.memory().numTensors;
      const second = await runner.step();
      expect(tf.memory().numTensors).toBe(tensors);
      for (const { metrics, skipped } of [first, second]) {
        expect(skipped).toBe(false);
        expect(metrics.pairs).toBeGreaterThan(0);
        // The first update starts at the reference: log 2 and no margin.
        for (const name of ['rewards/chosen', 'rewards/rejected', 'rewards/margins', 'rewards/accuracies', 'logps/chosen', 'logps/rejected']) expect(Number.isFinite(metrics[name]), name).toBe(true);
      }
      expect(first.metrics.policy_loss).toBeCloseTo(Math.LN2, 5);
      expect(first.metrics['rewards/margins']).toBeCloseTo(0, 5);
    } finally {
      runner.dispose();
      await pool.close();
    }
  }, 120_000);
});

/** "n, n, ... n" (length) with its one-line program and a longer correct one: a concatenation of two halves. */
function pair(value: number, length: number) {
  const half = length / 2;
  return {
    prompt: Array(length).fill(value).join(', '),
    chosen: `sequence_1 = repeat_num(${length}, ${value})\noutput = sequence_1`,
    rejected: `sequence_1 = repeat_num(${half}, ${value})\nsequence_2 = concatenate(sequence_1, sequence_1)\noutput = sequence_2`,
  };
}
const jsonl = (rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

describe('DPO on a pair file', () => {
  it('train --preferences learns the shorter program; eval --preferences scores pairs it never saw; bad lines are named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-dpo-'));
    const trainPairs = join(dir, 'train.jsonl');
    const heldoutPairs = join(dir, 'heldout.jsonl');
    // Values 1..40 train, 41..50 are held out; a line that is not a pair and one whose program does not parse are reported.
    const train = Array.from({ length: 40 }, (_, i) => pair(i + 1, 4 + 2 * (i % 3)));
    writeFileSync(trainPairs, jsonl(train) + '{"prompt": "1, 2"}\n' + JSON.stringify({ ...pair(3, 4), chosen: 'sequence_1 = nope(3)\noutput = sequence_1' }) + '\n');
    writeFileSync(heldoutPairs, jsonl(Array.from({ length: 10 }, (_, i) => pair(41 + i, 4 + 2 * (i % 3)))));
    const model = ['--layers', '1', '--d-model', '32', '--heads', '2', '--max-program-tokens', '40', '--eval-samples', '2', '--checkpoint-freq', '0'];

    const warm = join(dir, 'warm');
    const start = tsx(['src/cli/train.ts', ...model, '--max-steps', '1', '--batch-size', '2', '--output-dir', warm]);
    expect(start.status, start.stderr).toBe(0);
    const dpo = join(dir, 'dpo');
    const run = tsx(['src/cli/train.ts', ...model, '--init-from', join(warm, 'latest.prl'), '--preferences', trainPairs, '--batch-size', '20', '--learning-rate', '0.003', '--max-steps', '30', '--output-dir', dpo]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/train\.jsonl:41: missing field "chosen"/);
    expect(run.stderr).toMatch(/train\.jsonl:42: "chosen": .*nope/);
    expect(run.stderr).toMatch(/step 30\/30 .*rewards\/accuracies \d/);
    const config = JSON.parse(readFileSync(join(dpo, 'config.json'), 'utf8')) as { algorithm: { name: string; beta: number } };
    expect(config.algorithm).toMatchObject({ name: 'dpo', beta: 0.1 }); // TRL's DPO beta when none is given
    const metrics = readFileSync(join(dpo, 'metrics.jsonl'), 'utf8');
    expect(metrics).toContain('"name":"rewards/margins"');

    const scored = (checkpoint: string) => {
      const result = tsx(['src/cli/eval.ts', '--checkpoint', checkpoint, '--reference', join(warm, 'latest.prl'), '--preferences', heldoutPairs, '--json']);
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { n: number; rewards_accuracies: number; rewards_margins: number };
    };
    const before = scored(join(warm, 'latest.prl'));
    expect(before).toMatchObject({ n: 10, rewards_accuracies: 0, rewards_margins: 0 });
    const after = scored(join(dpo, 'latest.prl'));
    expect(after.n).toBe(10);
    expect(after.rewards_accuracies).toBeGreaterThanOrEqual(0.9);
    expect(after.rewards_margins).toBeGreaterThan(0);

    const missing = tsx(['src/cli/eval.ts', '--checkpoint', join(dpo, 'latest.prl'), '--preferences', heldoutPairs]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('--reference FILE');
  }, 240_000);
});

describe('the reward model from the CLI', () => {
  it('train-reward-model learns the shorter program on held-out pairs; train --use-reward-model adds its score; the seed\'s switches refuse what does not fit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-rm-'));
    const trainPairs = join(dir, 'train.jsonl');
    const heldoutPairs = join(dir, 'heldout.jsonl');
    writeFileSync(trainPairs, jsonl(Array.from({ length: 40 }, (_, i) => pair(i + 1, 4 + 2 * (i % 3)))));
    writeFileSync(heldoutPairs, jsonl(Array.from({ length: 10 }, (_, i) => pair(41 + i, 4 + 2 * (i % 3)))));
    const model = ['--layers', '1', '--d-model', '32', '--heads', '2', '--max-program-tokens', '40', '--eval-samples', '2', '--checkpoint-freq', '0'];
    const warm = join(dir, 'warm');
    expect(tsx(['src/cli/train.ts', ...model, '--max-steps', '1', '--batch-size', '2', '--output-dir', warm]).status).toBe(0);

    const rmDir = join(dir, 'rm');
    const trained = tsx(['src/cli/trainRewardModel.ts', '--init-from', join(warm, 'latest.prl'), '--data-path', trainPairs, '--eval-data-path', heldoutPairs, '--steps', '40', '--learning-rate', '0.003', '--output-dir', rmDir]);
    expect(trained.status, trained.stderr).toBe(0);
    const result = JSON.parse(trained.stdout) as { n: number; accuracy: number; accuracy_before: number };
    expect(result.n).toBe(10);
    expect(result.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(JSON.parse(readFileSync(join(rmDir, 'eval_results.json'), 'utf8'))).toEqual(result);
    // Its record says what it was made from, by hash; a second one into the same folder is refused, or replaces it when asked.
    const record = JSON.parse(readFileSync(join(rmDir, 'run.json'), 'utf8')) as { files: { role: string; path: string }[]; steps: number; ended: string | null };
    expect(record.files.map((f) => [f.role, f.path])).toEqual([['init-from', join(warm, 'latest.prl')], ['data-path', trainPairs], ['eval-data-path', heldoutPairs]]);
    expect([record.steps, record.ended === null]).toEqual([40, false]);
    const again = ['src/cli/trainRewardModel.ts', '--init-from', join(warm, 'latest.prl'), '--data-path', trainPairs, '--steps', '2', '--output-dir', rmDir];
    const refusedAgain = tsx(again);
    expect(refusedAgain.status).toBe(1);
    expect(refusedAgain.stderr).toContain(`--output-dir ${rmDir} already holds a reward model or a run`);
    expect(JSON.parse(readFileSync(join(rmDir, 'eval_results.json'), 'utf8'))).toEqual(result);
    // A reward model given where a policy goes says what it is.
    const asPolicy = tsx(['src/cli/eval.ts', '--checkpoint', join(rmDir, 'reward_model.prl'), '--limit', '1']);
    expect(asPolicy.status).toBe(1);
    expect(asPolicy.stderr).toContain('a reward model\'s weights');
    const exported = tsx(['src/cli/export.ts', '--checkpoint', join(rmDir, 'reward_model.prl'), '--out', join(dir, 'exported')]);
    expect(exported.status).toBe(1);
    expect(exported.stderr).toContain('a reward model, not a policy: export writes a policy for PyTorch');
    expect(existsSync(join(dir, 'exported'))).toBe(false);
    const replaced = tsx([...again, '--overwrite']);
    expect(replaced.status, replaced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(rmDir, 'run.json'), 'utf8')).steps).toBe(2);
    expect(existsSync(join(rmDir, 'eval_results.json'))).toBe(true);

    const rl = tsx(['src/cli/train.ts', ...model, '--init-from', join(warm, 'latest.prl'), '--use-reward-model', join(rmDir, 'reward_model.prl'), '--reward-model-weight', '0.5', '--max-steps', '2', '--batch-size', '4', '--group-size', '2', '--output-dir', join(dir, 'rl')]);
    expect(rl.status, rl.stderr).toBe(0);
    expect(rl.stderr).toContain('0.5 x its score is added to the task\'s reward');
    const events = readFileSync(join(dir, 'rl', 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { name: string; value: number });
    const named = (name: string) => events.filter((e) => e.name === name);
    expect(named('reward_model')).toHaveLength(2);
    expect(named('task_reward')).toHaveLength(2);

    const policyAsModel = tsx(['src/cli/train.ts', ...model, '--use-reward-model', join(warm, 'latest.prl'), '--max-steps', '1', '--output-dir', join(dir, 'bad')]);
    expect(policyAsModel.status).toBe(1);
    expect(policyAsModel.stderr).toContain('a policy, not a reward model');
    const both = tsx(['src/cli/train.ts', ...model, '--test-case-rewards-only', '--use-reward-model', join(rmDir, 'reward_model.prl'), '--output-dir', join(dir, 'bad2')]);
    expect(both.status).toBe(1);
    expect(both.stderr).toContain('--test-case-rewards-only');
  }, 240_000);

  it('train-reward-model makes its pairs from the warm start\'s own samples when there is no pair file: the functions task', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'prl-rm-f-')), 'rm');
    const run = tsx(['src/cli/trainRewardModel.ts', '--init-from', 'public/functions.prl', '--data', 'datasets/functions/training_problems.json', '--samples', '8', '--temperature', '1.5', '--steps', '3', '--output-dir', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/training_problems\.json: [1-9]\d* pairs from 8 items x 8 samples/);
    expect(JSON.parse(run.stdout)).toMatchObject({ steps: 3 });
    const refused = tsx(['src/cli/trainRewardModel.ts', '--init-from', 'public/functions.prl', '--output-dir', out]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('give --data-path PAIRS.jsonl, or --data ITEMS');
  }, 120_000);
});
