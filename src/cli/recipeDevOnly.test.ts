/**
 * The recipe's choice made on the dev file (`--dev-only`): both policies are scored on
 * datasets/kolmogorov/public_dev.jsonl and no held-out file is read; `--ship-only` then scores the
 * chosen policy, and only it, on the held-out file once and ships it with both records. Run at
 * smoke size in a scratch directory holding links to the repository's code and data, as shipping
 * writes public/pretrained.prl and public/pretrained.json where it runs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = process.cwd();
const tsx = join(repo, 'node_modules/.bin/tsx');

function scratchCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'prl-devonly-'));
  for (const name of ['src', 'node_modules', 'datasets', 'package.json', 'tsconfig.json']) symlinkSync(join(repo, name), join(dir, name));
  mkdirSync(join(dir, 'public'));
  return dir;
}

describe('npm run recipe -- --dev-only, then --ship-only', () => {
  it('chooses on the dev file, reads the held-out file once for the policy shipped, and records both', () => {
    const cwd = scratchCheckout();
    const recipe = (...args: string[]) => spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--k', '2', '--out', 'run', ...args], { cwd, encoding: 'utf8' });

    const refused = recipe('--dev-only', '--ship');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('--ship with --dev-only: a --dev-only run does not read the held-out file');
    expect(refused.stderr).not.toContain('== warm start');

    const dev = recipe('--dev-only');
    expect(dev.status, dev.stderr).toBe(0);
    const devFile = 'datasets/kolmogorov/public_dev_novel.jsonl';
    expect(dev.stdout).toContain(`dev: 3 sequences of ${devFile}`);
    const evals = dev.stderr.split('\n').filter((line) => line.startsWith('== eval: ') && line.includes('src/cli/eval.ts'));
    expect(evals).toHaveLength(2);
    for (const line of evals) expect(line).toContain(`--data ${devFile}`);
    // No stage scores a held-out file: the warm start's progress is on the dev file, and RL ends without its report.
    expect(dev.stderr).toMatch(new RegExp(`^  ${devFile} @2: loss`, 'm'));
    expect(dev.stderr).toMatch(/== RL: .* --skip-report/);
    for (const output of [dev.stdout, dev.stderr]) {
      expect(output).not.toContain('held-out report');
      expect(output).not.toMatch(/heldout\.jsonl @\d+/);
      expect(output).not.toMatch(/--data datasets\/heldout\.jsonl/);
    }
    const chosen = JSON.parse(readFileSync(join(cwd, 'run', 'recipe.json'), 'utf8'));
    expect(chosen.data).toBe(devFile);
    expect(chosen.flags['dev-only']).toBe(true);
    expect(Object.keys(chosen.scores)).toHaveLength(10);
    expect(chosen.heldout).toBeUndefined();

    const shipped = recipe('--ship-only', '--ship-rl');
    expect(shipped.status, shipped.stderr).toBe(0);
    const heldoutEvals = shipped.stderr.split('\n').filter((line) => line.startsWith('== eval: ') && line.includes('src/cli/eval.ts'));
    expect(heldoutEvals).toHaveLength(1);
    expect(heldoutEvals[0]).toMatch(/^== eval: warm start \+ RL: .*--checkpoint run\/rl\/latest\.prl --data datasets\/heldout\.jsonl /);
    const record = JSON.parse(readFileSync(join(cwd, 'public', 'pretrained.json'), 'utf8'));
    expect(record.made_by).toMatch(/^npm run recipe -- --smoke --out run .*--dev-only, then the same with --ship-only --ship-rl$/);
    expect(Object.keys(record.heldout)).toEqual(Object.keys(chosen.scores).filter((label) => label.startsWith('warm start + RL, ')));
    expect(record.dev).toEqual({ data: devFile, scores: chosen.scores });
    expect(JSON.parse(readFileSync(join(cwd, 'run', 'recipe.json'), 'utf8')).heldout).toEqual(record.heldout);

    // Shipped again: the held-out scores recorded are used, the policy is not scored a second time.
    const again = recipe('--ship-only', '--ship-rl');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/== eval: warm start/);
    expect(JSON.parse(readFileSync(join(cwd, 'public', 'pretrained.json'), 'utf8')).heldout).toEqual(record.heldout);
    // The other policy, now that one was read on held-out, would be a choice made there: refused.
    const other = recipe('--ship-only');
    expect(other.status).toBe(1);
    expect(other.stderr).toContain('--ship-only: the warm start + RL of run was shipped and scored on the held-out file already');
    expect(other.stderr).not.toMatch(/== eval: warm start/);

    // A new run in the same --out drops the old record first: if a stage fails, --ship-only finds no scores.
    const failed = recipe('--dev-only', '--pretrain-lr', 'fast');
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('warm start failed');
    expect(recipe('--ship-only').stderr).toContain('cannot read recipe result run/recipe.json');
    // Once its warm start is made the record holds it alone: RL failing leaves it to reuse.
    const rlFailed = recipe('--dev-only', '--rl-steps', '-1');
    expect(rlFailed.status).toBe(1);
    expect(rlFailed.stderr).toContain('RL failed');
    expect(recipe('--ship-only').stderr).toContain('--ship-only: the run in run did not finish');
    const reused = recipe('--dev-only', '--reuse-warm-start');
    expect(reused.status, reused.stderr).toBe(0);
    expect(reused.stderr).toContain('== warm start: reusing run/pretrained.prl');
  }, 300_000);
});
