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
 * A reused warm start (--reuse-warm-start) is the earlier run's: its start (`init-from`,
 * `init-sha256`) and its warm-start flags (`warmFlags`, e.g. `pretrain-steps`) are carried from
 * that run's record, whatever this run's flags say, and a flag given with another value is said
 * to be unused.
 */
export function recordReusedStart(extra: Flags, earlier: Record<string, unknown>, given: ReadonlySet<string>, warmFlags: readonly string[]): void {
  for (const name of ['init-from', ...warmFlags]) {
    const before = typeof earlier[name] === 'string' ? earlier[name] : undefined;
    const now = extra[name];
    if (given.has(name) && now !== before) {
      const made = name === 'init-from' ? (before ? `from ${before}` : 'from random weights') : before === undefined ? `without --${name}` : `with --${name} ${before}`;
      console.error(`--${name} ${String(now)} is not used: the reused warm start was made ${made}`);
    }
  }
  for (const name of ['init-from', 'init-sha256', ...warmFlags]) {
    if (typeof earlier[name] === 'string') extra[name] = earlier[name];
    else delete extra[name];
  }
}
