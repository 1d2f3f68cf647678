/**
 * Where a recipe's warm start began, kept beside its flags (`init-from`, `init-sha256`) for
 * recipe.json and the shipped record. `--init-from public/pretrained.prl --ship` replaces the very
 * file the run started from, so the path alone would not say which policy that was.
 */
import { createHash } from 'node:crypto';
import { readCheckpointFile } from './data';

type Flags = Record<string, string | boolean | undefined>;

/**
 * A fresh warm start: hashes the --init-from checkpoint now, before any stage runs, so a wrong
 * path fails at once rather than after minutes of work.
 */
export function recordFreshStart(extra: Flags): void {
  const from = extra['init-from'];
  if (typeof from === 'string') extra['init-sha256'] = createHash('sha256').update(readCheckpointFile(from, 'init-from')).digest('hex');
}

/**
 * A reused warm start (--reuse-warm-start) was made from the earlier run's start, whatever this
 * run's --init-from names now: that run's record is carried, and a differing --init-from is said
 * to be unused.
 */
export function recordReusedStart(extra: Flags, earlier: Record<string, unknown>): void {
  const from = extra['init-from'];
  const earlierFrom = typeof earlier['init-from'] === 'string' ? earlier['init-from'] : undefined;
  if (typeof from === 'string' && from !== earlierFrom) console.error(`--init-from ${from} is not used: the reused warm start was made ${earlierFrom ? `from ${earlierFrom}` : 'from random weights'}`);
  for (const name of ['init-from', 'init-sha256']) {
    if (typeof earlier[name] === 'string') extra[name] = earlier[name];
    else delete extra[name];
  }
}
