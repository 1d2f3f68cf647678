/**
 * The one output-path guard (outputs.ts) and what it keeps from happening (issue 29): an output
 * that is an input or another output, an empty path that means the current folder, a folder that
 * is a file (or the reverse), a place that cannot be written, and an export over a folder that is
 * not an earlier export, each refused before any work and naming the flag; a folder written whole
 * or not at all.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOutputs, writeFolderAtomic } from './outputs';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const run = (script: string, args: string[], cwd = process.cwd()) => spawnSync(tsx, [join(process.cwd(), `src/cli/${script}.ts`), ...args], { encoding: 'utf8', timeout: 120_000, cwd });
const dataset = '{"sequence": [1, 2, 3]}\n{"sequence": [4, 4, 4, 4]}\n';

describe('the output-path guard', () => {
  it('refuses an output equal to an input or to another output, whatever the spelling or a link', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-guard-'));
    const data = join(dir, 'd.jsonl');
    writeFileSync(data, dataset);
    expect(() => checkOutputs([{ flag: 'out', path: data, kind: 'file' }], [{ flag: 'data', path: data }])).toThrow(`--out ${data} is also --data: writing it would replace what the command reads`);
    expect(() => checkOutputs([{ flag: 'out', path: join(dir, 'x', '..', 'd.jsonl'), kind: 'file' }], [{ flag: 'data', path: data }])).toThrow(/is also --data/);
    const out = join(dir, 'new.jsonl');
    expect(() => checkOutputs([{ flag: 'out', path: out, kind: 'file' }, { flag: 'pairs', path: out, kind: 'file' }])).toThrow(`--out and --pairs are the same file (${out}): give each its own`);
    expect(() => checkOutputs([{ flag: 'out', path: out, kind: 'file' }, { flag: 'pairs', path: join(dir, 'p.jsonl'), kind: 'file' }], [{ flag: 'data', path: data }])).not.toThrow();
  });

  it('refuses an empty path, a folder that is a file, a file that is a folder, and a place that cannot be written, naming the flag', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-guard-'));
    const file = join(dir, 'f');
    writeFileSync(file, 'x');
    expect(() => checkOutputs([{ flag: 'output-dir', path: '', kind: 'folder' }])).toThrow('--output-dir: an empty path (it would write into the current folder)');
    expect(() => checkOutputs([{ flag: 'output-dir', path: file, kind: 'folder' }])).toThrow(`--output-dir ${file}: it is a file, not a folder`);
    expect(() => checkOutputs([{ flag: 'output-dir', path: join(file, 'run'), kind: 'folder' }])).toThrow(`--output-dir ${join(file, 'run')}: ${file} is a file, not a folder`);
    expect(() => checkOutputs([{ flag: 'out', path: dir, kind: 'file' }])).toThrow(`--out ${dir}: it is a folder, not a file`);
    expect(() => checkOutputs([{ flag: 'out', path: '/proc/prl-nowhere/x', kind: 'folder' }])).toThrow(/^--out \/proc\/prl-nowhere\/x: cannot write in \/proc/);
  });

  it('writes a folder whole or not at all: a failure partway leaves the earlier folder as it was and no partial one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-folder-'));
    const out = join(dir, 'exported');
    writeFolderAtomic('out', out, { 'a.txt': 'old a', 'b.txt': 'old b' });
    expect(() => writeFolderAtomic('out', out, { 'a.txt': 'new a', 'b.txt': 7 as unknown as string })).toThrow(`--out ${out}: cannot write`);
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe('old a');
    expect(readdirSync(dir)).toEqual(['exported']);
    writeFolderAtomic('out', out, { 'a.txt': 'new a' });
    expect(readdirSync(out)).toEqual(['a.txt']);
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe('new a');
  });
});

describe('the commands use the guard (issue 29)', () => {
  it('rollouts refuses --out equal to --data, and --out equal to --pairs, leaving the dataset as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-rollouts-'));
    const data = join(dir, 'd.jsonl');
    writeFileSync(data, dataset);
    const same = run('rollouts', ['--checkpoint', 'public/pretrained.prl', '--data', data, '--out', data, '--samples', '1']);
    expect(same.status).not.toBe(0);
    expect(same.stderr).toContain(`--out ${data} is also --data`);
    expect(readFileSync(data, 'utf8')).toBe(dataset);
    const out = join(dir, 'x.jsonl');
    const twice = run('rollouts', ['--checkpoint', 'public/pretrained.prl', '--data', data, '--out', out, '--pairs', out, '--samples', '1']);
    expect(twice.stderr).toContain(`--out and --pairs are the same file (${out})`);
    expect(existsSync(out)).toBe(false);
  });

  it('export refuses a folder that is not an earlier export (a run\'s), and names --out when it is a file; over an earlier export it writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-export-guard-'));
    const runDir = join(dir, 'run');
    mkdirSync(runDir);
    writeFileSync(join(runDir, 'config.json'), '{"the": "lab config"}');
    writeFileSync(join(runDir, 'metrics.jsonl'), '');
    const refused = run('export', ['--checkpoint', 'public/pretrained.prl', '--out', runDir]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`--out ${runDir} holds files that are not an earlier export's (metrics.jsonl): give a new or empty folder`);
    expect(readFileSync(join(runDir, 'config.json'), 'utf8')).toBe('{"the": "lab config"}');
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    expect(run('export', ['--checkpoint', 'public/pretrained.prl', '--out', file]).stderr).toContain(`--out ${file}: it is a file, not a folder`);
    const out = join(dir, 'exported');
    expect(run('export', ['--checkpoint', 'public/pretrained.prl', '--out', out]).status).toBe(0);
    const again = run('export', ['--checkpoint', 'public/pretrained.prl', '--out', out]);
    expect(again.status, again.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['config.json', 'model.safetensors', 'modeling_prl.py', 'vocab.json']);
    expect(readdirSync(dir).sort()).toEqual(['exported', 'file', 'run']);
  });

  it('train --output-dir "" (or output_dir: "" in a config) is refused and writes nothing in the current folder; a file as --output-dir is named', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'prl-cwd-'));
    const data = ['--data-path', join(process.cwd(), 'datasets/train.jsonl'), '--eval-data-path', join(process.cwd(), 'datasets/heldout.jsonl')];
    const tiny = ['--layers', '1', '--d-model', '16', '--heads', '1', '--batch-size', '2', '--max-steps', '1', '--eval-samples', '1', '--quiet', ...data];
    const flag = run('train', [...tiny, '--output-dir', ''], cwd);
    expect(flag.status).not.toBe(0);
    expect(flag.stderr).toContain('--output-dir: an empty path (it would write into the current folder)');
    writeFileSync(join(cwd, 'c.yaml'), 'output_dir: ""\n');
    expect(run('train', [...tiny, '--config', join(cwd, 'c.yaml')], cwd).stderr).toContain('--output-dir: an empty path');
    expect(readdirSync(cwd)).toEqual(['c.yaml']);
    const file = join(cwd, 'c.yaml');
    expect(run('train', [...tiny, '--output-dir', file], cwd).stderr).toContain(`--output-dir ${file}: it is a file, not a folder`);
  });
});
