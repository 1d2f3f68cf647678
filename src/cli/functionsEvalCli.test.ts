/**
 * `npm run eval -- --task functions --search`: the flags reach the search (early stop, the
 * choice rule, solved@k) and differ from plain best-of-k; problems the policy cannot read are
 * named with why and the others are scored.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_TEMPERATURE } from '../core/functions/search';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');
const dir = mkdtempSync(join(tmpdir(), 'prl-fsearch-'));
const data = join(dir, 'mixed.jsonl');
writeFileSync(data, [
  { function_name: 'sum_list', docstring: 'Return the sum of the list.', test_cases: [[[[1, 2, 3]], 6], [[[]], 0], [[[5]], 5]], hidden_test_cases: [[[[2, 2]], 4]], starter_code: '' },
  { function_name: 'shout', docstring: 'Upper-case the word.', test_cases: [['ab', 'AB']], starter_code: '' },
  { function_name: 'mean', docstring: 'Return the mean.', test_cases: [[[[1, 2]], 1.5]], starter_code: '' },
  { function_name: 'keys', docstring: 'The keys of an object.', test_cases: [[{ a: 1 }, ['a']]], starter_code: '' },
  { function_name: 'double_all', docstring: 'Double each number.', test_cases: [[[[1, 2]], [2, 4]], [[[5]], [10]], [[[]], []]], hidden_test_cases: [[[[3, -1]], [6, -2]]], starter_code: '' },
].map((problem) => JSON.stringify(problem)).join('\n') + '\n');

function evalJson(...flags: string[]) {
  const run = spawnSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', 'public/functions.prl', '--data', data, '--backend', 'wasm', '--json', ...flags], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return { json: JSON.parse(run.stdout) as Record<string, unknown> & { per_problem: Record<string, unknown>[]; rejected: Record<string, unknown>[] }, stderr: run.stderr };
}

describe('eval --task functions --search', () => {
  it('searches with early stop and the chosen rule, reports solved@k, and names the problems it cannot read', () => {
    const plain = evalJson('--k', '16');
    expect(plain.json).not.toHaveProperty('selection');
    expect(plain.json.k).toBe(16);
    // Without --temperature, best-of-k samples at 1 and the search at its own default; either says which.
    expect(plain.json.temperature).toBe(1);

    const { json, stderr } = evalJson('--search', '--k', '16', '--select', 'first', '--batch', '4');
    expect(json).toMatchObject({ n: 2, k: 16, selection: 'first', sampling: 'distinct', solved: 1, temperature: SEARCH_TEMPERATURE });
    expect(evalJson('--search', '--k', '4', '--sampling', 'independent').json.sampling).toBe('independent');
    expect(SEARCH_TEMPERATURE).not.toBe(1);
    expect(evalJson('--search', '--k', '4', '--temperature', '0.7').json.temperature).toBe(0.7);
    expect((json.solved_at as { k: number }[]).map((at) => at.k)).toEqual([1, 2, 4, 8, 16]);
    // The shipped policy's greedy program passes both: each problem stops after its first batch of 4.
    expect(json.per_problem.map((row) => row.drawn)).toEqual([4, 4]);
    expect(json.per_problem.map((row) => row.function_name)).toEqual(['sum_list', 'double_all']);
    // Strings, a fraction and an object: each named, with why; the other two scored.
    expect(json.rejected).toEqual([
      { where: 'line 2', function_name: 'shout', reason: expect.stringContaining('got string') },
      { where: 'line 3', function_name: 'mean', reason: expect.stringContaining('1.5 is not an integer') },
      { where: 'line 4', function_name: 'keys', reason: expect.stringContaining('got object') },
    ]);
    expect(stderr).toContain('line 2 (shout)');

    const shortest = evalJson('--search', '--k', '8', '--select', 'shortest', '--enough', '2', '--batch', '8');
    expect(shortest.json).toMatchObject({ k: 8, selection: 'shortest' });
    for (const row of shortest.json.per_problem) expect(row.drawn).toBe(8);
  }, 120_000);

  it('refuses the search flags without --search, and k above 1024', () => {
    const without = spawnSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', 'public/functions.prl', '--data', data, '--select', 'shortest'], { encoding: 'utf8' });
    expect(without.status).not.toBe(0);
    expect(without.stderr).toContain('add --search');
    const tooMany = spawnSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', 'public/functions.prl', '--data', data, '--search', '--k', '2000'], { encoding: 'utf8' });
    expect(tooMany.status).not.toBe(0);
    expect(tooMany.stderr).toContain('at most 1024');
    const badRule = spawnSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', 'public/functions.prl', '--data', data, '--search', '--select', 'longest'], { encoding: 'utf8' });
    expect(badRule.stderr).toContain('expected likely, first, shortest or cluster');
    const badSampling = spawnSync(tsx, ['src/cli/eval.ts', '--task', 'functions', '--checkpoint', 'public/functions.prl', '--data', data, '--search', '--sampling', 'beam'], { encoding: 'utf8' });
    expect(badSampling.stderr).toContain('--sampling: expected independent or distinct, got "beam"');
  }, 60_000);
});
