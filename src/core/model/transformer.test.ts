import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { KolmogorovGrammar, encodePrompt, tokensToProgram, vocabSize } from '../kolmogorov/grammar';
import { parseProgram, printProgram } from '../kolmogorov/program';
import { Rng } from '../rng';
import { pickToken, runnersUp, sampleBatch } from './sampler';
import { ToyGrammar } from './testGrammar';
import { TransformerPolicy } from './transformer';
import { movedCode } from './numberCode';
import { scheduledRate } from './schedule';
import { wasmBatchMatMulStatus } from './wasmBatchMatMul';
import { wasmElementwiseStatus } from './wasmElementwise';
import { installWasmKernels } from './wasmKernels';

// As the CLI and the page run it: on wasm with our kernels (products, GELU, LayerNorm, copies).
beforeAll(async () => {
  await tf.setBackend('wasm');
  installWasmKernels();
  expect(wasmBatchMatMulStatus().active && wasmElementwiseStatus().active).toBe(true);
});

const tiny = { vocabSize: 12, layers: 2, dModel: 16, heads: 2, context: 24 };

describe('transformer policy', () => {
  it.each([
    ['plain', {}],
    ['previous-token embedding', { previousToken: true }],
    ['value differences', { previousToken: true, valueDeltas: { first: 2, count: 8, max: 2 } }],
    ['the token two back, with number codes', { previousToken: true, secondPrevious: true, numberTokens: { first: 2, count: 8 }, valueDeltas: { first: 2, count: 8, max: 2 } }],
    ['run lengths at strides 1 and 2', { previousToken: true, numberTokens: { first: 2, count: 8 }, runLengths: { first: 2, count: 8, strides: 2 } }],
    // Token 10 ends the prompt: in decoding for the first row, in the prefill for the second; values repeat, so matches tie and then part.
    ['the copy pointer, with run lengths', { previousToken: true, numberTokens: { first: 2, count: 8 }, runLengths: { first: 2, count: 8 }, copyPointer: { first: 2, count: 8, end: 10 } }, [[5, 6, 5, 7, 10, 5, 6], [0, 0, 4, 10, 4, 4, 11]]],
    ['the copy pointer resumed across statements', { previousToken: true, numberTokens: { first: 2, count: 8 }, copyPointer: { first: 2, count: 8, end: 10, resume: true } }, [[5, 6, 5, 10, 5, 11, 6], [0, 0, 4, 10, 4, 11, 4]]],
  ])('gives KV-cache logits equal to full-forward logits, with left padding (%s)', (_name, inputs, given?: number[][]) => {
    const policy = new TransformerPolicy({ ...tiny, ...inputs }, 1);
    const rows = given ?? [
      [1, 5, 6, 7, 3, 4, 2],
      [0, 0, 1, 9, 2, 8, 3], // starts at 2
    ];
    const starts = [0, 2];
    const full = policy.forward(tf.tensor2d(rows, [2, 7], 'int32'), starts).arraySync();
    const prefix = 4;
    const { cache, logits: first } = policy.prefill(tf.tensor2d(rows.map((r) => r.slice(0, prefix)), [2, prefix], 'int32'), starts);
    const stepLogits = [first.arraySync()];
    for (let t = prefix; t < 7; t++) stepLogits.push(policy.decodeStep(cache, tf.tensor1d(rows.map((r) => r[t]), 'int32')).arraySync());
    policy.disposeCache(cache);
    stepLogits.forEach((logits, i) => {
      for (let b = 0; b < 2; b++) {
        full[b][prefix - 1 + i].forEach((value, v) => expect(logits[b][v]).toBeCloseTo(value, 4));
      }
    });
    policy.dispose();
  });

  it.each([
    ['none', {}],
    ['previous-token embedding', { previousToken: true }],
    // Padding is token 0, not a number: a row's runs and its token two back start with its own first token.
    ['the token two back and runs at strides 1 and 2', { previousToken: true, secondPrevious: true, numberTokens: { first: 2, count: 8 }, runLengths: { first: 2, count: 8, strides: 2 } }],
    // Token 10 ends the prompt 9 2; the program copies it, then a token that is not a number reads the pointer resumed.
    ['the copy pointer, resumed', { previousToken: true, numberTokens: { first: 2, count: 8 }, copyPointer: { first: 2, count: 8, end: 10, resume: true } }],
  ])('computes a padded row exactly as the same row alone (%s)', (_name, inputs) => {
    const policy = new TransformerPolicy({ ...tiny, ...inputs }, 2);
    const row = 'copyPointer' in inputs ? [9, 2, 10, 9, 2, 11] : [1, 9, 2, 8, 3];
    const alone = policy.forward(tf.tensor2d([row], [1, row.length], 'int32')).arraySync()[0];
    const padded = policy.forward(tf.tensor2d([[0, 0, ...row], [1, 2, 3, 4, 5, 6, 7, 8].slice(0, row.length + 2)], [2, row.length + 2], 'int32'), [2, 0]).arraySync()[0];
    alone.forEach((row, t) => row.forEach((value, v) => expect(padded[t + 2][v]).toBeCloseTo(value, 4)));
    policy.dispose();
  });

  it('with secondPrevious, adds the token two back: its table zeroed, the policy is the one without it; a one-token prompt decodes as the full forward', () => {
    const policy = new TransformerPolicy({ ...tiny, previousToken: true, secondPrevious: true }, 4);
    const plain = new TransformerPolicy({ ...tiny, previousToken: true }, 5);
    const rows = tf.tensor2d([[1, 5, 6, 7, 3], [1, 8, 6, 7, 3]], [2, 5], 'int32');
    const shared = policy.getWeights().filter((w) => w.name !== 'prev2');
    plain.setWeights(shared);
    const withTable = policy.forward(rows).arraySync();
    const without = plain.forward(rows).arraySync();
    expect(Math.max(...withTable.flat(2).map((value, i) => Math.abs(value - without.flat(2)[i])))).toBeGreaterThan(1e-3);
    const prev2 = policy.getWeights().find((w) => w.name === 'prev2')!;
    policy.setWeights([...shared, { ...prev2, data: new Float32Array(prev2.data.length) }]);
    const zeroed = policy.forward(rows).arraySync();
    zeroed.flat(2).forEach((value, i) => expect(value).toBeCloseTo(without.flat(2)[i], 5));
    policy.setWeights([...shared, prev2]);
    const { cache, logits: first } = policy.prefill(tf.tensor2d([[1]], [1, 1], 'int32'), [0]);
    const steps = [first.arraySync()[0], ...[5, 6, 7].map((token) => policy.decodeStep(cache, tf.tensor1d([token], 'int32')).arraySync()[0])];
    policy.disposeCache(cache);
    steps.forEach((row, t) => row.forEach((value, v) => expect(value).toBeCloseTo(withTable[0][t][v], 4)));
    expect(() => new TransformerPolicy({ ...tiny, secondPrevious: true }, 4)).toThrow(/secondPrevious needs previousToken/);
    policy.dispose();
    plain.dispose();
  });

  it('moves the number code to directions of its own for each previous token: a signed permutation, nearly orthogonal to the code', () => {
    const d = 64;
    const code = new Float32Array(d * 3).map((_, i) => Math.sin(i * 0.7 + 1) * 0.03);
    const [one, two] = [1, 2].map((seed) => movedCode(code, 3, d, seed));
    const sorted = (values: Float32Array) => [...values].map(Math.abs).sort((a, b) => a - b);
    for (const moved of [one, two]) expect(sorted(moved)).toEqual(sorted(code)); // the same values, moved and signed
    const dot = (a: Float32Array, b: Float32Array, row: number) => a.slice(row * d, row * d + d).reduce((sum, value, i) => sum + value * b[row * d + i], 0);
    for (let row = 0; row < 3; row++) {
      const norm = dot(code, code, row);
      for (const [a, b] of [[code, one], [code, two], [one, two]]) expect(Math.abs(dot(a, b, row))).toBeLessThan(0.35 * norm);
    }
    expect(movedCode(code, 3, d, 1)).toEqual(one); // fixed: a checkpoint means the same thing everywhere
  });

  it('embeds the clipped difference of consecutive numbers, and nothing where either token is not a number', () => {
    // Numbers are tokens 2..9 (0..7); differences clip to -3..3 (rows 0..6); row 7 is "not two numbers".
    const policy = new TransformerPolicy({ ...tiny, valueDeltas: { first: 2, count: 8, max: 2 } }, 3);
    const tokens = tf.tensor2d([[3, 4, 4, 9, 2, 11]], [1, 6], 'int32'); // PAD->3 none, +1, 0, +5 -> +3, -7 -> -3, 2->11 none
    const delta = policy.variables.find((v) => v.name.endsWith('/delta'))!;
    const { grads } = tf.variableGrads(() => policy.forward(tokens).square().sum() as tf.Scalar, [delta]);
    const rows = grads[delta.name].abs().sum(1).arraySync() as number[];
    expect(rows.map((g) => g > 0)).toEqual([true, false, false, true, true, false, true, true]);
    policy.dispose();
  });

  it("runs attention's batched products on the wasm SIMD kernel", () => {
    const policy = new TransformerPolicy(tiny, 5);
    const before = wasmBatchMatMulStatus().calls;
    tf.tidy(() => void policy.forward(tf.tensor2d([[1, 9, 2, 8, 3]], [1, 5], 'int32')));
    expect(wasmBatchMatMulStatus().calls).toBeGreaterThanOrEqual(before + 2 * tiny.layers); // scores and values per layer
    policy.dispose();
  });

  it('gives the same loss and gradients on wasm with our kernels as on the cpu backend with plain tfjs ops', async () => {
    const policy = new TransformerPolicy({ ...tiny, previousToken: true }, 6);
    const tokens = tf.tensor2d([[0, 0, 1, 9, 2, 8, 3], [1, 2, 3, 4, 5, 6, 7]], [2, 7], 'int32');
    const weights = tf.randomNormal([2, 7, tiny.vocabSize], 0, 1, 'float32', 7);
    const lossAndGrads = () => {
      const { value, grads } = tf.variableGrads(() => policy.forward(tokens, [2, 0]).mul(weights).sum() as tf.Scalar, policy.variables);
      return { loss: value.dataSync()[0], grads: policy.variables.map((v) => grads[v.name].dataSync()) };
    };
    const counts = [wasmBatchMatMulStatus().calls, wasmElementwiseStatus().calls];
    const fast = lossAndGrads();
    expect(wasmBatchMatMulStatus().calls).toBeGreaterThan(counts[0]);
    expect(wasmElementwiseStatus().calls).toBeGreaterThan(counts[1]);
    await tf.setBackend('cpu');
    try {
      const plain = lossAndGrads();
      expect(fast.loss).toBeCloseTo(plain.loss, 3);
      plain.grads.forEach((grad, i) => {
        const scale = Math.max(1e-3, ...grad.map(Math.abs));
        grad.forEach((value, j) => expect(Math.abs(fast.grads[i][j] - value) / scale, `${policy.variables[i].name}[${j}]`).toBeLessThan(1e-4));
      });
    } finally {
      await tf.setBackend('wasm');
    }
    tf.dispose([tokens, weights]);
    policy.dispose();
  });

  it('round-trips its weights bit-exactly and refuses mismatched ones', () => {
    const a = new TransformerPolicy(tiny, 3);
    const b = new TransformerPolicy(tiny, 4);
    b.setWeights(a.getWeights());
    a.getWeights().forEach((w, i) => expect(new Uint8Array(b.getWeights()[i].data.buffer)).toEqual(new Uint8Array(w.data.buffer)));
    const wrong = a.getWeights().map((w) => (w.name === 'head/b' ? { ...w, shape: [w.shape[0] + 1], data: new Float32Array(w.data.length + 1) } : w));
    expect(() => b.setWeights(wrong)).toThrow(/head\/b has shape/);
    // A tensor of another type or length is refused before anything is written: the model is left as it was.
    const before = b.getWeights();
    const int32 = a.getWeights().map((w, i) => (i === 3 ? { ...w, data: new Int32Array(w.data.length) as unknown as Float32Array } : w));
    expect(() => b.setWeights(int32)).toThrow(/is not float32/);
    const short = a.getWeights().map((w, i) => (i === 3 ? { ...w, data: w.data.subarray(1) } : w));
    expect(() => b.setWeights(short)).toThrow(/values, its shape/);
    b.getWeights().forEach((w, i) => expect(w.data).toEqual(before[i].data));
    a.dispose();
    b.dispose();
  });

  it('starts from the same weights for the same seed, 0 included (tfjs reads a seed of 0 as none)', () => {
    for (const seed of [0, 1]) {
      const [a, b] = [new TransformerPolicy(tiny, seed), new TransformerPolicy(tiny, seed)];
      a.getWeights().forEach((w, i) => expect(b.getWeights()[i].data, `${seed} ${w.name}`).toEqual(w.data));
      a.dispose();
      b.dispose();
    }
  });
});

describe('constrained sampling', () => {
  it('refuses a NaN score among the allowed tokens rather than draw the argmax with a NaN log-probability', () => {
    const mask = new Uint8Array([1, 1, 1, 1]);
    const rng = new Rng(1);
    expect(() => pickToken(new Float32Array([NaN, 1, 2, 0.5]), 0, mask, 1, false, rng)).toThrow(/score of a token the grammar allows here is not finite/);
    expect(() => pickToken(new Float32Array([NaN, 1, 2, 0.5]), 0, mask, 1, true, rng)).toThrow(/NaN/);
    // A NaN where the grammar forbids the token is no matter.
    const [token, logProb] = pickToken(new Float32Array([NaN, 1, 2, 0.5]), 0, new Uint8Array([0, 1, 1, 1]), 1, true, rng);
    expect(token).toBe(2);
    expect(Number.isFinite(logProb)).toBe(true);
  });

  it('respects the grammar, is reproducible from the seed, and greedy is deterministic', async () => {
    const policy = new TransformerPolicy({ ...tiny, vocabSize: 10 }, 5);
    const grammar = new ToyGrammar();
    const prompts = [[1, 6], [1, 7, 8], [1]];
    const a = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, rng: new Rng(9) });
    const b = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, rng: new Rng(9) });
    expect(a).toEqual(b);
    for (const sample of a) {
      expect(sample.complete).toBe(true);
      expect(sample.tokens.at(-1)).toBe(5);
      expect(sample.logProbs.every((lp) => lp <= 0 && Number.isFinite(lp))).toBe(true);
    }
    const g1 = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, rng: new Rng(1), greedy: true });
    const g2 = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, rng: new Rng(2), greedy: true });
    expect(g1.map((s) => s.tokens)).toEqual(g2.map((s) => s.tokens));
    // Greedy for every row draws nothing, so it needs no rng; sampling without one is refused.
    const noRng = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, greedy: true });
    expect(noRng.map((s) => s.tokens)).toEqual(g1.map((s) => s.tokens));
    await expect(sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, greedy: [true, false, true] } as never)).rejects.toThrow(/needs an rng/);
    // Per-row greedy: the greedy rows write the all-greedy programs whatever the seed.
    const mixed = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, rng: new Rng(3), greedy: [true, false, true] });
    expect([mixed[0].tokens, mixed[2].tokens]).toEqual([g1[0].tokens, g1[2].tokens]);
    // Runner-ups: per token, the next most likely allowed tokens, best first, never the token itself.
    const withAlternatives = await sampleBatch(policy, grammar, prompts, { maxTokens: 8, temperature: 1, rng: new Rng(1), greedy: true, alternatives: 2 });
    expect(withAlternatives.map((s) => s.tokens)).toEqual(g1.map((s) => s.tokens));
    for (const sample of withAlternatives) {
      expect(sample.alternatives).toHaveLength(sample.tokens.length);
      sample.alternatives!.forEach((others, i) => expect(others).not.toContain(sample.tokens[i]));
    }
    policy.dispose();
  });

  it('ranks runner-ups by logit among the allowed tokens', () => {
    const logits = new Float32Array([0.5, 3, -1, 2, 9, 1]);
    const mask = new Uint8Array([1, 1, 1, 1, 0, 1]);
    expect(runnersUp(logits, 0, mask, 1, 3)).toEqual([3, 5, 0]);
    expect(runnersUp(logits, 0, mask, 3, 10)).toEqual([1, 5, 0, 2]);
    expect(runnersUp(logits, 0, mask, 1, 0)).toEqual([]);
  });

  it('decodes each row as it would alone when rows finish early and leave the batch', async () => {
    // With this seed, 5 of the 8 greedy programs end after one line and 3 after two.
    const policy = new TransformerPolicy({ vocabSize: 10, layers: 1, dModel: 16, heads: 2, context: 32 }, 2);
    const prompts = [[1, 6], [1, 7], [1, 8], [1, 9], [1, 6, 7], [1, 8, 9], [1, 9, 6], [1, 7, 7]];
    const compact = vi.spyOn(policy, 'compactCache');
    const batched = await sampleBatch(policy, new ToyGrammar(), prompts, { maxTokens: 8, temperature: 1, greedy: true, alternatives: 1 });
    expect(batched.map((sample) => sample.tokens.length)).toEqual([3, 3, 3, 3, 5, 5, 5, 3]);
    expect(compact).toHaveBeenCalledWith(expect.anything(), [4, 5, 6]);
    compact.mockClear();
    for (const [b, prompt] of prompts.entries()) {
      const [alone] = await sampleBatch(policy, new ToyGrammar(), [prompt], { maxTokens: 8, temperature: 1, greedy: true, alternatives: 1 });
      expect(batched[b].tokens).toEqual(alone.tokens);
      expect(batched[b].alternatives).toEqual(alone.alternatives);
      batched[b].logProbs.forEach((logProb, i) => expect(logProb).toBeCloseTo(alone.logProbs[i], 5));
    }
    expect(compact).not.toHaveBeenCalled();
    policy.dispose();
  });

  it('makes an untrained Kolmogorov policy write only programs that parse', async () => {
    const policy = new TransformerPolicy({ vocabSize, layers: 1, dModel: 16, heads: 2, context: 160 }, 6);
    const prompts = [[3, 4, 5, 6, 7], [9, 9, 9, 9], [1, 200, 3, 40, 5, 6, 7, 8]].map((s) => encodePrompt(s, 64));
    let complete = 0;
    for (let round = 0; round < 3; round++) {
      const samples = await sampleBatch(policy, new KolmogorovGrammar(), prompts, { maxTokens: 120, temperature: 1, rng: new Rng(round) });
      for (const sample of samples) {
        if (!sample.complete) continue;
        complete += 1;
        const text = printProgram(tokensToProgram(sample.tokens));
        expect(printProgram(parseProgram(text))).toBe(text);
      }
    }
    expect(complete).toBeGreaterThan(0);
    policy.dispose();
  });
});

describe('learning-rate schedule', () => {
  it('warms the learning rate up linearly, then decays it along a cosine to a tenth', () => {
    expect(scheduledRate(1, 5, 100, 10)).toBeCloseTo(0.5);
    expect(scheduledRate(1, 10, 100, 10)).toBeCloseTo(1);
    expect(scheduledRate(1, 55, 100, 10)).toBeCloseTo(0.55);
    expect(scheduledRate(1, 100, 100, 10)).toBeCloseTo(0.1);
  });
});
