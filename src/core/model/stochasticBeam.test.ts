import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { conditionGumbels, sampleDistinct } from './stochasticBeam';
import { ToyGrammar } from './testGrammar';
import { TransformerPolicy } from './transformer';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

// The toy grammar writes exactly 6 programs: one line (A or B) or two, then DONE.
const config = { vocabSize: 10, layers: 1, dModel: 16, heads: 2, context: 24 };
const key = (tokens: readonly number[]) => tokens.join(',');

describe('sampling without replacement (stochastic beam search)', () => {
  it('conditions children so that their largest value is the parent\'s, keeping their order', () => {
    const drawn = [-0.3, 1.7, 0.4, -2];
    const g = conditionGumbels(0.9, drawn);
    expect(Math.max(...g)).toBeCloseTo(0.9, 12);
    expect([...g].sort((a, b) => b - a)).toEqual([g[1], g[2], g[0], g[3]]);
    g.forEach((value) => expect(value).toBeLessThanOrEqual(0.9 + 1e-12));
  });

  it('returns every program once when k exceeds them, with log-probabilities that sum to one', async () => {
    const policy = new TransformerPolicy(config, 3);
    const [all] = await sampleDistinct(policy, new ToyGrammar(), [[1, 6]], { k: 10, maxTokens: 8, temperature: 1, rng: new Rng(1) });
    expect(all).toHaveLength(6);
    expect(new Set(all.map((s) => key(s.tokens))).size).toBe(6);
    for (const sample of all) {
      expect(sample.complete).toBe(true);
      expect(sample.logProb).toBeCloseTo(sample.logProbs.reduce((a, b) => a + b, 0), 6);
    }
    expect(all.reduce((sum, s) => sum + Math.exp(s.logProb), 0)).toBeCloseTo(1, 5);
    // Drawn order: perturbed values fall.
    all.slice(1).forEach((s, i) => expect(s.perturbed).toBeLessThanOrEqual(all[i].perturbed));
    const again = await sampleDistinct(policy, new ToyGrammar(), [[1, 6]], { k: 10, maxTokens: 8, temperature: 1, rng: new Rng(1) });
    expect(again[0].map((s) => key(s.tokens))).toEqual(all.map((s) => key(s.tokens)));
    policy.dispose();
  });

  it('draws the first program from the policy and the second from what is left', async () => {
    const policy = new TransformerPolicy(config, 3);
    const grammar = new ToyGrammar();
    // Temperature 3 flattens the toy policy so that every program is drawn often enough to count.
    const temperature = 3;
    const [all] = await sampleDistinct(policy, grammar, [[1, 6]], { k: 10, maxTokens: 8, temperature, rng: new Rng(1) });
    const p = new Map(all.map((s) => [key(s.tokens), Math.exp(s.logProb)]));
    // Many copies of one prompt in one batch: each keeps its own two beams.
    const n = 1500;
    const draws = await sampleDistinct(policy, grammar, Array.from({ length: n }, () => [1, 6]), { k: 2, maxTokens: 8, temperature, rng: new Rng(7) });
    const first = new Map<string, number>();
    const second = new Map<string, number>();
    for (const [a, b] of draws) {
      expect(key(a.tokens)).not.toBe(key(b.tokens));
      first.set(key(a.tokens), (first.get(key(a.tokens)) ?? 0) + 1);
      second.set(key(b.tokens), (second.get(key(b.tokens)) ?? 0) + 1);
    }
    for (const [program, pj] of p) {
      // Without replacement, P(second = j) = sum over i != j of p_i p_j / (1 - p_i).
      const pSecond = [...p].reduce((sum, [other, pi]) => (other === program ? sum : sum + (pi * pj) / (1 - pi)), 0);
      for (const [counts, expected] of [[first, pj], [second, pSecond]] as const) {
        const sigma = Math.sqrt((n * expected * (1 - expected)));
        expect(Math.abs((counts.get(program) ?? 0) - n * expected), `${program}: ${counts.get(program)} of ${n}, expected ${n * expected}`).toBeLessThan(4.5 * sigma);
      }
    }
    policy.dispose();
  });
});
