/**
 * Smoke tests of the real CLI commands: training for a few steps writes metrics and
 * checkpoints; eval reports KT metrics of the result as JSON; bad flags fail with a message.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const tiny = ['--layers', '1', '--d-model', '16', '--heads', '2', '--batch-size', '4', '--max-program-tokens', '48', '--eval-samples', '4'];

describe('CLI', () => {
  it('trains for a few steps, writing metrics and checkpoints that eval can score', async () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-train-'));
    execFileSync(tsx, ['src/cli/train.ts', ...tiny, '--max-steps', '3', '--checkpoint-freq', '2', '--eval-k', '2', '--output-dir', out, '--quiet'], { stdio: 'pipe' });
    const events = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const names = new Set(events.map((e) => e.name));
    for (const name of ['avg_reward', 'accuracy', 'compression_rate', 'policy_loss', 'entropy', 'program_bits', 'tokens_per_s', 'evals_per_s', 'outcome_ok']) {
      expect(names, name).toContain(name);
    }
    expect(Math.max(...events.map((e) => e.step))).toBe(3);
    // The Q-language system's layout beside the lab's own files.
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['checkpoints', 'logs', 'latest.prl', 'config.json', 'config.yaml', 'metrics.jsonl']));
    expect(readdirSync(join(out, 'checkpoints')).sort()).toEqual(['checkpoint-2.prl', 'checkpoint-3.prl']);
    expect(readdirSync(join(out, 'logs')).sort()).toEqual(['eval_results.json', 'rewards.json', 'training_log.txt', 'unsolved.json']);
    const log = readFileSync(join(out, 'logs', 'training_log.txt'), 'utf8');
    expect(log).toMatch(/step 3\/3 .*reward/); // every step is logged, --quiet or not
    const rewards = JSON.parse(readFileSync(join(out, 'logs', 'rewards.json'), 'utf8')) as { reward: { steps: number; mean: number }; per_step: { step: number; avg_reward: number }[] };
    expect(rewards.reward.steps).toBe(3);
    expect(rewards.per_step.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(rewards.reward.mean).toBeCloseTo(rewards.per_step.reduce((sum, s) => sum + s.avg_reward, 0) / 3, 9);
    // config.yaml is a config file the next run can start from.
    execFileSync(tsx, ['src/cli/train.ts', '--config', join(out, 'config.yaml'), '--max-steps', '1', '--output-dir', join(out, 'again'), '--quiet'], { stdio: 'pipe' });
    // with train's own flags that shaped the run (best-of-2 at evaluation), which a config's fields do not hold.
    expect(JSON.parse(readFileSync(join(out, 'again', 'logs', 'eval_results.json'), 'utf8'))).toMatchObject({ k: 2 });
    expect(JSON.parse(readFileSync(join(out, 'again', 'run.json'), 'utf8')).extras).toEqual({ 'eval-k': '2' });
    expect(JSON.parse(readFileSync(join(out, 'again', 'config.json'), 'utf8'))).toEqual({ ...JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')), run: { ...JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).run, maxSteps: 1, outputDir: join(out, 'again') } });
    const { meta } = await decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'latest.prl'))));
    expect(meta.step).toBe(3);

    const json = execFileSync(tsx, ['src/cli/eval.ts', '--checkpoint', join(out, 'latest.prl'), '--data', 'datasets/heldout.jsonl', '--limit', '4', '--json'], { encoding: 'utf8' });
    const result = JSON.parse(json.trim().split('\n').at(-1)!);
    expect(Object.keys(result)).toEqual(['n', 'accuracy', 'acc_at_prefix', 'compression_rate', 'precision', 'gzip_rate', 'lzma_rate', 'by_length', 'evaluated']);
    expect(result.evaluated).toMatchObject({ checkpoint: join(out, 'latest.prl'), data: 'datasets/heldout.jsonl', k: 1, repair: 0, split: 0, limit: 4 });
    expect(result.n).toBe(4);
    expect(result.by_length.reduce((sum: number, b: { n: number }) => sum + b.n, 0)).toBe(4);
    expect(result.gzip_rate).toBeGreaterThan(0);
  });

  it('scores programs written elsewhere with the same metrics', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-eval-'));
    const file = join(dir, 'programs.jsonl');
    writeFileSync(
      file,
      [
        { sequence: [3, 4, 5, 6], program: 'sequence_1 = range_func_up(3, 6)\noutput = sequence_1' },
        { sequence: [1, 1, 1], program: 'sequence_1 = repeat_num(3, 2)\noutput = sequence_1' },
        { sequence: [9, 8], program: 'this is not a program' },
        // Right, but with a value the bit prior has no price for (it would be charged as one of 0..255).
        { sequence: [0, 1, 2], program: 'sequence_1 = range_func_up(0, 2562)\nsequence_2 = modulo_item_list(sequence_1, 256)\nsequence_3 = get_subsequence_between_indices(sequence_2, 0, 3)\noutput = sequence_3' },
      ].map((r) => JSON.stringify(r)).join('\n'),
    );
    const run = spawnSync(tsx, ['src/cli/eval.ts', '--programs', file, '--json'], { encoding: 'utf8' });
    const result = JSON.parse(run.stdout.trim());
    expect(result.n).toBe(4);
    expect(result.accuracy).toBeCloseTo(1 / 4, 10);
    expect(run.stderr).toContain('line 4: outside what the bit prior prices (value 2562 is outside 0..255)');
    expect(result.by_length).toEqual([{ length: '<=32', n: 4, values: 12, accuracy: result.accuracy, compression_rate: result.compression_rate, gzip_rate: result.gzip_rate, lzma_rate: result.lzma_rate }]);
  });

  it('eval --rows writes each sequence\'s kept program and the search that found it; --bridge-above is checked', () => {
    const rows = join(mkdtempSync(join(tmpdir(), 'prl-rows-')), 'rows.jsonl');
    const run = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--data', 'datasets/kolmogorov/public_dev.jsonl', '--limit', '6', '--split', '24', '--rows', rows, '--json'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/split: \d+ of 6 sequences solved by split search .*, \d+ of them with values written as they are/);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(Object.keys(result.searches)).toEqual(['greedy', 'greedy + split', 'greedy + split + bridges']);
    const written = readFileSync(rows, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const records = readFileSync('datasets/kolmogorov/public_dev.jsonl', 'utf8').split('\n').slice(0, 6).map((line) => JSON.parse(line));
    expect(written.map((row) => [row.id, row.length])).toEqual(records.map((record) => [record.id, record.sequence.length]));
    for (const row of written) {
      expect(Object.keys(row)).toEqual(['id', 'length', 'found_by', 'outcome', 'bits', 'program']);
      expect(['greedy', 'split', 'bridge']).toContain(row.found_by); // k = 1: the greedy program, never another sample
      // Joined pieces, or one line where every piece merged into it (mergeRuns, merge.ts), as the shipped-checkpoint test allows.
      if (row.found_by !== 'greedy' && row.outcome === 'ok') expect(/= (concatenate|interleave)\(/.test(row.program) || row.program.trim().split('\n').length === 2, row.program).toBe(true);
    }
    expect(written.filter((row) => row.outcome === 'ok').length / 6).toBeCloseTo(result.accuracy, 10);
    const noSplit = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--bridge-above', '1'], { encoding: 'utf8' });
    expect(noSplit.status).toBe(1);
    expect(noSplit.stderr).toMatch(/--bridge-above bounds split search's literal bridges: give --split R too/);
    const negative = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--split', '4', '--bridge-above', '-1'], { encoding: 'utf8' });
    expect(negative.status).toBe(1);
    expect(negative.stderr).toMatch(/--bridge-above: expected a number of bits per raw bit, at least 0, got "-1"/);
    const programs = spawnSync(tsx, ['src/cli/eval.ts', '--programs', 'datasets/heldout.jsonl', '--rows', rows], { encoding: 'utf8' });
    expect(programs.status).toBe(1);
    expect(programs.stderr).toMatch(/--rows: a file of one line per sequence comes from a kolmogorov --checkpoint evaluation/);
  }, 120_000);

  it('fails with a clear message on a bad flag or a missing file', () => {
    const bad = spawnSync(tsx, ['src/cli/train.ts', '--learning-rate', 'fast'], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--learning-rate: expected a number, got "fast"/);
    const missing = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', '/nonexistent.prl'], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/cannot read checkpoint \/nonexistent.prl/);
    expect(existsSync('/nonexistent.prl')).toBe(false);
    const cold = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--k', '4', '--temperature', '0'], { encoding: 'utf8' });
    expect(cold.status).toBe(1);
    expect(cold.stderr).toMatch(/--temperature: expected a positive number, got "0"/);
    const gpu = spawnSync(tsx, ['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--backend', 'gpu'], { encoding: 'utf8' });
    expect(gpu.status).toBe(1);
    expect(gpu.stderr).toMatch(/--backend: expected auto, wasm or cpu, got "gpu"/);
  });

  it('refuses what a command would otherwise do wrongly: another task\'s checkpoint, a digit task where it has no meaning, a bad --warmup, a folder holding a run', () => {
    const fail = (args: string[], message: RegExp) => {
      const done = spawnSync(tsx, args, { encoding: 'utf8' });
      expect(done.status, done.stderr).toBe(1);
      expect(done.stderr).toMatch(message);
    };
    fail(['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--task', 'sum_digits', '--limit', '2'], /the checkpoint is for task kolmogorov, not sum_digits/);
    // A checkpoint that cannot be read is named with its flag, for every task's evaluation.
    const cut = join(mkdtempSync(join(tmpdir(), 'prl-cut-')), 'cut.prl');
    writeFileSync(cut, readFileSync('public/pretrained.prl').subarray(0, 40));
    fail(['src/cli/eval.ts', '--checkpoint', cut, '--task', 'sum_digits'], new RegExp(`--checkpoint ${cut}: `));
    fail(['src/cli/pretrain.ts', '--task', 'reverse_digits', '--steps', '1', '--out', join(tmpdir(), 'never.prl')], /pretrain warms up kolmogorov or functions/);
    fail(['src/cli/pretrain.ts', '--warmup', 'abc', '--steps', '1', '--out', join(tmpdir(), 'never.prl')], /--warmup: expected a whole number of steps, at least 0, got "abc"/);
    fail(['src/cli/digits.ts', '--task', 'sum_digits', '--init-from', '/nonexistent.prl', '--num-steps', '1'], /--init-from \/nonexistent.prl: a digit task starts from its own warm start/);
    const held = mkdtempSync(join(tmpdir(), 'prl-held-'));
    writeFileSync(join(held, 'run.json'), '{}');
    fail(['src/cli/digits.ts', '--task', 'sum_digits', '--num-steps', '1', '--output-dir', held], /already holds a run: give another --output-dir, or --overwrite/);
    fail(['src/cli/train.ts', '--task', 'kolmogorov', '--init-from', 'public/functions.prl', '--max-steps', '1'], /--init-from public\/functions.prl: the checkpoint is for task functions, not kolmogorov \(--task\)/);
    // A data file of another task says so, beside its bad lines.
    fail(['src/cli/eval.ts', '--checkpoint', 'public/functions.prl', '--data', 'datasets/heldout.jsonl', '--limit', '1'], /no valid problems \(the file looks like kolmogorov sequences, and this run's task is functions: check --task, or the checkpoint's task\)/);
    fail(['src/cli/eval.ts', '--checkpoint', 'public/pretrained.prl', '--data', 'datasets/functions/dev.jsonl', '--limit', '1'], /no valid sequences \(the file looks like functions problems/);
    fail(['src/cli/train.ts', '--task', 'functions', '--problems', 'datasets/functions/dev.jsonl', '--data-path', 'datasets/functions/train.jsonl', '--max-steps', '1'], /--problems is the seed's name for --data-path: give one of them/);
    fail(['bench/run.ts', '--only=foo'], /--only: no benchmark foo/);
    fail(['bench/run.ts', '--bogus'], /Unknown option '--bogus'/);
    fail(['bench/run.ts', '--only', 'jsonl', '--runs', 'abc'], /--runs: expected a whole number of runs/);
    expect(spawnSync(tsx, ['bench/run.ts', '--only=fsearch', '--checkpoint=public/functions.prl', '--help'], { encoding: 'utf8' }).status).toBe(0); // its documented flag
  });

  it('the digits help lists what a digit run reads: its two tasks (one must be given), no other task\'s fields, no files', () => {
    const help = execFileSync(tsx, ['src/cli/digits.ts', '--help'], { encoding: 'utf8' });
    expect(help).toMatch(/--task sum_digits\|reverse_digits\s+Which digit task the policy learns\. \(required\)/);
    for (const flag of ['--prior', '--max-sequence-length', '--data-path', '--init-from', '--checkpoint-freq']) expect(help).not.toContain(`${flag} `);
    for (const flag of ['--num-generators', '--warm-start-steps', '--learning-rate', '--output-dir', '--algorithm']) expect(help).toContain(`${flag} `);
    // The defaults a digit run has: the recipe's, per task where they differ.
    expect(help.replace(/\s+/g, ' ')).toContain('Adam learning rate. (default sum_digits 0.0001, reverse_digits 0.0005)');
    expect(help.replace(/\s+/g, ' ')).toMatch(/--context INTEGER Maximum tokens of prompt plus program\. \(default 40\)/);
    expect(help.replace(/\s+/g, ' ')).toContain('only with it. (default reinforce_monarch)');
    // An algorithm's own field has the default a digit run of that algorithm gets (dqn's replay of about the newest batch).
    expect(help.replace(/\s+/g, ' ')).toMatch(/--buffer-size INTEGER dqn: .*\(default 800\)/);
    expect(help.replace(/\s+/g, ' ')).toMatch(/--dqn-batch-size INTEGER dqn: .*\(default sum_digits 128, reverse_digits 64\)/);
    // train's help lists every task, and its fields with --help all.
    expect(execFileSync(tsx, ['src/cli/train.ts', '--help', 'all'], { encoding: 'utf8' })).toMatch(/--task kolmogorov\|functions\|sum_digits\|reverse_digits[\s\S]*--prior [\s\S]*--tau /);
  });

  it('pretrain --init-from continues from a checkpoint of the same architecture, grows a shallower one, and refuses another', async () => {
    const missing = spawnSync(tsx, ['src/cli/pretrain.ts', '--init-from', '/nonexistent.prl'], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/--init-from: cannot read checkpoint \/nonexistent.prl/);
    const out = join(mkdtempSync(join(tmpdir(), 'prl-pretrain-')), 'next.prl');
    const other = spawnSync(tsx, ['src/cli/pretrain.ts', '--init-from', 'public/pretrained.prl', '--d-model', '16', '--out', out], { encoding: 'utf8' });
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/checkpoint architecture differs: dModel 64 \(this model 16\)/);
    expect(existsSync(out)).toBe(false);

    const tiny = ['--d-model', '16', '--layers', '1', '--heads', '2', '--context', '160', '--max-sequence-length', '64', '--max-program-tokens', '64', '--batch-size', '4', '--steps', '1', '--eval-limit', '2', '--threads', '1'];
    const first = join(dirname(out), 'first.prl');
    execFileSync(tsx, ['src/cli/pretrain.ts', ...tiny, '--out', first], { stdio: 'ignore' });
    const next = spawnSync(tsx, ['src/cli/pretrain.ts', ...tiny, '--init-from', first, '--out', out], { encoding: 'utf8' });
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toContain(`policy initialised from ${first}`);
    expect(existsSync(out)).toBe(true);

    // More layers than the checkpoint has: the policy grows, and the checkpoint written is the deeper one.
    const deeper = join(dirname(out), 'deeper.prl');
    const grown = spawnSync(tsx, ['src/cli/pretrain.ts', ...tiny, '--layers', '3', '--init-from', first, '--out', deeper], { encoding: 'utf8' });
    expect(grown.status, grown.stderr).toBe(0);
    expect(grown.stderr).toContain(`policy initialised from ${first}, deepened from 1 to 3 layers`);
    expect((await decodeCheckpoint(new Uint8Array(readFileSync(deeper)))).meta.config.model.layers).toBe(3);
    // Each checkpoint keeps its own metrics beside it.
    for (const name of ['first', 'next', 'deeper']) expect(readFileSync(join(dirname(out), `${name}-metrics.jsonl`), 'utf8')).toContain('pretrain_loss');

    // Nothing is written over unless asked: not an existing file, never the file it reads.
    const kept = spawnSync(tsx, ['src/cli/pretrain.ts', ...tiny, '--out', first], { encoding: 'utf8' });
    expect(kept.status).toBe(1);
    expect(kept.stderr).toContain(`--out ${first} already exists: give another --out, or --overwrite to replace it`);
    expect(spawnSync(tsx, ['src/cli/pretrain.ts', ...tiny, '--out', first, '--overwrite'], { encoding: 'utf8' }).status).toBe(0);
    const pairs = join(dirname(out), 'pairs.jsonl');
    writeFileSync(pairs, readFileSync('datasets/train.jsonl', 'utf8').split('\n').slice(0, 50).join('\n') + '\n');
    const own = spawnSync(tsx, ['src/cli/pretrain.ts', ...tiny, '--source', pairs, '--out', pairs, '--overwrite'], { encoding: 'utf8' });
    expect(own.status).toBe(1);
    expect(own.stderr).toContain(`--out ${pairs} is also --source`);
    expect(readFileSync(pairs, 'utf8').startsWith('{')).toBe(true);
  }, 120_000);
});
