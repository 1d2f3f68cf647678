/**
 * A recipe's record, `recipe.json` in its --out (the Kolmogorov and the functions recipe alike):
 * until the evaluations end it holds the warm start alone, so a later stage that fails leaves no
 * scores --ship-only could take for the new policies', and --reuse-warm-start can go on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The record of a run whose warm start is made and whose evaluations have not ended. */
export function writeWarmStartRecord(out: string, seconds: Record<string, number>, flags: Record<string, unknown>): void {
  writeFileSync(join(out, 'recipe.json'), JSON.stringify({ seconds, flags }, null, 2) + '\n');
}

/** The scores of a finished run's record; a record of the warm start alone is refused, saying why. */
export function finishedScores<S>(record: { scores?: S }, out: string): S {
  if (!record.scores) throw new Error(`--ship-only: the run in ${out} did not finish (its recipe.json records the warm start only): run it again, with --reuse-warm-start to keep that warm start`);
  return record.scores;
}
