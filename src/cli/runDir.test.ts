/**
 * A run's output directory (runDir.ts, issue 29): --overwrite replaces the whole earlier run, a
 * resume continues only the run of its own directory (unless told to replace it), one process at
 * a time writes a run (a lock file, taken over from a process that is gone), and the metrics
 * rewrite of a resume is whole or not at all.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsRun, lockRunDir, refuseClearingInputs, truncateMetrics } from './runDir';
import { trainCommand } from './train';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const data = ['--data-path', join(process.cwd(), 'datasets/train.jsonl'), '--eval-data-path', join(process.cwd(), 'datasets/heldout.jsonl')];
const tiny = ['--layers', '1', '--d-model', '16', '--heads', '1', '--batch-size', '2', '--group-size', '1', '--eval-samples', '1', '--quiet', ...data];
const train = (args: string[], cwd = process.cwd()) => spawnSync(tsx, [join(process.cwd(), 'src/cli/train.ts'), ...tiny, ...args], { encoding: 'utf8', timeout: 120_000, cwd });
const steps = (dir: string) => readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string }).filter((e) => e.name === 'avg_reward').map((e) => e.step);

describe('--overwrite replaces the earlier run whole', () => {
  it('the new run\'s checkpoints are kept and the old run\'s go, with its logs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-overwrite-'));
    expect(train(['--output-dir', dir, '--max-steps', '12', '--checkpoint-freq', '2', '--keep-checkpoints', '2']).status).toBe(0);
    const again = train(['--output-dir', dir, '--overwrite', '--max-steps', '4', '--checkpoint-freq', '2', '--keep-checkpoints', '2', '--seed', '7']);
    expect(again.status, again.stderr).toBe(0);
    expect(readdirSync(join(dir, 'checkpoints')).sort()).toEqual(['checkpoint-2.prl', 'checkpoint-4.prl']);
    expect(steps(dir)).toEqual([1, 2, 3, 4]);
    expect(JSON.parse(readFileSync(join(dir, 'logs', 'eval_results.json'), 'utf8')).step).toBe(4);
    expect(readFileSync(join(dir, 'logs', 'training_log.txt'), 'utf8')).not.toContain('step 12/12');
  });

  it('a refused --overwrite (a damaged --init-from) leaves the earlier run as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-overwrite-refused-'));
    expect(train(['--output-dir', dir, '--max-steps', '2']).status).toBe(0);
    const before = readdirSync(join(dir, 'checkpoints'));
    const bad = join(mkdtempSync(join(tmpdir(), 'prl-bad-')), 'bad.prl');
    writeFileSync(bad, 'not a checkpoint');
    const refused = train(['--output-dir', dir, '--overwrite', '--max-steps', '2', '--init-from', bad]);
    expect(refused.status).not.toBe(0);
    expect(readdirSync(join(dir, 'checkpoints'))).toEqual(before);
    expect(steps(dir)).toEqual([1, 2]);
  });
});

describe('a resume continues its own directory\'s run only', () => {
  it('another run\'s checkpoint into a directory that holds a run is refused, naming both; into runs/latest by default too', () => {
    const root = mkdtempSync(join(tmpdir(), 'prl-foreign-'));
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    expect(train(['--output-dir', a, '--max-steps', '4', '--checkpoint-freq', '2']).status).toBe(0);
    expect(train(['--output-dir', b, '--max-steps', '3']).status).toBe(0);
    const metricsB = readFileSync(join(b, 'metrics.jsonl'), 'utf8');
    const foreign = train(['--output-dir', b, '--resume', join(a, 'latest.prl'), '--max-steps', '6']);
    expect(foreign.status).not.toBe(0);
    expect(foreign.stderr).toContain(`--resume ${join(a, 'latest.prl')} is a checkpoint of the run in ${a}, not of --output-dir ${b}`);
    expect(readFileSync(join(b, 'metrics.jsonl'), 'utf8')).toBe(metricsB);
    // Without --output-dir a resume goes on in its own run's directory (the checkpoint's config
    // says which), not in the default runs/latest, which holds another run.
    expect(train(['--max-steps', '1'], root).status).toBe(0);
    const forgot = train(['--resume', join(a, 'checkpoints', 'checkpoint-2.prl'), '--max-steps', '6'], root);
    expect(forgot.status, forgot.stderr).toBe(0);
    expect(steps(a)).toEqual([1, 2, 3, 4, 5, 6]);
    // Told to: --overwrite replaces b's run with the continuation of a's, from a's step on.
    const replaced = train(['--output-dir', b, '--resume', join(a, 'checkpoints', 'checkpoint-4.prl'), '--max-steps', '6', '--overwrite']);
    expect(replaced.status, replaced.stderr).toBe(0);
    expect(steps(b)).toEqual([5, 6]);
    // Its own checkpoints, under checkpoints/ or copied beside latest.prl, resume without a word.
    copyFileSync(join(a, 'checkpoints', 'checkpoint-2.prl'), join(a, 'crash.prl'));
    expect(train(['--output-dir', a, '--resume', join(a, 'crash.prl'), '--max-steps', '4']).status).toBe(0);
    expect(steps(a)).toEqual([1, 2, 3, 4]);
  });

  it('two processes never write one run: the second is refused while the first runs, and a lock left by a killed run is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-lock-'));
    expect(train(['--output-dir', dir, '--max-steps', '2']).status).toBe(0);
    // node itself, not the tsx wrapper, so that the kill below reaches the process holding the lock.
    const first = spawn(process.execPath, ['--import', 'tsx', join(process.cwd(), 'src/cli/train.ts'), ...tiny, '--output-dir', dir, '--resume', join(dir, 'latest.prl'), '--max-steps', '100000'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => first.on('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!existsSync(join(dir, 'metrics.jsonl')) || steps(dir).length < 4) {
        if (Date.now() > deadline) throw new Error('the first run did not get going');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const second = train(['--output-dir', dir, '--resume', join(dir, 'latest.prl'), '--max-steps', '100000']);
      expect(second.status).not.toBe(0);
      expect(second.stderr).toMatch(new RegExp(`--output-dir ${dir} is in use by another run \\(process \\d+`));
    } finally {
      first.kill('SIGKILL'); // as kill -9: no handler runs, the lock file stays
      await exited;
    }
    expect(existsSync(join(dir, '.lock'))).toBe(true);
    const after = train(['--output-dir', dir, '--resume', join(dir, 'latest.prl'), '--max-steps', '3']);
    expect(after.status, after.stderr).toBe(0);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('the lock: taken once, refused while held, released; a directory with only the lock and empty folders holds no run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-lock-unit-'));
    const release = lockRunDir(dir);
    expect(() => lockRunDir(dir)).toThrow(`--output-dir ${dir} is in use by another run (process ${process.pid}`);
    mkdirSync(join(dir, 'checkpoints'));
    mkdirSync(join(dir, 'logs'));
    expect(holdsRun(dir)).toBe(false);
    release();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    lockRunDir(dir)();
    writeFileSync(join(dir, 'logs', 'training_log.txt'), '');
    expect(holdsRun(dir)).toBe(true);
  });
});

describe('the resume\'s metrics rewrite is whole or not at all', () => {
  it('a resume keeps the figures up to its step, and goes on from the training time, not the held-out report\'s after it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-truncate-'));
    const metrics = join(dir, 'metrics.jsonl');
    const lines = [{ step: 1, name: 'avg_reward', value: 0, wallMs: 100 }, { step: 2, name: 'avg_reward', value: 0, wallMs: 200 }, { step: 2, name: 'eval_accuracy', value: 0.5, wallMs: 900 }, { step: 3, name: 'avg_reward', value: 0, wallMs: 300 }];
    writeFileSync(metrics, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    expect(truncateMetrics(metrics, 2)).toBe(200);
    expect(readFileSync(metrics, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('a write cut off partway (a file-size limit stands in for kill -9) leaves metrics.jsonl as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-atomic-'));
    const metrics = join(dir, 'metrics.jsonl');
    const lines = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ step: 1 + Math.floor(i / 10), name: `m${i % 10}`, value: i, wallMs: i }));
    writeFileSync(metrics, lines.join('\n') + '\n');
    const before = readFileSync(metrics, 'utf8');
    // ulimit -f 64: writes past 64 KB fail with EFBIG, partway through the ~250 KB that are kept.
    const script = `import('${join(process.cwd(), 'src/cli/runDir.ts')}').then((m) => m.truncateMetrics(${JSON.stringify(metrics)}, 390))`;
    const cut = spawnSync('bash', ['-c', `ulimit -f 64; exec node --import tsx -e "${script.replace(/"/g, '\\"')}"`], { encoding: 'utf8', cwd: process.cwd() });
    expect(cut.status).not.toBe(0);
    expect(cut.stderr).toMatch(/EFBIG|file too large/i);
    expect(readFileSync(metrics, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['metrics.jsonl']);
  });

  it('--overwrite never deletes a file the run reads: a reward model or warm start kept in the run\'s folder is refused by name', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-keep-inputs-'));
    await trainCommand([...tiny, '--max-steps', '1', '--output-dir', out]);
    // The run's own latest.prl as the warm start of the run that replaces it.
    await expect(trainCommand([...tiny, '--init-from', join(out, 'latest.prl'), '--max-steps', '1', '--output-dir', out, '--overwrite'])).rejects.toThrow(`--init-from ${join(out, 'latest.prl')} is a file of the run in ${out}, which --overwrite would delete`);
    expect(existsSync(join(out, 'latest.prl'))).toBe(true);
    // Files of the folder that are not the run's are never cleared, so they may be read.
    writeFileSync(join(out, 'mine.prl'), readFileSync(join(out, 'latest.prl')));
    expect(() => refuseClearingInputs(out, [{ flag: 'init-from', path: join(out, 'mine.prl') }])).not.toThrow();
    expect(() => refuseClearingInputs(out, [{ flag: 'use-reward-model', path: join(out, 'reward_model.prl') }])).not.toThrow(); // not there: nothing to lose
    writeFileSync(join(out, 'reward_model.prl'), 'x');
    expect(() => refuseClearingInputs(out, [{ flag: 'use-reward-model', path: join(out, 'reward_model.prl') }])).toThrow('--use-reward-model');
  });
});
