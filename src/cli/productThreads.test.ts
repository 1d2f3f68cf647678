import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProductThreads, type ProductThreads } from '../core/model/productThreads';
import { installWasmBatchMatMul, setProductThreads } from '../core/model/wasmBatchMatMul';
import { Rng } from '../core/rng';
import { startNodeProductThreads } from './productThreads';

const rng = new Rng(3);
const random = (shape: number[]) => tf.tensor(Float32Array.from({ length: shape.reduce((p, v) => p * v, 1) }, () => rng.next() * 2 - 1), shape);

let threads: ProductThreads;

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  installWasmBatchMatMul();
  threads = await startNodeProductThreads({ minMacs: 4096 });
});

afterAll(async () => {
  setProductThreads(null);
  await threads.close();
});

describe('products split with a helper thread', () => {
  // Each output element is the same kernel's dot product in the same order whichever thread
  // computes it, so split products equal unsplit ones bit for bit.
  it.each([
    [[128, 63, 32], [128, 63, 32], false, true], // attention's scores: split by batch entry
    [[3, 37, 20], [3, 20, 11], false, false], // an odd batch
    [[203, 96], [96, 70], false, false], // rows
    [[96, 203], [96, 70], true, false], // rows of a transposed A (a weight gradient)
    [[203, 96], [70, 96], false, true],
    [[96, 203], [70, 96], true, true],
  ] as const)('gives %j x %j (transposeA %s, transposeB %s) bit for bit as one thread does', (as, bs, ta, tb) => {
    const a = random([...as]), b = random([...bs]);
    setProductThreads(null);
    const alone = tf.matMul(a, b, ta, tb);
    setProductThreads(threads);
    const before = threads.splits;
    const split = tf.matMul(a, b, ta, tb);
    expect(threads.splits).toBe(before + 1);
    expect(split.shape).toEqual(alone.shape);
    expect(Buffer.from(split.dataSync().buffer).equals(Buffer.from(alone.dataSync().buffer))).toBe(true);
    tf.dispose([a, b, alone, split]);
  });

  it('leaves small and narrow products to one thread, and gradients match', () => {
    setProductThreads(threads);
    const before = threads.splits;
    tf.tidy(() => void tf.matMul(random([4, 8]), random([8, 4]))); // 128 multiply-adds
    tf.tidy(() => void tf.matMul(random([6, 900]), random([900, 40]))); // 6 rows
    expect(threads.splits).toBe(before);
    const x = random([64, 48]), w = random([48, 32]);
    const grads = () => tf.grads((p: tf.Tensor, q: tf.Tensor) => tf.matMul(p, q).square().sum())([x, w]).map((g) => g.dataSync());
    const split = grads();
    expect(threads.splits).toBeGreaterThan(before);
    setProductThreads(null);
    const alone = grads();
    split.forEach((g, i) => expect(Array.from(g)).toEqual(Array.from(alone[i])));
    tf.dispose([x, w]);
  });
});

describe('a helper thread that does not answer', () => {
  it('fails the product with why, after its timeout, instead of waiting for good; products then stay on one thread', async () => {
    // A "helper" that never runs runProductHelper: the caller's part is computed, the helper's never comes.
    const silent = await startProductThreads(async () => ({ close: async () => undefined }), { minMacs: 4096, helperTimeoutMs: 300 });
    const a = random([64, 48]), b = random([48, 32]);
    setProductThreads(null);
    const alone = tf.matMul(a, b);
    setProductThreads(silent);
    expect(() => tf.matMul(a, b)).toThrow(/product helper thread did not finish its part of a product in 0.3 s; products stay on one thread/);
    const after = tf.matMul(a, b);
    expect(Array.from(after.dataSync())).toEqual(Array.from(alone.dataSync()));
    expect(silent.splits).toBe(0);
    setProductThreads(null);
    await silent.close();
    tf.dispose([a, b, alone, after]);
  });
});
