/**
 * A run's record repeats it: for each task that reads files, a tiny run with a warm start, then
 * `--rerun` of it from its run.json, gives the same figures on the cpu backend; the record names
 * the data files and the warm start with their hashes, and a file changed since is named and
 * refused. Runs in this process (trainCommand), no child process.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { trainCommand } from './train';

/** The figures that do not depend on the machine's speed, per step. */
function figures(dir: string): string[] {
  const timing = /(_ms|_per_s|^epoch$)/;
  return readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string; value: number })
    .filter((e) => !timing.test(e.name)).map((e) => `${e.step} ${e.name} ${e.value}`);
}

const record = (dir: string) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { threads?: number; files: { role: string; path: string; sha256: string; loaded?: number }[]; config: { run: { initFrom: string; dataPath: string } }; code: { version: string }; steps: number; stopped: string };

describe('a run repeats from its record', () => {
  it('kolmogorov: a tiny run from a warm start, rerun, gives the same figures; the record names its files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-k-'));
    const tiny = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--max-program-tokens', '40', '--max-sequence-length', '32', '--context', '96', '--eval-samples', '3', '--backend', 'cpu', '--quiet', '--workers', '1', '--checkpoint-freq', '0'];
    await trainCommand([...tiny, '--max-steps', '2', '--output-dir', join(dir, 'warm')]);
    const run = join(dir, 'run');
    await trainCommand([...tiny, '--max-steps', '3', '--init-from', join(dir, 'warm', 'latest.prl'), '--output-dir', run]);
    const written = record(run);
    expect(written.config.run.initFrom).toBe(join(dir, 'warm', 'latest.prl'));
    expect(written.files.map((f) => f.role)).toEqual(['train', 'heldout', 'warm start']);
    expect(written.files[0]).toMatchObject({ path: 'datasets/train.jsonl', loaded: 10_000, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect([written.steps, written.stopped, written.code.version, written.threads]).toEqual([3, 'step budget', '0.1.0', 2]);
    await trainCommand(['--rerun', run, '--quiet']);
    expect(figures(`${run}-rerun`)).toEqual(figures(run));
    // Recorded on one thread, rerun on one thread (the default is 2; a split sums in another order).
    const one = join(dir, 'one');
    await trainCommand([...tiny, '--max-steps', '3', '--threads', '1', '--init-from', join(dir, 'warm', 'latest.prl'), '--output-dir', one]);
    expect(record(one).threads).toBe(1);
    await trainCommand(['--rerun', one, '--quiet']);
    expect(record(`${one}-rerun`).threads).toBe(1);
    expect(figures(`${one}-rerun`)).toEqual(figures(one));
    await expect(trainCommand(['--rerun', one, '--threads', '2', '--output-dir', join(dir, 'refused'), '--quiet'])).rejects.toThrow('drop --threads (it ran on 1)');
  }, 180_000);

  it('functions: the problems file and the warm start are recorded; the rerun gives the same figures; a changed problems file is named and refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-f-'));
    const problems = join(dir, 'mine.json');
    copyFileSync('datasets/functions/training_problems.json', problems);
    const run = join(dir, 'run');
    await trainCommand(['--task', 'functions', '--problems', problems, '--init-from', 'public/functions.prl', '--batch-size', '4', '--max-steps', '2', '--eval-data-path', 'datasets/functions/evaluation_problems.json', '--eval-samples', '3', '--backend', 'cpu', '--quiet', '--workers', '1', '--checkpoint-freq', '0', '--output-dir', run]);
    const written = record(run);
    expect(written.config.run).toMatchObject({ dataPath: problems, initFrom: 'public/functions.prl' });
    expect(written.files.map((f) => [f.role, f.path])).toEqual([['train', problems], ['heldout', 'datasets/functions/evaluation_problems.json'], ['warm start', 'public/functions.prl']]);
    // The record's config.yaml repeats it too (it names the problems file and the warm start).
    expect(readFileSync(join(run, 'config.yaml'), 'utf8')).toContain(`dataPath: ${problems}`);
    await trainCommand(['--rerun', run, '--output-dir', join(dir, 'again'), '--quiet']);
    expect(figures(join(dir, 'again'))).toEqual(figures(run));
    writeFileSync(problems, readFileSync(problems, 'utf8').replace('add_numbers', 'add_two'));
    await expect(trainCommand(['--rerun', run, '--output-dir', join(dir, 'changed'), '--quiet'])).rejects.toThrow(`train ${problems} changed since the run`);
  }, 180_000);

  it('sum_digits: the generated items come from the recorded seed; the rerun through train gives the same figures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-d-'));
    const run = join(dir, 'run');
    await trainCommand(['--task', 'sum_digits', '--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '8', '--num-steps', '3', '--num-generators', '1', '--warm-start-examples', '64', '--warm-start-steps', '60', '--learning-rate', '0.003', '--eval-samples', '8', '--backend', 'cpu', '--seed', '7', '--output-dir', run]);
    const written = record(run) as ReturnType<typeof record> & { config: { task: { name: string }; run: { seed: number } } };
    expect([written.config.task.name, written.config.run.seed, written.steps, written.stopped]).toEqual(['sum_digits', 7, 3, 'step budget']);
    expect(written.files).toEqual([]);
    await trainCommand(['--rerun', run]);
    expect(figures(`${run}-rerun`)).toEqual(figures(run));
    // The figures depend on the seed, so equal figures are the record's doing.
    await trainCommand(['--task', 'sum_digits', '--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '8', '--num-steps', '3', '--num-generators', '1', '--warm-start-examples', '64', '--warm-start-steps', '60', '--learning-rate', '0.003', '--eval-samples', '8', '--backend', 'cpu', '--seed', '8', '--output-dir', join(dir, 'other')]);
    expect(figures(join(dir, 'other'))).not.toEqual(figures(run));
  }, 120_000);

  it('a run its time budget stopped reruns to the step it reached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-t-'));
    const run = join(dir, 'run');
    await trainCommand(['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '2', '--max-program-tokens', '24', '--eval-samples', '1', '--backend', 'cpu', '--quiet', '--workers', '1', '--checkpoint-freq', '0', '--max-steps', '100000', '--time-limit', '2', '--output-dir', run]);
    const written = record(run);
    expect(written.stopped).toBe('time budget');
    await trainCommand(['--rerun', run, '--quiet']);
    expect(record(`${run}-rerun`).steps).toBe(written.steps);
    expect(figures(`${run}-rerun`)).toEqual(figures(run));
  }, 120_000);

  it('sum_digits: --time-limit ends RL at a step boundary, is recorded, and the rerun trains to the step it reached', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-dt-'));
    const run = join(dir, 'run');
    const flags = ['--task', 'sum_digits', '--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '8', '--num-generators', '1', '--warm-start-examples', '64', '--warm-start-steps', '20', '--eval-samples', '8', '--backend', 'cpu', '--seed', '7'];
    await trainCommand([...flags, '--num-steps', '100000', '--time-limit', '2', '--output-dir', run]);
    const written = record(run);
    expect(written.stopped).toBe('time budget');
    expect(written.steps).toBeGreaterThan(0);
    expect(written.steps).toBeLessThan(100000);
    await trainCommand(['--rerun', run]);
    expect(record(`${run}-rerun`).steps).toBe(written.steps);
    expect(figures(`${run}-rerun`)).toEqual(figures(run));
  }, 120_000);
  it('--resume alone continues the run as it was configured (its warm start, the KL\'s reference, and its settings), as if never stopped; --rerun repeats the command\'s own flags', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-resume-'));
    const tiny = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--max-program-tokens', '40', '--max-sequence-length', '32', '--context', '96', '--eval-samples', '3', '--backend', 'cpu', '--quiet', '--workers', '1', '--checkpoint-freq', '0', '--threads', '1'];
    await trainCommand([...tiny, '--max-steps', '2', '--output-dir', join(dir, 'warm')]);
    const warm = join(dir, 'warm', 'latest.prl');
    const settings = ['--init-from', warm, '--learning-rate', '0.003', '--kl-coef', '0.05', '--eval-freq', '2', '--eval-k', '2'];
    await trainCommand([...tiny, ...settings, '--max-steps', '4', '--output-dir', join(dir, 'whole')]);
    const part = join(dir, 'part');
    await trainCommand([...tiny, ...settings, '--max-steps', '2', '--output-dir', part]);
    await trainCommand(['--resume', join(part, 'latest.prl'), '--max-steps', '4', '--quiet']);
    const config = JSON.parse(readFileSync(join(part, 'config.json'), 'utf8')) as { algorithm: { learningRate: number; klCoef: number }; run: { initFrom: string } };
    expect([config.algorithm.learningRate, config.algorithm.klCoef, config.run.initFrom]).toEqual([0.003, 0.05, warm]);
    // train's own flags come back from the run's record, and the resumed run's record keeps them.
    // The checkpoint it resumed from is kept beside the others (latest.prl was overwritten since): a rerun finds it.
    const resumedFrom = join(part, 'checkpoints', 'resumed-from-step-2.prl');
    const record = JSON.parse(readFileSync(join(part, 'run.json'), 'utf8')) as { extras: Record<string, unknown>; command: string[]; previous: { command: string[]; steps: number; stopped: string; format?: string }[] };
    expect(record.extras).toMatchObject({ 'eval-k': '2', resume: resumedFrom });
    // The session that began the run is kept in the record that replaced it: its command, steps and end.
    expect(record.command).toContain('--resume');
    expect(record.previous).toHaveLength(1);
    expect(record.previous[0]).toMatchObject({ steps: 2, stopped: 'step budget' });
    expect(record.previous[0].command).toEqual(expect.arrayContaining(['--init-from', warm, '--max-steps', '2']));
    expect(record.previous[0].format).toBeUndefined();
    await trainCommand(['--rerun', part, '--quiet']);
    const after2 = (d: string) => figures(d).filter((line) => Number(line.split(' ')[0]) > 2);
    expect(after2(`${part}-rerun`)).toEqual(after2(part));
    // The same figures step by step (the KL from the same reference), the held-out report aside: the interrupted part wrote one too.
    const trained = (d: string) => figures(d).filter((line) => !/ eval_/.test(line));
    expect(trained(part)).toEqual(trained(join(dir, 'whole')));
    expect(JSON.parse(readFileSync(join(part, 'logs', 'best.json'), 'utf8'))).toEqual(JSON.parse(readFileSync(join(dir, 'whole', 'logs', 'best.json'), 'utf8')));
    // The rerun of a run repeats --eval-k (its own flag, not the config's).
    await trainCommand(['--rerun', join(dir, 'whole'), '--quiet']);
    expect((JSON.parse(readFileSync(join(dir, 'whole-rerun', 'logs', 'eval_results.json'), 'utf8')) as { k: number }).k).toBe(2);
    expect(figures(join(dir, 'whole-rerun'))).toEqual(figures(join(dir, 'whole')));
    await expect(trainCommand(['--rerun', join(dir, 'whole'), '--eval-k', '4', '--output-dir', join(dir, 'no'), '--quiet'])).rejects.toThrow('drop --eval-k');
    await expect(trainCommand(['--rerun', join(dir, 'whole'), '--max-steps', '5', '--output-dir', join(dir, 'no'), '--quiet'])).rejects.toThrow('drop --max-steps (only');
  }, 180_000);
  it('a resume that changes how the run computes (its seed, its algorithm) says so; one that only goes further does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-changed-'));
    const tiny = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--max-program-tokens', '40', '--max-sequence-length', '32', '--context', '96', '--eval-samples', '2', '--quiet', '--checkpoint-freq', '0', '--threads', '1'];
    await trainCommand([...tiny, '--max-steps', '1', '--seed', '1', '--output-dir', dir]);
    const said = vi.spyOn(console, 'error');
    try {
      await trainCommand(['--resume', join(dir, 'latest.prl'), '--max-steps', '2', '--quiet']);
      expect(said.mock.calls.some((call) => String(call[0]).includes('the run goes on with'))).toBe(false);
      await trainCommand(['--resume', join(dir, 'latest.prl'), '--max-steps', '3', '--seed', '99', '--algorithm', 'grpo', '--quiet']);
      expect(said.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(/the run goes on with (--seed 1 -> 99, --algorithm reinforce -> grpo|--algorithm reinforce -> grpo, --seed 1 -> 99); its steps so far were made with the earlier values/);
    } finally {
      said.mockRestore();
    }
  }, 120_000);

  it('a rerun that computes otherwise than its record (another backend, the other multiply-add) says its figures may differ', async () => {
    const { computationChanges } = await import('./runRecord');
    const { multiplyAddChoice } = await import('../core/model/wasmKernelModule');
    const now = multiplyAddChoice().build;
    expect(computationChanges({ backend: 'wasm', multiplyAdd: now }, 'wasm')).toEqual([]);
    expect(computationChanges({ backend: 'wasm', multiplyAdd: now === 'fma' ? 'simd' : 'fma' }, 'wasm')[0]).toMatch(/multiply.*may differ in their last digits/);
    expect(computationChanges({ backend: 'cpu' }, 'wasm')[0]).toMatch(/computed on cpu, this rerun on wasm/);
    expect(computationChanges({ backend: 'wasm' }, 'wasm')).toEqual([]); // a record from before it was kept
  });

  it('expert iteration resumed goes on as if never stopped, its rehearsal of the warm start\'s pairs included (Kolmogorov draws them by the call)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-ei-'));
    const flags = ['--init-from', 'public/pretrained.prl', '--algorithm', 'expert_iteration', '--batch-size', '8', '--num-samples', '4', '--search', 'samples', '--eval-samples', '2', '--seed', '3', '--quiet', '--checkpoint-freq', '0', '--threads', '1'];
    await trainCommand([...flags, '--max-steps', '4', '--output-dir', join(dir, 'whole')]);
    await trainCommand([...flags, '--max-steps', '2', '--output-dir', join(dir, 'part')]);
    await trainCommand(['--resume', join(dir, 'part', 'latest.prl'), '--max-steps', '4', '--quiet']);
    const trained = (d: string) => figures(d).filter((line) => !/ eval_/.test(line));
    expect(trained(join(dir, 'part')).filter((line) => / sft_loss /.test(line))).toHaveLength(4); // the store had programs: every round rehearsed
    expect(trained(join(dir, 'part'))).toEqual(trained(join(dir, 'whole')));
  }, 180_000);

  it('--resume refuses a warm start that is not the one the run began from (its KL\'s reference), and another task\'s checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-record-warm-'));
    const tiny = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--max-program-tokens', '40', '--max-sequence-length', '32', '--context', '96', '--eval-samples', '2', '--backend', 'cpu', '--quiet', '--workers', '1', '--checkpoint-freq', '0', '--threads', '1'];
    await trainCommand([...tiny, '--max-steps', '1', '--output-dir', join(dir, 'warm')]);
    const warm = join(dir, 'warm.prl');
    copyFileSync(join(dir, 'warm', 'latest.prl'), warm);
    await trainCommand([...tiny, '--init-from', warm, '--kl-coef', '0.05', '--max-steps', '1', '--output-dir', join(dir, 'run')]);
    // A run that measures no KL takes everything from its checkpoint.
    await trainCommand([...tiny, '--init-from', warm, '--kl-coef', '0', '--max-steps', '1', '--output-dir', join(dir, 'nokl')]);
    // The same weights at the path: the resume goes on.
    await trainCommand(['--resume', join(dir, 'run', 'latest.prl'), '--max-steps', '2', '--quiet']);
    // Other weights at the path (the warm start retrained, say): refused, naming both.
    copyFileSync(join(dir, 'run', 'latest.prl'), warm);
    await trainCommand(['--resume', join(dir, 'nokl', 'latest.prl'), '--max-steps', '2', '--quiet']);
    await expect(trainCommand(['--resume', join(dir, 'run', 'latest.prl'), '--max-steps', '3', '--quiet'])).rejects.toThrow(new RegExp(`the run began from a warm start with sha256 [0-9a-f]{12}\\.\\.\\., and ${warm} \\(its --init-from\\) has [0-9a-f]{12}\\.\\.\\. now`));
    // A checkpoint whose warm start is given by no file (a page's): refused, not measured from random weights.
    await expect(trainCommand(['--resume', join(dir, 'run', 'latest.prl'), '--init-from', '', '--max-steps', '3', '--quiet'])).rejects.toThrow('which the checkpoint names but does not hold: give that file with --init-from');
    await expect(trainCommand(['--task', 'kolmogorov', '--resume', 'public/functions.prl', '--max-steps', '1', '--output-dir', join(dir, 'other')])).rejects.toThrow('--resume public/functions.prl: the checkpoint is for task functions, not kolmogorov (--task)');
  }, 120_000);
});
