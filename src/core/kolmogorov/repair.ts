/**
 * Repair: search around the programs the policy wrote. Many wrong programs of the warm start
 * have the right lines with one literal off: a repeat count of 16 for 18, a range ending at
 * 76 for 42, a reference to the wrong line, a set_list that skipped or repeated a value. The
 * policy usually ranks the right token second or third at that position, so the programs one
 * edit away (a token swapped for one of the policy's runner-ups, a runner-up inserted, a
 * number dropped) are few and likely; the sandbox checks each.
 *
 * Programs two or three edits away are too many to try all, so the search climbs: each round
 * tries every single edit of the programs it keeps, and keeps the `beam` wrong ones whose
 * output is closest to the sequence (the longest agreeing start plus end), so a round can fix
 * one literal and the next another.
 *
 * A swap keeps the token's kind (a number for a number, a line reference for a reference),
 * so every other token keeps its place and meaning. The grammar still checks each candidate
 * when it becomes a program, and the ones it refuses are dropped (a reference to a line that
 * does not exist yet, a number where the grammar wants exactly one).
 */
import { commonPrefixLength } from './metrics';
import { REF0, isValue } from './vocab';

/**
 * The search the recipe, the page and RL demonstrations use: 8 runner-ups per token, 2 rounds,
 * the 4 closest wrong programs kept per round. Chosen on the seed-3 validation file (not the
 * held-out file): the warm start went greedy 0.174 -> 0.250 and best-of-8 0.210 -> 0.272. With
 * swaps alone, one round gave greedy 0.230, two 0.244, three 0.246 at 1.7x the time of two.
 */
export const repairSearch = { runnersUp: 8, rounds: 2, beam: 4 } as const;

const isRef = (token: number) => token >= REF0;

function sameKind(a: number, b: number): boolean {
  return (isValue(a) && isValue(b)) || (isRef(a) && isRef(b));
}

/** A program as tokens, with the policy's runner-ups at each position (best first, as the sampler records them). */
export interface Annotated {
  tokens: number[];
  alternatives: readonly (readonly number[])[];
}

/**
 * The token sequences one swap away from `tokens`: at each position, each runner-up of the
 * same kind, in order of position then rank. `alternatives[i]` are position i's runner-ups.
 */
export function oneSwapAway(tokens: readonly number[], alternatives: readonly (readonly number[])[]): number[][] {
  const out: number[][] = [];
  tokens.forEach((token, i) => {
    for (const other of alternatives[i] ?? []) {
      if (!sameKind(token, other)) continue;
      const swapped = tokens.slice();
      swapped[i] = other;
      out.push(swapped);
    }
  });
  return out;
}

/**
 * One edit away: every swap (oneSwapAway), then every number dropped, then every runner-up
 * number inserted before a number. Dropping or inserting a number changes a list's length (a
 * set_list that skipped or repeated a value); where the grammar wants exactly one number the
 * candidate fails to parse and is skipped by the caller. The runner-ups move with their tokens.
 */
export function oneEditAway({ tokens, alternatives }: Annotated): Annotated[] {
  const out: Annotated[] = oneSwapAway(tokens, alternatives).map((swapped) => ({ tokens: swapped, alternatives }));
  tokens.forEach((token, i) => {
    if (!isValue(token)) return;
    out.push({ tokens: [...tokens.slice(0, i), ...tokens.slice(i + 1)], alternatives: [...alternatives.slice(0, i), ...alternatives.slice(i + 1)] });
  });
  tokens.forEach((token, i) => {
    if (!isValue(token)) return;
    for (const other of alternatives[i] ?? []) {
      if (!isValue(other)) continue;
      out.push({ tokens: [...tokens.slice(0, i), other, ...tokens.slice(i)], alternatives: [...alternatives.slice(0, i), [], ...alternatives.slice(i)] });
    }
  });
  return out;
}

/**
 * How much of `target` an output already reproduces: the length of the common prefix plus
 * that of the common suffix, at most the target's length. Fixing a count in the first line of
 * a concatenation raises the prefix; fixing one in the last raises the suffix.
 */
export function closeness(output: readonly number[] | null | undefined, target: readonly number[]): number {
  if (!output) return -1;
  const n = Math.min(output.length, target.length);
  let suffix = 0;
  while (suffix < n && output[output.length - 1 - suffix] === target[target.length - 1 - suffix]) suffix++;
  return Math.min(target.length, commonPrefixLength(output, target) + suffix);
}
