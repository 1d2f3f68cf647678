/**
 * The grid command: 2 algorithms x 3 seeds under a small step budget write their table, and its
 * numbers are those of the same runs made one by one with `train`. In this process, no child.
 */
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { gridCommand } from './grid';
import { trainCommand } from './train';

const tiny = ['--task', 'functions', '--init-from', 'public/functions.prl', '--batch-size', '8', '--max-steps', '2', '--learning-rate', '0.003', '--eval-data-path', 'datasets/functions/evaluation_problems.json', '--eval-samples', '3', '--eval-k', '2', '--backend', 'cpu', '--quiet', '--workers', '1', '--checkpoint-freq', '0'];

/** A run's final held-out figures, as the grid reads them. */
function finalFigures(dir: string): Record<string, number> {
  const entries = readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string; value: number });
  const last = Math.max(...entries.map((e) => e.step));
  return Object.fromEntries(entries.filter((e) => e.step === last && e.name.startsWith('eval_') && !/(_ms|_per_s)$/.test(e.name)).map((e) => [e.name, e.value]));
}

describe('npm run grid', () => {
  it('2 algorithms x 3 seeds: a table of mean and spread per algorithm, equal to separate runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-grid-'));
    const out = join(dir, 'grid');
    const table = await gridCommand(['--algorithms', 'reinforce,grpo', '--seeds', '1,2,3', '--output-dir', out, ...tiny]);
    expect(table.cells.map((c) => `${c.algorithm}/${c.seed}`)).toEqual(['reinforce/1', 'reinforce/2', 'reinforce/3', 'grpo/1', 'grpo/2', 'grpo/3']);
    for (const name of ['grid.json', 'grid.csv', 'grid.md']) expect(existsSync(join(out, name))).toBe(true);
    // The code it ran with is in grid.json, as each run's is in its run.json.
    expect(JSON.parse(readFileSync(join(out, 'grid.json'), 'utf8')).code).toEqual(JSON.parse(readFileSync(join(table.cells[0].dir, 'run.json'), 'utf8')).code);
    const csv = readFileSync(join(out, 'grid.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('algorithm,figure,n,mean,std,min,max');
    expect(readFileSync(join(out, 'grid.md'), 'utf8')).toMatch(/\| figure \| reinforce \| grpo \|/);
    // The threads each update had are in the table: under a time budget they are part of the comparison.
    const threads = table.rows.filter((r) => r.figure === 'update_threads');
    expect(threads.map((r) => [r.algorithm, r.n])).toEqual([['reinforce', 3], ['grpo', 3]]);
    for (const row of threads) expect(row.values).toEqual(table.cells.filter((c) => c.algorithm === row.algorithm).map((c) => JSON.parse(readFileSync(join(c.dir, 'run.json'), 'utf8')).threads));

    // The same settings, run one by one: the grid's cells and means are theirs.
    const separate: Record<string, number>[] = [];
    for (const seed of [1, 2, 3]) {
      const run = join(dir, `alone-${seed}`);
      await trainCommand([...tiny, '--algorithm', 'reinforce', '--seed', String(seed), '--output-dir', run]);
      separate.push(finalFigures(run));
    }
    const reinforce = table.cells.filter((c) => c.algorithm === 'reinforce');
    expect(reinforce.map((c) => c.figures)).toEqual(separate);
    const names = Object.keys(separate[0]);
    expect(names.length).toBeGreaterThan(2);
    for (const name of names) {
      const row = table.rows.find((r) => r.algorithm === 'reinforce' && r.figure === name)!;
      const values = separate.map((f) => f[name]);
      const mean = values.reduce((a, b) => a + b, 0) / 3;
      expect(row.mean).toBeCloseTo(mean, 12);
      expect(row.std).toBeCloseTo(Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / 2), 12);
      expect(csv).toContain(['reinforce', name, 3, row.mean, row.std, row.min, row.max].join(','));
    }
    // Seeds matter: the three runs sample differently, and each of the grid's cells trained as its
    // run alone did. (Their held-out figures alone cannot show it: two steps barely move a shipped
    // policy's greedy programs, and a confident policy's are the same for every seed.)
    const trained = (dir: string) => {
      const sampled = /^(avg_reward|policy_loss|program_tokens|grad_norm)$/;
      return readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string; value: number }).filter((e) => sampled.test(e.name)).map((e) => `${e.step} ${e.name} ${e.value}`).join('\n');
    };
    const alone = [1, 2, 3].map((seed) => trained(join(dir, `alone-${seed}`)));
    expect(alone[0]).not.toBe('');
    expect(new Set(alone).size).toBe(3);
    expect(reinforce.map((c) => trained(c.dir))).toEqual(alone);

    // Run again: every finished cell is kept, none retrained.
    const again = await gridCommand(['--algorithms', 'reinforce,grpo', '--seeds', '1,2,3', '--output-dir', out, ...tiny]);
    expect(again.rows).toEqual(table.rows.map((r) => (r.figure === 'wall_seconds' ? again.rows.find((x) => x.algorithm === r.algorithm && x.figure === r.figure)! : r)));
  }, 300_000);

  it('runs a finished cell again when a file it read changed since (the same command on another warm start)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-grid-files-'));
    const warm = join(dir, 'warm.prl');
    copyFileSync('public/functions.prl', warm);
    const flags = ['--algorithms', 'reinforce', '--seeds', '1', '--output-dir', join(dir, 'grid'), ...tiny.map((arg) => (arg === 'public/functions.prl' ? warm : arg)), '--max-steps', '1'];
    const first = await gridCommand(flags);
    const started = () => (JSON.parse(readFileSync(join(first.cells[0].dir, 'run.json'), 'utf8')) as { started: string }).started;
    const before = started();
    await gridCommand(flags);
    expect(started()).toBe(before); // unchanged files: kept
    // A long run's metrics (past what Math.max(...lines) takes as arguments) and a last line cut off: the cell is still read.
    const metrics = join(first.cells[0].dir, 'metrics.jsonl');
    appendFileSync(metrics, '{"step": 1, "name": "avg_reward", "value": 0, "wallMs": 1}\n'.repeat(250_000) + '{"step": 1, "na');
    expect((await gridCommand(flags)).rows).toEqual(first.rows.map((r) => (r.figure === 'wall_seconds' ? expect.anything() : r)));
    expect(started()).toBe(before);
    copyFileSync(join(first.cells[0].dir, 'latest.prl'), warm); // other weights at the same path
    await gridCommand(flags);
    expect(started()).not.toBe(before);
  }, 120_000);

  it('runs a cell again when its --config file was edited, and says so when it replaces a finished run made otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-grid-config-'));
    const config = join(dir, 'c.yaml');
    writeFileSync(config, 'algorithm:\n  entropyCoef: 0.001\n');
    const flags = ['--algorithms', 'reinforce', '--seeds', '1', '--output-dir', join(dir, 'grid'), ...tiny, '--max-steps', '1', '--config', config];
    const first = await gridCommand(flags);
    const record = () => JSON.parse(readFileSync(join(first.cells[0].dir, 'run.json'), 'utf8')) as { started: string; config: { algorithm: { entropyCoef: number } } };
    const before = record().started;
    writeFileSync(config, 'algorithm:\n  entropyCoef: 0.01\n');
    await gridCommand(flags);
    expect(record().started).not.toBe(before);
    expect(record().config.algorithm.entropyCoef).toBe(0.01);
    // A --quiet more or less is the same run; a longer budget is another, said before it replaces the cell.
    const said = vi.spyOn(console, 'error');
    try {
      const kept = record().started;
      await gridCommand(flags.filter((arg) => arg !== '--quiet'));
      expect(record().started).toBe(kept);
      await gridCommand([...flags, '--max-steps', '2']);
      expect(said.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/was made with another command \(.*--max-steps.*\): replacing it/);
    } finally {
      said.mockRestore();
    }
  }, 120_000);

  it('a digit task\'s cells keep their start (the warm start\'s held-out figures) beside their end', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'prl-grid-digits-')), 'grid');
    const table = await gridCommand(['--algorithms', 'reinforce_monarch', '--seeds', '1', '--output-dir', out, '--task', 'reverse_digits', '--max-steps', '2', '--warm-start-steps', '2', '--warm-start-examples', '16', '--eval-samples', '8', '--num-generators', '1', '--layers', '1', '--d-model', '16', '--heads', '2', '--quiet']);
    const eval0 = JSON.parse(readFileSync(join(table.cells[0].dir, 'eval_results.json'), 'utf8')) as { before: { accuracy: number }; after: { accuracy: number } };
    expect(table.cells[0].figures).toMatchObject({ start_eval_accuracy: eval0.before.accuracy, eval_accuracy: eval0.after.accuracy });
  }, 120_000);

  it('refuses what it sets per run, and unknown algorithms', async () => {
    await expect(gridCommand(['--algorithms', 'reinforce', '--seed', '3'])).rejects.toThrow('--seed: the grid sets it for each run');
    await expect(gridCommand(['--algorithms', 'reinforce,nope'])).rejects.toThrow('--algorithms: unknown nope');
    // A flag one algorithm refuses stops the grid before any cell trains.
    const out = join(mkdtempSync(join(tmpdir(), 'prl-grid-refused-')), 'grid');
    await expect(gridCommand(['--algorithms', 'reinforce,dqn', '--seeds', '1', '--output-dir', out, ...tiny, '--gradient-accumulation-steps', '2'])).rejects.toThrow(/^grid: dqn: algorithm.gradientAccumulationSteps works with algorithms whose update splits/);
    expect(existsSync(join(out, 'reinforce-seed1'))).toBe(false);
    // A digit task's cells are read with npm run digits' own flags (--verbose is one): what stops this grid is the accumulation alone.
    await expect(gridCommand(['--algorithms', 'reinforce_monarch', '--seeds', '1', '--output-dir', out, '--task', 'sum_digits', '--verbose', '--gradient-accumulation-steps', '2'])).rejects.toThrow(/^grid: reinforce_monarch: algorithm.gradientAccumulationSteps/);
  });
});
