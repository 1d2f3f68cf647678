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

  it('a reused warm start carries the earlier run\'s start, and says a differing --init-from is unused', () => {
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const extra: Record<string, string | boolean | undefined> = { 'init-from': join(dir, 'replaced.prl') };
      recordReusedStart(extra, { 'init-from': start, 'init-sha256': sha });
      expect(extra).toEqual({ 'init-from': start, 'init-sha256': sha });
      expect(said).toHaveBeenCalledWith(`--init-from ${join(dir, 'replaced.prl')} is not used: the reused warm start was made from ${start}`);
      // Made from random weights: nothing of this run's --init-from is recorded.
      const fresh: Record<string, string | boolean | undefined> = { 'init-from': start, 'init-sha256': 'stale' };
      recordReusedStart(fresh, {});
      expect(fresh).toEqual({});
      expect(said).toHaveBeenLastCalledWith(`--init-from ${start} is not used: the reused warm start was made from random weights`);
    } finally {
      said.mockRestore();
    }
  });
});
