/**
 * The train command's runs on disk, and the functions task through the real CLI: a fresh run
 * never erases an earlier one, a resumed run has each step once in metrics.jsonl with wall time
 * still growing, a refused --resume leaves the earlier config, and `train --task functions` /
 * `eval --task functions` / the functions recipe work end to end (at smoke size).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { trainCommand } from './train';
import { parseArgs } from './args';
import { taskData } from './trainData';
import { taskDefinition } from '../core/registry';
import { decodeCheckpoint } from '../core/checkpoint';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const tiny = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--max-program-tokens', '48', '--eval-samples', '2', '--quiet'];
const tinyFunctions = ['--task', 'functions', '--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--context', '160', '--max-program-tokens', '24', '--eval-samples', '3', '--quiet'];

/** The metric events of a run, skipping a last line still being written. */
const events = (dir: string) =>
  readFileSync(join(dir, 'metrics.jsonl'), 'utf8').split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as { step: number; name: string; value: number; wallMs: number }];
    } catch {
      return [];
    }
  });

// The logic of a run on disk is tested in this process (trainCommand); the signals need a process of their own.
describe('train runs on disk', () => {
  it('refuses a fresh run into a directory that holds one, unless --overwrite', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-runs-'));
    await trainCommand([...tiny, '--max-steps', '1', '--output-dir', out]);
    await expect(trainCommand([...tiny, '--max-steps', '1', '--output-dir', out])).rejects.toThrow(`--output-dir ${out} already holds a run`);
    expect(existsSync(join(out, 'latest.prl'))).toBe(true);
    // A sequence never solved is named by its values, not by an index into the training items.
    const unsolved = JSON.parse(readFileSync(join(out, 'logs', 'unsolved.json'), 'utf8')) as { never_solved: { label: string }[] };
    expect(unsolved.never_solved[0].label).toMatch(/^\[\d+(, \d+)*(, \.\.\.)?\] \(\d+ values\)$/);
    await trainCommand([...tiny, '--max-steps', '1', '--output-dir', out, '--overwrite']);
    // Trained again from its own config.yaml, in place: the file is read whole before --overwrite clears the folder, and recorded.
    await trainCommand(['--config', join(out, 'config.yaml'), '--output-dir', out, '--overwrite', '--quiet']);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).files.map((f: { role: string }) => f.role)).toContain('config file');
  });

  it('Ctrl-C while a run is being made leaves the folder it would replace as it was', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-early-stop-'));
    await trainCommand([...tiny, '--max-steps', '2', '--output-dir', out]);
    const [latest, metrics] = [readFileSync(join(out, 'latest.prl')), readFileSync(join(out, 'metrics.jsonl'), 'utf8')];
    // The signal comes once the run's handler is in place, before its policy and data are made.
    const said = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      if (String(line).startsWith('update threads:')) (process.listeners('SIGINT').at(-1) as (signal: NodeJS.Signals) => void)('SIGINT');
    });
    try {
      await expect(trainCommand([...tiny, '--max-steps', '2', '--output-dir', out, '--overwrite'])).rejects.toThrow(`SIGINT before the run started: nothing was trained or changed in ${out}`);
    } finally {
      said.mockRestore();
    }
    expect(readFileSync(join(out, 'latest.prl')).equals(latest)).toBe(true);
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toBe(metrics);
  });

  it('a run refused at its start leaves nothing that a later run would take for a run', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-refused-'));
    await expect(trainCommand([...tiny, '--init-from', 'public/pretrained.prl', '--d-model', '32', '--max-steps', '1', '--output-dir', out])).rejects.toThrow(/architecture differs/);
    expect(existsSync(join(out, 'logs', 'training_log.txt'))).toBe(false);
    expect(existsSync(join(out, 'logs')) || existsSync(join(out, 'checkpoints'))).toBe(false); // not even their folders
    await trainCommand([...tiny, '--max-steps', '1', '--output-dir', out]);
    expect(readFileSync(join(out, 'logs', 'training_log.txt'), 'utf8')).toMatch(/^update threads: /);
  });

  it('never trains on a held-out item: the same file for both is refused, shared items are left out of training and said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-heldout-'));
    const lines = readFileSync('datasets/train.jsonl', 'utf8').split('\n').filter(Boolean);
    const both = join(dir, 'both.jsonl');
    writeFileSync(both, lines.slice(0, 6).join('\n') + '\n');
    await expect(trainCommand([...tiny, '--data-path', both, '--eval-data-path', both, '--max-steps', '1', '--output-dir', join(dir, 'same')])).rejects.toThrow('every training item is also a held-out item (the same sequences)');
    // Two of the held-out sequences are in the training file too (under another id).
    const heldout = join(dir, 'heldout.jsonl');
    writeFileSync(heldout, [lines[0], lines[1], lines[40]].map((line) => JSON.stringify({ ...JSON.parse(line), id: 'held' })).join('\n') + '\n');
    await trainCommand([...tiny, '--data-path', both, '--eval-data-path', heldout, '--max-steps', '1', '--output-dir', join(dir, 'shared')]);
    expect(readFileSync(join(dir, 'shared', 'logs', 'training_log.txt'), 'utf8')).toContain('2 of the 6 training sequences are also held-out sequences: left out of training');
    // Nor chosen on: a validation file's held-out items are left out of validation.
    await trainCommand([...tiny, '--data-path', both, '--eval-data-path', heldout, '--validation-data-path', both, '--eval-freq', '1', '--max-steps', '1', '--output-dir', join(dir, 'valid')]);
    const validLog = readFileSync(join(dir, 'valid', 'logs', 'training_log.txt'), 'utf8');
    expect(validLog).toContain('2 of the 6 validation sequences are also held-out sequences: left out of validation (held-out data is never chosen on)');
    expect(validLog).toContain('4 of the 4 training items are also validation items: best.prl is chosen partly on items it trains on');
  });

  it('the validation split takes distinct items and every copy of them: a file given twice is not in training and validation both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-split-'));
    const lines = readFileSync('datasets/train.jsonl', 'utf8').split('\n').filter(Boolean);
    const file = join(dir, 'twenty.jsonl');
    writeFileSync(file, lines.slice(0, 20).join('\n') + '\n');
    const { config } = parseArgs(['--data-path', `${file}*3`, '--eval-data-path', 'datasets/heldout.jsonl', '--eval-freq', '1'], []);
    const { train, validation, validationName } = await taskData(taskDefinition('kolmogorov'), config);
    expect(validationName).toBe('2 of the 20 distinct training items (every 10th), kept out of training');
    const key = (item: unknown) => JSON.stringify((item as { sequence: number[] }).sequence);
    expect(validation.map(key)).toEqual([lines[9], lines[19]].map((line) => JSON.stringify(JSON.parse(line).sequence)));
    expect(train).toHaveLength(54); // 3 copies of the other 18
    expect(train.some((item) => validation.map(key).includes(key(item)))).toBe(false);
  });

  it('a resumed run has each step once in metrics.jsonl and its wall time keeps growing; a refused --resume keeps the config', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-resume-'));
    await trainCommand([...tiny, '--max-steps', '4', '--checkpoint-freq', '2', '--output-dir', out]);
    // As after a crash at step 4 whose last checkpoint was step 2.
    copyFileSync(join(out, 'checkpoints', 'checkpoint-2.prl'), join(out, 'crash.prl'));
    await trainCommand([...tiny, '--max-steps', '4', '--checkpoint-freq', '2', '--output-dir', out, '--resume', join(out, 'crash.prl')]);
    const rewards = events(out).filter((e) => e.name === 'avg_reward');
    expect(rewards.map((e) => e.step)).toEqual([1, 2, 3, 4]);
    // logs/rewards.json covers the steps before the resume too, each once, as metrics.jsonl has them.
    const stats = JSON.parse(readFileSync(join(out, 'logs', 'rewards.json'), 'utf8')) as { reward: { steps: number }; per_step: { step: number; avg_reward: number }[] };
    expect(stats.per_step).toEqual(rewards.map((e) => ({ step: e.step, avg_reward: e.value, accuracy: events(out).find((a) => a.name === 'accuracy' && a.step === e.step)!.value })));
    expect(stats.reward.steps).toBe(4);
    const walls = events(out).map((e) => e.wallMs);
    expect(walls.every((w, i) => i === 0 || w >= walls[i - 1])).toBe(true);

    const config = readFileSync(join(out, 'config.json'), 'utf8');
    // Resumed at its last step with nothing to train: said, and nothing rewritten.
    const latest = readFileSync(join(out, 'latest.prl'));
    await expect(trainCommand([...tiny, '--max-steps', '4', '--output-dir', out, '--resume', join(out, 'latest.prl')])).rejects.toThrow(`the run is at step 4, and it trains to step 4: give --max-steps N, more than 4, to train on`);
    expect(readFileSync(join(out, 'latest.prl')).equals(latest)).toBe(true);
    expect(events(out).filter((e) => e.name === 'avg_reward').map((e) => e.step)).toEqual([1, 2, 3, 4]);
    writeFileSync(join(out, 'bad.prl'), 'not a checkpoint');
    await expect(trainCommand([...tiny, '--learning-rate', '0.5', '--output-dir', out, '--resume', join(out, 'bad.prl')])).rejects.toThrow();
    expect(readFileSync(join(out, 'config.json'), 'utf8')).toBe(config);
  });

  it('a resume from an earlier checkpoint drops the numbered checkpoints past it, as it drops their figures: --keep-checkpoints keeps the new run\'s', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-prune-'));
    await trainCommand([...tiny, '--max-steps', '6', '--checkpoint-freq', '2', '--eval-freq', '5', '--output-dir', out]);
    expect(JSON.parse(readFileSync(join(out, 'logs', 'best.json'), 'utf8')).step).toBe(5);
    // The log says how many validation items were scored (--eval-samples), not only how many there are.
    expect(readFileSync(join(out, 'logs', 'training_log.txt'), 'utf8')).toMatch(/validation @5 \(2 scored, --eval-samples, of \d+ of the \d+ distinct training items/);
    await trainCommand([...tiny, '--max-steps', '4', '--checkpoint-freq', '2', '--keep-checkpoints', '1', '--output-dir', out, '--resume', join(out, 'checkpoints', 'checkpoint-2.prl')]);
    // The best policy of step 5 went with its steps: no evaluation since, so no best yet.
    expect(existsSync(join(out, 'best.prl')) || existsSync(join(out, 'logs', 'best.json'))).toBe(false);
    // It kept the old run's checkpoint-6 and deleted the new 4; the file it resumed from stays, for --rerun.
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['checkpoint-4.prl', 'resumed-from-step-2.prl']);
    expect(readFileSync(join(out, 'checkpoints', 'checkpoint-4.prl')).equals(readFileSync(join(out, 'latest.prl')))).toBe(true);
  }, 60_000);

  it('an epoch (--num-epochs, the budget without --max-steps) passes over the items RL trains on, pieces of long sequences included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-epoch-'));
    const file = join(dir, 'forty.jsonl');
    writeFileSync(file, readFileSync('datasets/train.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 40).join('\n') + '\n');
    const out = join(dir, 'run');
    await trainCommand([...tiny, '--data-path', file, '--max-steps', '0', '--num-epochs', '1', '--output-dir', out]);
    const trained = Number(/RL trains on (\d+) items made from the 40 training sequences/.exec(readFileSync(join(out, 'logs', 'training_log.txt'), 'utf8'))![1]);
    expect(trained).toBeGreaterThan(40);
    const { algorithm } = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { algorithm: { batchSize: number; groupSize: number } };
    const steps = Math.max(...events(out).filter((e) => e.name === 'avg_reward').map((e) => e.step));
    expect(steps).toBe(Math.ceil(trained / Math.round(algorithm.batchSize / algorithm.groupSize)));
    // Its record says the epoch ended it: no step budget was given.
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).stopped).toBe('epoch budget');
  }, 120_000);

  it('a run stopped by its time budget is not resumed for nothing: refused with the budget to raise, and nothing rewritten', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-budget-'));
    await trainCommand([...tiny, '--max-steps', '100000', '--time-limit', '1', '--output-dir', out]);
    await expect(trainCommand([...tiny, '--max-steps', '100000', '--time-limit', '1', '--output-dir', out, '--resume', join(out, 'latest.prl')])).rejects.toThrow(/the run has trained [\d.]+ s, its time budget is 1 s: give --time-limit S, more than \d+, to train on/);
    const reports = () => events(out).filter((e) => e.name === 'eval_accuracy').length;
    expect(reports()).toBe(1); // the refusal rewrote nothing
    // Resumed into a folder of its own, its time so far still counts: 1 s trained, 2 s of budget.
    const next = join(mkdtempSync(join(tmpdir(), 'prl-budget-')), 'next');
    await trainCommand([...tiny, '--max-steps', '100000', '--time-limit', '2', '--output-dir', next, '--resume', join(out, 'latest.prl')]);
    const walls = events(next).filter((e) => e.name === 'avg_reward').map((e) => e.wallMs);
    expect(walls[0]).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...walls)).toBeLessThan(3000);
  }, 60_000);

  it('a run folder moved elsewhere is resumed where it is now, not where its checkpoint was written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-moved-'));
    await trainCommand([...tiny, '--max-steps', '2', '--output-dir', join(dir, 'first')]);
    renameSync(join(dir, 'first'), join(dir, 'moved'));
    await trainCommand([...tiny, '--max-steps', '3', '--resume', join(dir, 'moved', 'latest.prl')]);
    expect(existsSync(join(dir, 'first'))).toBe(false);
    expect(events(join(dir, 'moved')).filter((e) => e.name === 'avg_reward').map((e) => e.step)).toEqual([1, 2, 3]);
    // A checkpoint copied into another run's folder does not continue that run: it goes where it was written, here refused.
    await trainCommand([...tiny, '--max-steps', '1', '--output-dir', join(dir, 'other')]);
    const metrics = readFileSync(join(dir, 'other', 'metrics.jsonl'), 'utf8');
    copyFileSync(join(dir, 'moved', 'latest.prl'), join(dir, 'other', 'copied.prl'));
    await expect(trainCommand([...tiny, '--max-steps', '4', '--resume', join(dir, 'other', 'copied.prl')])).rejects.toThrow(`not of --output-dir ${join(dir, 'moved')}, which holds another run`);
    expect(readFileSync(join(dir, 'other', 'metrics.jsonl'), 'utf8')).toBe(metrics);
  }, 60_000);
});

/** Starts an npm script in a process group of its own, as a terminal would, and waits for `ready`. */
async function interruptRun(script: string, args: string[], ready: () => boolean, signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
  const child = spawn('npm', ['run', '-s', script, '--', ...args], { detached: true, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`${script} did not get going`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  process.kill(-child.pid!, signal); // the whole group, as Ctrl-C does
  const signalled = Date.now();
  const code = await exited;
  // npm itself exits at once on SIGTERM; the run ends when the last process of the group has.
  for (;;) {
    try {
      process.kill(-child.pid!, 0);
    } catch {
      return { code, ms: Date.now() - signalled };
    }
    if (Date.now() > deadline + 60_000) throw new Error(`${script} did not end after ${signal}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a signal saves the run', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`npm run train saves a checkpoint on ${signal} and stops`, async () => {
      const out = mkdtempSync(join(tmpdir(), 'prl-signal-'));
      const steps = () => existsSync(join(out, 'metrics.jsonl')) && events(out).filter((e) => e.name === 'avg_reward').length >= 2;
      await interruptRun('train', [...tiny, '--max-steps', '300', '--checkpoint-freq', '1000', '--output-dir', out], steps, signal);
      const { decodeCheckpoint } = await import('../core/checkpoint');
      const { meta } = await decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'latest.prl'))));
      expect(meta.step).toBeGreaterThanOrEqual(2);
      expect(meta.step).toBeLessThan(300);
    });
  }

  it('a signal during the held-out report ends the report at once; the run stays saved and the report writes nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-signal-report-'));
    const log = join(out, 'logs', 'training_log.txt');
    const reporting = () => existsSync(log) && readFileSync(log, 'utf8').includes('held-out report:');
    // Best-of-64 on 490 sequences: about half a minute of report after one step.
    const { ms } = await interruptRun('train', [...tiny, '--max-steps', '1', '--eval-samples', '490', '--eval-k', '64', '--output-dir', out], reporting, 'SIGINT');
    expect(readFileSync(log, 'utf8')).toContain('held-out report stopped: no figures written');
    expect(existsSync(join(out, 'logs', 'eval_results.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'))).toMatchObject({ steps: 1, stopped: 'step budget' });
    expect(existsSync(join(out, 'latest.prl'))).toBe(true);
    expect(ms).toBeLessThan(10_000); // a chunk of the report, not the rest of it
  });

  // Ctrl-C as well as a kill.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`npm run pretrain saves its weights so far on ${signal}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'prl-signal-pretrain-'));
      const out = join(dir, 'p.prl');
      const metrics = join(dir, 'p-metrics.jsonl');
      const started = () => existsSync(metrics) && readFileSync(metrics, 'utf8').split('\n').filter(Boolean).length >= 6;
      await interruptRun('pretrain', ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--steps', '100000', '--eval-every', '100000', '--threads', '1', '--out', out], started, signal);
      expect(existsSync(out)).toBe(true);
    });
  }

  it('npm run digits ends RL on SIGINT, evaluates, ends its record as interrupted, and the rerun trains to the step it reached', async () => {
    const run = join(mkdtempSync(join(tmpdir(), 'prl-signal-digits-')), 'run');
    const flags = ['--task', 'sum_digits', '--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '8', '--num-generators', '1', '--warm-start-examples', '64', '--warm-start-steps', '20', '--eval-samples', '8', '--backend', 'cpu', '--seed', '7', '--quiet'];
    const stepped = () => existsSync(join(run, 'metrics.jsonl')) && events(run).filter((e) => e.name === 'reward').length >= 3;
    await interruptRun('digits', [...flags, '--num-steps', '100000', '--output-dir', run], stepped, 'SIGINT');
    const written = JSON.parse(readFileSync(join(run, 'run.json'), 'utf8')) as { steps: number; stopped: string; ended: string | null };
    expect(written.stopped).toBe('interrupted');
    expect(written.ended).not.toBeNull();
    expect(written.steps).toBeGreaterThanOrEqual(3);
    expect(written.steps).toBeLessThan(100000);
    expect(existsSync(join(run, 'eval_results.json'))).toBe(true);
    await trainCommand(['--rerun', run]);
    expect(JSON.parse(readFileSync(join(`${run}-rerun`, 'run.json'), 'utf8')).steps).toBe(written.steps);

    // In its warm start too (its updates alone never let a signal's handler run): no RL step, and no rerun of nothing.
    const warm = join(dirname(run), 'warm');
    await interruptRun('digits', [...flags.filter((flag, i, all) => flag !== '--warm-start-steps' && all[i - 1] !== '--warm-start-steps'), '--warm-start-steps', '200000', '--num-steps', '10', '--output-dir', warm], () => existsSync(join(warm, 'run.json')), 'SIGINT');
    const stopped = JSON.parse(readFileSync(join(warm, 'run.json'), 'utf8')) as { steps: number; stopped: string };
    expect([stopped.steps, stopped.stopped]).toEqual([0, 'interrupted']);
    expect(existsSync(join(warm, 'eval_results.json'))).toBe(true);
    await expect(trainCommand(['--rerun', warm])).rejects.toThrow('before its first step: there is nothing to repeat');
  }, 120_000);
});

describe('checkpoints on disk', () => {
  it('keeps the last --keep-checkpoints numbered checkpoints, latest.prl and best.prl', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-keep-'));
    await trainCommand([...tiny, '--max-steps', '6', '--checkpoint-freq', '1', '--keep-checkpoints', '2', '--eval-freq', '3', '--output-dir', out]);
    expect(readdirSync(out).filter((f) => f.endsWith('.prl')).sort()).toEqual(['best.prl', 'latest.prl']);
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['checkpoint-5.prl', 'checkpoint-6.prl']);
  });

  it('a checkpoint that cannot be written is named in the error and leaves no .tmp behind', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-unwritable-'));
    mkdirSync(join(out, 'checkpoints', 'checkpoint-2.prl', 'in-the-way'), { recursive: true }); // a folder where the file goes
    await expect(trainCommand([...tiny, '--max-steps', '3', '--checkpoint-freq', '2', '--output-dir', out, '--overwrite'])).rejects.toThrow(`cannot write ${join(out, 'checkpoints', 'checkpoint-2.prl')}`);
    expect(readdirSync(join(out, 'checkpoints')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('the functions task through the CLI', () => {
  it('trains on problem files joined by commas and evaluates per problem as JSON', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-functions-'));
    await trainCommand([...tinyFunctions, '--max-steps', '2', '--output-dir', out,
      '--problems', 'datasets/functions/training_problems.json,datasets/functions/evaluation_problems.json', '--eval-data-path', 'datasets/functions/evaluation_problems.json']);
    const names = new Set(events(out).map((e) => e.name));
    for (const name of ['avg_reward', 'accuracy', 'tests_passed', 'reward/correctness', 'policy_loss', 'eval_solved']) expect(names, name).toContain(name);
    // Greedy: pass@1 and the success rate are the solved share, not written again under other names.
    expect(names.has('eval_pass_at_1') || names.has('eval_success_rate')).toBe(false);
    const json = execFileSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', join(out, 'latest.prl'), '--data', 'datasets/functions/training_problems.json', '--k', '2', '--json'], { encoding: 'utf8' });
    const result = JSON.parse(json.trim().split('\n').at(-1)!);
    expect(result.n).toBe(8);
    expect(result.k).toBe(2);
    for (const key of ['solved', 'pass_at_1', 'success_rate']) expect(result[key]).toBeGreaterThanOrEqual(0);
    expect(result.per_problem.map((row: { function_name: string }) => row.function_name)).toContain('fibonacci');
    expect(Object.keys(result.per_problem[0])).toEqual(expect.arrayContaining(['function_name', 'solved', 'program']));
    // The checkpoint says its task, so eval needs no --task; a Kolmogorov file is refused by the functions path.
    const detected = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', join(out, 'latest.prl'), '--data', 'datasets/functions/evaluation_problems.json', '--json'], { encoding: 'utf8' });
    expect(detected.status, detected.stderr).toBe(0);
    const wrong = spawnSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', 'public/pretrained.prl', '--data', 'datasets/functions/evaluation_problems.json'], { encoding: 'utf8' });
    expect(wrong.stderr).toContain('the checkpoint is for task kolmogorov, not functions');
  });

  it('the functions recipe runs its stages and tabulates each policy on the held-out and seed problems', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-frecipe-'));
    // --layers holds at smoke size too (a smoke run checks a deeper policy's pipeline); smoke alone is one layer.
    const table = execFileSync(tsx, ['src/cli/recipe.ts', '--task', 'functions', '--smoke', '--layers', '2', '--pretrain-steps', '2', '--rl-steps', '1', '--k', '2', '--out', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    for (const row of [/warm start +held-out +40 /, /warm start \+ RL +seed training +8 /, /seed evaluation +3 /, /handwritten dev2 +100 /]) expect(table).toMatch(row);
    const recipe = JSON.parse(readFileSync(join(out, 'recipe.json'), 'utf8'));
    expect(Object.keys(recipe.scores)).toEqual(['warm start', 'warm start + RL']);
    for (const file of ['pretrained.prl', 'rl/latest.prl']) {
      const { meta } = await decodeCheckpoint(new Uint8Array(readFileSync(join(out, file))));
      expect((meta.config as { model: { layers: number; dModel: number } }).model).toMatchObject({ layers: 2, dModel: 16 });
    }
    // A rerun whose RL stage fails leaves the warm start's record alone: no scores to ship, the warm start to reuse.
    const failed = spawnSync(tsx, ['src/cli/recipe.ts', '--task', 'functions', '--smoke', '--layers', '2', '--reuse-warm-start', '--rl-steps', '-1', '--out', out], { encoding: 'utf8' });
    expect(failed.stderr).toContain('RL failed');
    expect(JSON.parse(readFileSync(join(out, 'recipe.json'), 'utf8')).scores).toBeUndefined();
    const ship = spawnSync(tsx, ['src/cli/recipe.ts', '--task', 'functions', '--ship-only', '--out', out], { encoding: 'utf8' });
    expect(ship.stderr).toContain(`--ship-only: the run in ${out} did not finish`);
  }, 300_000);
});
