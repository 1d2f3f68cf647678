import { describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isEntry, parseArgs, positiveFlag, usage } from './args';
import { trainHelp } from './train';

describe('parseArgs', () => {
  it('says which of the command\'s own flags were given, whatever their spelling, apart from their defaults', () => {
    const extras = [{ name: 'pretrain-steps', doc: 'steps', defaultValue: '12000' }, { name: 'limit', doc: 'records' }, { name: 'smoke', doc: 'small', boolean: true }];
    const { extra, extraGiven } = parseArgs(['--pretrain_steps=5', '--smoke'], extras, false);
    expect(extra).toMatchObject({ 'pretrain-steps': '5', smoke: true });
    expect([...extraGiven].sort()).toEqual(['pretrain-steps', 'smoke']);
    expect(parseArgs([], extras, false).extraGiven.size).toBe(0);
  });

  it('keeps a --flag=value\'s value as typed: only the name takes the seed\'s underscores', () => {
    const { config } = parseArgs(['--output_dir=runs/my_run', '--algorithm=expert_iteration', '--data-path=datasets/functions/training_problems.json'], []);
    expect(config.run.outputDir).toBe('runs/my_run');
    expect(config.algorithm.name).toBe('expert_iteration');
    expect(config.run.dataPath).toBe('datasets/functions/training_problems.json');
  });

  it('reads a boolean flag alone as true and --flag false / --flag=false as false', () => {
    expect(parseArgs(['--overlap'], []).config.digits.overlap).toBe(true);
    expect(parseArgs(['--overlap', 'false'], []).config.digits.overlap).toBe(false);
    expect(parseArgs(['--overlap=false'], []).config.digits.overlap).toBe(false);
    // The word after a boolean flag is only its value when it is true or false.
    expect(parseArgs(['--require-tag', '--num-steps', '5'], []).config.digits).toMatchObject({ requireTag: true, numSteps: 5 });
    expect(() => parseArgs(['--overlap', 'maybe'], [])).toThrow(/unexpected argument "maybe"/);
  });

  it('never takes a flag as the value before it, and names an unknown last flag as unknown', () => {
    const extras = [{ name: 'quiet', doc: 'less', boolean: true }, { name: 'init-from', doc: 'weights' }];
    expect(() => parseArgs(['--output-dir', '--quiet'], extras)).toThrow('--output-dir needs a value, got the flag --quiet');
    expect(() => parseArgs(['--init-from', '--overwrite'], extras)).toThrow('--init-from needs a value, got the flag --overwrite');
    expect(() => parseArgs(['--max-steps', '3', '--bogus'], extras)).toThrow('unknown flag --bogus');
    expect(() => parseArgs(['--seed', '-1'], extras)).toThrow('--seed: Too small'); // a negative number is read as the value, and judged
  });
});

describe('positiveFlag', () => {
  it('reads a positive number, a whole one when asked, and names the flag and the text otherwise', () => {
    expect(positiveFlag('temperature', '0.7')).toBe(0.7);
    expect(positiveFlag('k', '8', true)).toBe(8);
    expect(() => positiveFlag('temperature', '0')).toThrow('--temperature: expected a positive number, got "0"');
    expect(() => positiveFlag('k', '2.5', true)).toThrow('--k: expected a positive whole number, got "2.5"');
    expect(() => positiveFlag('limit', 'many', true)).toThrow('--limit: expected a positive whole number, got "many"');
    expect(() => positiveFlag('steps', undefined, true)).toThrow('got "undefined"');
  });

  it('refuses an infinite value: --beta 1e400 is Infinity, which passed "positive" (issue 29)', () => {
    expect(() => positiveFlag('beta', '1e400')).toThrow('--beta: expected a positive number, got "1e400"');
    expect(() => positiveFlag('limit', 'Infinity', true)).toThrow('--limit: expected a positive whole number');
  });

  it('help lines never run a flag into its description, and stay within 110 characters', () => {
    const help = usage('train', 'summary', [{ name: 'a-very-long-flag-name-that-fills-its-column', doc: 'its doc' }]);
    for (const line of help.split('\n')) {
      expect(line.length, line).toBeLessThanOrEqual(110);
      if (line.startsWith('  --')) expect(line, line).toMatch(/^ {2}--\S+( \S+)?( {2,}\S|$)/);
    }
    expect(help).toContain('  --a-very-long-flag-name-that-fills-its-column VALUE\n' + ' '.repeat(34) + 'its doc');
  });

  it('train --help lists the fields of the task and algorithm given, with their defaults there; --help all lists every field', () => {
    const has = (help: string, flag: string) => help.includes(`  --${flag} `);
    const plain = trainHelp();
    expect(plain).toContain('the fields of --task kolmogorov with --algorithm reinforce');
    for (const flag of ['prior', 'kl-coef', 'learning-rate', 'max-sequence-length']) expect(has(plain, flag), flag).toBe(true);
    for (const flag of ['tau', 'reward-type', 'beta']) expect(has(plain, flag), flag).toBe(false); // dqn's, functions', grpo's and dpo's
    const functionsDqn = trainHelp('functions', 'dqn');
    for (const flag of ['tau', 'reward-type', 'learning-starts']) expect(has(functionsDqn, flag), flag).toBe(true);
    expect(has(functionsDqn, 'prior')).toBe(false);
    expect(functionsDqn.replace(/\s+/g, ' ')).toMatch(/--algorithm \S+ .*\(default dqn\)/);
    const all = trainHelp('kolmogorov', undefined, true);
    for (const flag of ['prior', 'tau', 'reward-type', 'beta', 'learning-starts']) expect(has(all, flag), flag).toBe(true);
    expect(plain.split('\n').length).toBeLessThan(all.split('\n').length * 0.7);
  });

  it('a command\'s own flag named as a config field is listed once, as the command reads it (pretrain\'s --max-train-length)', () => {
    const help = usage('pretrain', 'summary', [{ name: 'max-train-length', doc: 'the command\'s own meaning' }]);
    expect(help.match(/--max-train-length /g)).toHaveLength(1);
    expect(help).toContain('the command\'s own meaning');
    expect(usage('train', 'summary', [])).toContain('--max-train-length ');
  });
});

describe('an unknown flag', () => {
  it('is said with the nearest flag the command has, when one is near', () => {
    expect(() => parseArgs(['--max-step', '5'], [])).toThrow('unknown flag --max-step (did you mean --max-steps?) (see --help)');
    expect(() => parseArgs(['--learning_rat', '0.1'], [])).toThrow('(did you mean --learning-rate?)');
    expect(() => parseArgs(['--smok'], [{ name: 'smoke', doc: '', boolean: true }], false)).toThrow('unknown flag --smok (did you mean --smoke?)');
    expect(() => parseArgs(['--zzzzzzzz', '1'], [])).toThrow(/^unknown flag --zzzzzzzz \(see --help\)$/);
  });
});

describe('a config file\'s command section', () => {
  it('sets the command\'s own flags, which the command line overrides; refuses run-folder flags; skips flags of other commands', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-args-'));
    const file = join(dir, 'config.yaml');
    const extras = [{ name: 'eval-k', doc: '', defaultValue: '1' }, { name: 'quiet', doc: '', boolean: true }, { name: 'resume', doc: '' }];
    writeFileSync(file, 'algorithm:\n  learningRate: 0.002\ncommand:\n  eval-k: 8\n  quiet: true\n  num-samples-of-eval: 3\n');
    const fromFile = parseArgs(['--config', file], extras);
    expect(fromFile.extra).toMatchObject({ 'eval-k': '8', quiet: true });
    expect([...fromFile.extraGiven].sort()).toEqual(['eval-k', 'quiet']);
    expect(fromFile.config.algorithm.learningRate).toBe(0.002);
    expect(parseArgs(['--config', file, '--eval-k', '2', '--quiet', 'false'], extras).extra).toMatchObject({ 'eval-k': '2', quiet: false });
    writeFileSync(file, 'command:\n  resume: runs/x/latest.prl\n');
    expect(() => parseArgs(['--config', file], extras)).toThrow(`--config ${file}: command.resume: --resume is given on the command line, not in a config file`);
    writeFileSync(file, 'command:\n  quiet: 3\n');
    expect(() => parseArgs(['--config', file], extras)).toThrow('command.quiet must be true or false, got "3"');
  });
});

describe('fields that disagree', () => {
  it('are refused when the flags are read, before any data loads or worker starts, saying what would fit', () => {
    expect(() => parseArgs(['--heads', '3'], [])).toThrow('model.dModel (64) must be divisible by model.heads (3): try heads 1, 2, 4, 8, 16');
  });
});

describe('isEntry', () => {
  it('knows the command it runs when its path goes through a symbolic link (node loads the real path)', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'prl-entry-')));
    writeFileSync(join(dir, 'command.ts'), '');
    symlinkSync(dir, join(dir, 'linked'));
    const real = pathToFileURL(join(dir, 'command.ts')).href;
    expect(isEntry(real, join(dir, 'command.ts'))).toBe(true);
    expect(isEntry(real, join(dir, 'linked', 'command.ts'))).toBe(true);
    expect(isEntry(real, join(dir, 'other.ts'))).toBe(false);
    expect(isEntry(real, undefined)).toBe(false);
  });
});
