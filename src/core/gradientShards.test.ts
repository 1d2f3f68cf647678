/**
 * How a batch is split between this thread and the gradient shards: every item once, no part
 * empty, and the slowest part (its items times its padded prompt and program) as small as cutting
 * the length-ordered items allows, which equal contiguous halves of a mixed batch are not.
 */
import { describe, expect, it } from 'vitest';
import { balancedParts } from './gradientShards';
import { Rng } from './rng';

const item = (prompt: number, tokens: number) => ({ prompt: Array(prompt).fill(1), tokens: Array(tokens).fill(2) });
type Item = ReturnType<typeof item>;
const padded = (items: readonly Item[], part: readonly number[]) =>
  part.length * (Math.max(...part.map((i) => items[i].prompt.length)) + Math.max(...part.map((i) => items[i].tokens.length)));
const slowest = (items: readonly Item[], parts: readonly number[][]) => Math.max(...parts.map((part) => padded(items, part)));

describe('balancedParts', () => {
  it('puts every item in exactly one part, none empty, one part per thread while there are items enough', () => {
    const rng = new Rng(1);
    for (const [n, shards] of [[0, 1], [1, 1], [2, 1], [3, 3], [7, 3], [32, 1], [33, 2]]) {
      const items = Array.from({ length: n }, () => item(rng.int(1, 40), rng.int(1, 30)));
      const parts = balancedParts(items, shards);
      expect(parts).toHaveLength(Math.min(n, shards + 1));
      expect(parts.every((part) => part.length > 0)).toBe(true);
      expect(parts.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    }
  });

  it('cuts the length-ordered items where the slowest part is least (against every cut), below equal halves of a mixed batch', () => {
    // Groups of 4 samples of one item each, as RL batches come: long and short prompts mixed.
    const rng = new Rng(3);
    const items = Array.from({ length: 8 }, () => [rng.int(5, 70), rng.int(3, 40)]).flatMap(([p, t]) => Array.from({ length: 4 }, () => item(p, Math.max(1, t + rng.int(-3, 3)))));
    const parts = balancedParts(items, 1);
    const order = items.map((_, i) => i).sort((a, b) => items[a].prompt.length + items[a].tokens.length - (items[b].prompt.length + items[b].tokens.length) || a - b);
    const everyCut = Math.min(...Array.from({ length: items.length - 1 }, (_, c) => slowest(items, [order.slice(0, c + 1), order.slice(c + 1)])));
    expect(slowest(items, parts)).toBe(everyCut);
    const halves = [Array.from({ length: 16 }, (_, i) => i), Array.from({ length: 16 }, (_, i) => 16 + i)];
    expect(slowest(items, parts)).toBeLessThan(slowest(items, halves));
  });

  it('splits items of one length into equal parts, as before', () => {
    const items = Array.from({ length: 32 }, () => item(1, 63));
    expect(balancedParts(items, 1).map((part) => part.length)).toEqual([16, 16]);
    expect(balancedParts(items, 3).map((part) => part.length)).toEqual([8, 8, 8, 8]);
  });
});
