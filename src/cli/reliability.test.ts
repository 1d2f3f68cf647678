/**
 * What the probe of the lab broke, kept fixed (issue 23, docs/reliability.md): files are sized before
 * they are read, devices and directories are refused by name, a config file's unknown keys are
 * named, and an output folder that does not exist yet is made.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, ftruncateSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const run = (script: string, args: string[]) => spawnSync(tsx, [`src/cli/${script}.ts`, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('hostile files are refused before they are read', () => {
  it('a checkpoint that is a device, a directory or far too large is refused at once, naming it', () => {
    const zero = run('eval', ['--checkpoint', '/dev/zero']);
    expect(zero.status).not.toBe(0);
    expect(zero.stderr).toContain('cannot read checkpoint /dev/zero: not a regular file');
    const dir = mkdtempSync(join(tmpdir(), 'prl-hostile-'));
    expect(run('eval', ['--checkpoint', dir]).stderr).toContain(`cannot read checkpoint ${dir}: it is a directory`);
    // A sparse 1.5 GB file: refused by its size, so no byte of it is read.
    const huge = join(dir, 'huge.prl');
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 1.5 * 2 ** 30);
    closeSync(fd);
    const started = Date.now();
    const refused = run('eval', ['--checkpoint', huge]);
    expect(refused.stderr).toContain(`checkpoint ${huge} has 1610612736 bytes, more than the 1073741824 a checkpoint may have`);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a dataset from a device is refused by name instead of read until killed', () => {
    const random = run('train', ['--data-path', '/dev/urandom', '--max-steps', '1']);
    expect(random.status).not.toBe(0);
    expect(random.stderr).toContain('cannot read dataset /dev/urandom: not a regular file');
  });
});

describe('what a person writes is checked', () => {
  it('a --config file with a misspelt key is refused, naming the key and the one meant', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-config-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ algorithm: { learningrate: 0.5 } }));
    const refused = run('train', ['--config', file, '--max-steps', '1', '--output-dir', join(dir, 'out')]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`--config ${file}: invalid config: unknown key algorithm.learningrate (did you mean learningRate?)`);
  });

  it('eval --programs scores a record without a program as a failure and names its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-programs-'));
    const file = join(dir, 'programs.jsonl');
    // Line 2 is bad JSON (skipped), so the record on line 3 is the second record: its line is what is named.
    writeFileSync(file, ['{"sequence": [1, 2, 3], "program": "sequence_1 = range_func_up(1, 3)\\noutput = sequence_1"}', '{oops', '{"sequence": [5, 5]}', '{"sequence": [4], "program": "output = no_such_function(4)"}'].join('\n') + '\n');
    const scored = run('eval', ['--programs', file, '--json']);
    expect(scored.status, scored.stderr).toBe(0);
    expect(scored.stderr).toContain(`${file}: 1 record has no "program" field (line 3); they count as failures`);
    expect(scored.stderr).toMatch(new RegExp(`${file}: line 4: .+\\n${file}: 1 program does not parse as DSL programs the bit prior prices; they count as failures`));
    const result = JSON.parse(scored.stdout.trim().split('\n').at(-1)!);
    expect(result.n).toBe(3);
    expect(result.accuracy).toBeCloseTo(1 / 3, 12);
  });

  it('a batch too large for the wasm heap is refused before the first step, with the batch that fits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-batch-'));
    const refused = run('train', ['--batch-size', '256', '--max-steps', '1', '--output-dir', join(dir, 'out')]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/a batch of 256 needs about [\d.]+ GiB in an update .* use --batch-size \d+ or less/);
  });

  it('generate --out into a folder that does not exist makes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-generate-'));
    const out = join(dir, 'a', 'b', 'seqs.jsonl');
    const made = run('generate', ['--count', '3', '--seed', '5', '--out', out]);
    expect(made.status, made.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
  });
});

describe('every file is read through one size-checked reader (issue 29)', () => {
  it('--config from a device, a FIFO or a file past the 1 MB a config may have is refused at once, naming it', () => {
    const zero = run('train', ['--config', '/dev/zero', '--max-steps', '1']);
    expect(zero.status).not.toBe(0);
    expect(zero.stderr).toContain('cannot read config file /dev/zero: not a regular file');
    const dir = mkdtempSync(join(tmpdir(), 'prl-config-size-'));
    const fifo = join(dir, 'fifo.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const started = Date.now();
    const piped = run('train', ['--config', fifo, '--max-steps', '1']);
    expect(piped.stderr).toContain(`cannot read config file ${fifo}: not a regular file`);
    expect(Date.now() - started).toBeLessThan(30_000);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(2 << 20)}\nlearning_rate: 0.1\n`);
    expect(run('train', ['--config', big, '--max-steps', '1']).stderr).toMatch(new RegExp(`config file ${big} has \\d+ bytes, more than the 1048576 a config file may have`));
  });
});

describe('a checkpoint that does not decode is named with the flag that gave it (issue 29)', () => {
  it('--init-from, --resume and eval --checkpoint say which flag and which file, then why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-named-'));
    const bad = join(dir, 'bad.prl');
    const bytes = readFileSync('public/pretrained.prl');
    bytes[bytes.length - 40] ^= 0xff; // a payload byte: the checksum no longer matches
    writeFileSync(bad, bytes);
    const tiny = ['--layers', '1', '--d-model', '16', '--heads', '1', '--batch-size', '2', '--max-steps', '1', '--eval-samples', '1', '--quiet'];
    expect(run('eval', ['--checkpoint', bad, '--limit', '1']).stderr).toContain(`--checkpoint ${bad}: checksum mismatch`);
    expect(run('train', [...tiny, '--init-from', bad, '--output-dir', join(dir, 'a')]).stderr).toContain(`--init-from ${bad}: checksum mismatch`);
    // A resume of the run in this dir, whose latest.prl is damaged.
    const runDir = join(dir, 'b');
    mkdirSync(runDir);
    writeFileSync(join(runDir, 'latest.prl'), bytes);
    expect(run('train', [...tiny, '--resume', join(runDir, 'latest.prl'), '--output-dir', runDir]).stderr).toContain(`--resume ${join(runDir, 'latest.prl')}: checksum mismatch`);
  });
});
