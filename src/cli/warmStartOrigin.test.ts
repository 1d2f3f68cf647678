import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { recordFreshStart, recordReusedStart } from './warmStartOrigin';

describe('where a recipe\'s warm start began', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prl-origin-'));
  const start = join(dir, 'start.prl');
  writeFileSync(start, 'the start\'s bytes');
  const sha = createHash('sha256').update('the start\'s bytes').digest('hex');

  it('a fresh warm start records the hash of its --init-from, and a missing file fails at once', () => {
    const extra: Record<string, string | boolean | undefined> = { 'init-from': start };
    recordFreshStart(extra);
    expect(extra['init-sha256']).toBe(sha);
    const none: Record<string, string | boolean | undefined> = {};
    recordFreshStart(none);
    expect(none).toEqual({});
    expect(() => recordFreshStart({ 'init-from': join(dir, 'absent.prl') })).toThrow(`--init-from: cannot read checkpoint ${join(dir, 'absent.prl')}`);
  });

  it('a reused warm start carries the earlier run\'s start and warm-start flags, and says a differing one given is unused', () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const extra: Record<string, string | boolean | undefined> = { 'init-from': join(dir, 'replaced.prl'), 'pretrain-steps': '5000', 'pretrain-lr': '0.003' };
      recordReusedStart(extra, { 'init-from': start, 'init-sha256': sha, 'pretrain-steps': '20000', 'pretrain-lr': '0.0015' }, new Set(['init-from', 'pretrain-steps']), ['pretrain-steps', 'pretrain-lr']);
      expect(extra).toEqual({ 'init-from': start, 'init-sha256': sha, 'pretrain-steps': '20000', 'pretrain-lr': '0.0015' });
      expect(said).toHaveBeenCalledWith(`--init-from ${join(dir, 'replaced.prl')} is not used: the reused warm start was made from ${start}`);
      expect(said).toHaveBeenCalledWith('--pretrain-steps 5000 is not used: the reused warm start was made with --pretrain-steps 20000');
      // A default (not given) is carried over without a word.
      expect(said).toHaveBeenCalledTimes(2);
      // Made from random weights: nothing of this run's --init-from is recorded.
      const fresh: Record<string, string | boolean | undefined> = { 'init-from': start, 'init-sha256': 'stale' };
      recordReusedStart(fresh, {}, new Set(['init-from']), []);
      expect(fresh).toEqual({});
      expect(said).toHaveBeenLastCalledWith(`--init-from ${start} is not used: the reused warm start was made from random weights`);
    } finally {
      said.mockRestore();
    }
  });
});
