import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { conditionGumbels, sampleDistinct } from './stochasticBeam';
import { ToyGrammar } from './testGrammar';
import { TransformerPolicy } from './transformer';

/** A program's log-probability from one forward pass over prompt and program: what the beams' cached rows must agree with. */
function teacherForced(policy: TransformerPolicy, prompt: number[], tokens: number[], temperature: number): number {
  const grammar = new ToyGrammar();
  const sequence = [...prompt, ...tokens];
  const logits = tf.tidy(() => policy.forward(tf.tensor2d(sequence, [1, sequence.length], 'int32'), [0]).arraySync()[0]);
  const mask = new Uint8Array(grammar.vocabSize);
  let state = grammar.initial();
  let total = 0;
  tokens.forEach((token, t) => {
    grammar.allowed(state, mask);
    const z = logits[prompt.length - 1 + t].map((value, v) => (mask[v] ? value / temperature : -Infinity));
    const max = Math.max(...z);
    total += z[token] - max - Math.log(z.reduce((sum, value) => sum + Math.exp(value - max), 0));
    state = grammar.advance(state, token);
  });
  return total;
}

beforeAll(async () => {
  await tf.setBackend('wasm');
});

// The toy grammar writes exactly 6 programs: one line (A or B) or two, then DONE.
const config = { vocabSize: 10, layers: 1, dModel: 16, heads: 2, context: 24 };
const key = (tokens: readonly number[]) => tokens.join(',');

describe('sampling without replacement (stochastic beam search)', () => {
  it('conditions children on their parent as the truncated Gumbel says: -log(e^-parent - e^-max + e^-g)', () => {
    const drawn = [-0.3, 1.7, 0.4, -2];
    const g = conditionGumbels(0.9, drawn);
    expect(Math.max(...g)).toBeCloseTo(0.9, 12);
    g.forEach((value, i) => expect(value).toBeCloseTo(-Math.log(Math.exp(-0.9) - Math.exp(-1.7) + Math.exp(-drawn[i])), 12));
    // Stable far from the parent, where the plain formula loses every digit.
    const far = conditionGumbels(-40, [-1, 3, -60]);
    expect(far[1]).toBe(-40);
    expect(far[2]).toBeCloseTo(-60, 6);
    expect(far.every(Number.isFinite)).toBe(true);
  });

  it('returns every program once when k exceeds them, with log-probabilities that sum to one', async () => {
    const policy = new TransformerPolicy(config, 3);
    const tensors = tf.memory().numTensors;
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
    expect(tf.memory().numTensors).toBe(tensors);
    const again = await sampleDistinct(policy, new ToyGrammar(), [[1, 6]], { k: 10, maxTokens: 8, temperature: 1, rng: new Rng(1) });
    expect(again[0].map((s) => key(s.tokens))).toEqual(all.map((s) => key(s.tokens)));
    policy.dispose();
  });

  it.each([
    ['plain', {}, [[1, 6], [1, 7, 8, 9, 6, 7], [1, 9, 9], [1, 8]]],
    // A and B (tokens 2, 3) as the numbers 0 and 1, 9 ending a prompt of them: each beam's pointer and runs travel with its cache row.
    ['the copy pointer resumed, and run lengths', { copyPointer: { first: 2, count: 2, end: 9, resume: true }, runLengths: { first: 2, count: 2 } }, [[1, 2, 9], [1, 3, 2, 3, 2, 9, 6], [1, 2, 2, 9], [1, 9]]],
  ])('keeps each beam on its own cache row: prompts of several lengths in one batch, parents kept twice (%s)', async (_name, inputs, prompts) => {
    const policy = new TransformerPolicy({ ...config, layers: 2, ...inputs }, 5);
    for (const k of [3, 10]) {
      const drawn = await sampleDistinct(policy, new ToyGrammar(), prompts, { k, maxTokens: 8, temperature: 1.7, rng: new Rng(k) });
      expect(drawn.map((list) => list.length)).toEqual(prompts.map(() => Math.min(k, 6)));
      drawn.forEach((list, p) => list.forEach((sample) => expect(sample.logProb).toBeCloseTo(teacherForced(policy, prompts[p], sample.tokens, 1.7), 4)));
    }
    // The check can tell prompts apart: the same program under another prompt has another probability.
    const [[first]] = await sampleDistinct(policy, new ToyGrammar(), [prompts[0]], { k: 1, maxTokens: 8, temperature: 1.7, rng: new Rng(1) });
    expect(Math.abs(teacherForced(policy, prompts[1], first.tokens, 1.7) - first.logProb)).toBeGreaterThan(1e-3);
    policy.dispose();
  });

  it('draws the first program from the policy and the second from what is left', async () => {
    const policy = new TransformerPolicy(config, 3);
    const grammar = new ToyGrammar();
    // A cold temperature makes the toy policy peaked, where a wrong conditioning (children shifted
    // so that their largest is the parent's, without the truncation) draws the second program
    // measurably off (z about 7 at this n).
    const temperature = 0.1;
    const [all] = await sampleDistinct(policy, grammar, [[1, 6]], { k: 10, maxTokens: 8, temperature, rng: new Rng(1) });
    const p = new Map(all.map((s) => [key(s.tokens), Math.exp(s.logProb)]));
    // Many copies of one prompt in one batch: each keeps its own two beams.
    const n = 8000;
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
        const sigma = Math.sqrt(n * expected * (1 - expected));
        expect(Math.abs((counts.get(program) ?? 0) - n * expected), `${program}: ${counts.get(program)} of ${n}, expected ${n * expected}`).toBeLessThan(Math.max(4.5 * sigma, 3));
      }
    }
    policy.dispose();
  });
});
