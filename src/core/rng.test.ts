import { describe, expect, it } from 'vitest';
import { Rng } from './rng';

describe('Rng', () => {
  it('is reproducible from a seed and from a saved state', () => {
    const a = new Rng(42);
    const first = Array.from({ length: 5 }, () => a.nextUint32());
    const b = new Rng(42);
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(first);
    const saved = b.state();
    const next = b.next();
    expect(new Rng(saved).next()).toBe(next);
  });

  it('keeps int() inside its inclusive bounds and reaches both ends', () => {
    const rng = new Rng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = rng.int(2, 5);
      expect(v).toBeGreaterThanOrEqual(2);
      expect(v).toBeLessThanOrEqual(5);
      seen.add(v);
    }
    expect([...seen].sort()).toEqual([2, 3, 4, 5]);
  });
});
