/**
 * The learning recipe end to end at smoke size: warm start, RL from it, and the held-out
 * evaluation of each policy run as the real CLI stages, and the table and recipe.json report
 * all five searches of each policy beside gzip and LZMA. (The real recipe's figures are in docs/kolmogorov.md; this checks the pipeline.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const tsx = join(process.cwd(), 'node_modules/.bin/tsx');

describe('npm run recipe', () => {
  it('pretrains, runs RL from the warm start, and tabulates ten evaluations (five searches of each policy) beside gzip and LZMA', () => {
    const out = mkdtempSync(join(tmpdir(), 'prl-recipe-'));
    const table = execFileSync(tsx, ['src/cli/recipe.ts', '--smoke', '--pretrain-steps', '2', '--rl-steps', '1', '--k', '2', '--limit', '3', '--out', out], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const searches = ['greedy', 'best-of-2', 'best-of-2 + repair', 'best-of-2 + repair + split', 'best-of-2 + repair + split + bridges'];
    for (const row of ['gzip', 'LZMA', ...searches.map((search) => `warm start, ${search}`), ...searches.map((search) => `warm start + RL, ${search}`)]) {
      expect(table, row).toContain(row);
    }
    // The first 3 held-out sequences are 51, 25 and 84 long: the by-length table has those three ranges.
    expect(table).toMatch(/by sequence length[^]*\n<=32 [^]*\n33-64 [^]*\n65-128 /);
    const recipe = JSON.parse(readFileSync(join(out, 'recipe.json'), 'utf8'));
    expect(Object.keys(recipe.scores)).toHaveLength(10);
    for (const score of Object.values(recipe.scores) as { n: number; compression_rate: number }[]) {
      expect(score.n).toBe(3);
      expect(score.compression_rate).toBeGreaterThan(0);
    }
    expect(existsSync(join(out, 'pretrained.prl'))).toBe(true);
    expect(existsSync(join(out, 'rl', 'latest.prl'))).toBe(true);

    // Again on the same warm start: only RL and the evaluations run, the warm start's bytes stay.
    const warm = readFileSync(join(out, 'pretrained.prl'));
    // --smoke alone is small in steps and records too (1 RL step, 3 held-out records).
    const again = spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--reuse-warm-start', '--k', '2', '--out', out], { encoding: 'utf8' });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`== warm start: reusing ${join(out, 'pretrained.prl')}`);
    expect(again.stderr).not.toContain('src/cli/pretrain.ts');
    // Every stage runs with the kernels' fused multiply-add, as the npm scripts do (stage.ts), though this recipe was started without the flag.
    expect(again.stderr).toContain('fused multiply-add (relaxed SIMD');
    expect(again.stderr).not.toContain('plain SIMD multiply and add');
    expect(again.stdout).toContain('warm start + RL, best-of-2');
    expect(readFileSync(join(out, 'pretrained.prl')).equals(warm)).toBe(true);

    const empty = spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--reuse-warm-start', '--out', mkdtempSync(join(tmpdir(), 'prl-recipe-'))], { encoding: 'utf8' });
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/--reuse-warm-start: .* holds no earlier run/);

    // A warm start continued from a checkpoint (e.g. the shipped policy): its own rate and stream
    // seed reach the pretrain stage, and the start's hash is kept, as --ship may replace that file.
    const continued = mkdtempSync(join(tmpdir(), 'prl-recipe-'));
    const more = spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--init-from', join(out, 'pretrained.prl'), '--pretrain-lr', '0.001', '--pretrain-seed', '2', '--pretrain-steps', '1', '--rl-max-train-length', '48', '--k', '1', '--limit', '1', '--out', continued], { encoding: 'utf8' });
    expect(more.status, more.stderr).toBe(0);
    expect(more.stderr).toMatch(/== RL: node .*src\/cli\/train\.ts .*--train-pieces 2 --max-train-length 48 /);
    expect(again.stderr).toMatch(/== RL: node .*src\/cli\/train\.ts .*--train-pieces 2 --max-train-length 32 /);
    expect(more.stderr).toMatch(/== warm start: node .*src\/cli\/pretrain\.ts .*--learning-rate 0\.001 --seed 2 --init-from /);
    expect(more.stderr).toContain(`policy initialised from ${join(out, 'pretrained.prl')}`);
    const flags = JSON.parse(readFileSync(join(continued, 'recipe.json'), 'utf8')).flags;
    expect(flags['init-sha256']).toBe(createHash('sha256').update(warm).digest('hex'));
    // Reused, that warm start is still recorded as made from its own start, not from whatever
    // this run's --init-from names now.
    const reused = spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--reuse-warm-start', '--init-from', join(out, 'rl', 'latest.prl'), '--k', '1', '--limit', '1', '--out', continued], { encoding: 'utf8' });
    expect(reused.status, reused.stderr).toBe(0);
    expect(reused.stderr).toContain(`--init-from ${join(out, 'rl', 'latest.prl')} is not used: the reused warm start was made from ${join(out, 'pretrained.prl')}`);
    const reusedFlags = JSON.parse(readFileSync(join(continued, 'recipe.json'), 'utf8')).flags;
    expect(reusedFlags['init-from']).toBe(join(out, 'pretrained.prl'));
    expect(reusedFlags['init-sha256']).toBe(flags['init-sha256']);
    const missing = spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--init-from', join(continued, 'absent.prl'), '--out', continued], { encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`--init-from: cannot read checkpoint ${join(continued, 'absent.prl')}`);
    expect(missing.stderr).not.toContain('== warm start');

    // --ship-rl alone ships nothing: said, before any stage runs.
    const alone = spawnSync(tsx, ['src/cli/recipe.ts', '--smoke', '--ship-rl', '--out', mkdtempSync(join(tmpdir(), 'prl-recipe-'))], { encoding: 'utf8' });
    expect(alone.status).toBe(1);
    expect(alone.stderr).toContain('--ship-rl says which policy --ship or --ship-only ships');
  }, 300_000);
});
