/**
 * Adam's update on the fused wasm kernel (PrlAdam, elementwiseKernel.wat) and from tfjs ops (any
 * other backend), both against Adam in float64; the kernel's n % 4 tail included, in both the
 * fused multiply-add and the plain SIMD build, with the tensor count flat.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { Adam } from './adam';
import { installWasmElementwise, wasmElementwiseStatus } from './wasmElementwise';
import { relaxedSimdSupported, setFusedMultiplyAdd } from './wasmKernelModule';

const sizes = [1, 3, 4, 5, 17, 1000];
const steps = 6;
const config = { learningRate: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };

/** The variables' start values and each step's gradients and clipping scale, drawn once. */
function problem(seed: number) {
  const rng = new Rng(seed);
  const draw = (n: number, scale: number) => Array.from({ length: n }, () => scale * (2 * rng.next() - 1));
  return {
    start: sizes.map((n) => draw(n, 1)),
    grads: Array.from({ length: steps }, () => sizes.map((n) => draw(n, 3))),
    scales: Array.from({ length: steps }, (_, t) => (t % 2 ? 0.37 : 1)),
  };
}

/** Adam in float64, as adam.ts defines it. */
function reference({ start, grads, scales }: ReturnType<typeof problem>): number[][] {
  const w = start.map((values) => [...values]);
  const m = start.map((values) => values.map(() => 0));
  const v = start.map((values) => values.map(() => 0));
  grads.forEach((step, t) => {
    const c1 = 1 - config.beta1 ** (t + 1), c2 = 1 - config.beta2 ** (t + 1);
    step.forEach((g, i) => g.forEach((raw, j) => {
      const gj = raw * scales[t];
      m[i][j] = config.beta1 * m[i][j] + (1 - config.beta1) * gj;
      v[i][j] = config.beta2 * v[i][j] + (1 - config.beta2) * gj * gj;
      w[i][j] -= (config.learningRate / c1) * m[i][j] / (Math.sqrt(v[i][j] / c2) + config.epsilon);
    }));
  });
  return w;
}

/** Runs the steps with the backend's Adam; returns the weights, the fused kernel calls made, and the tensors left over. */
function run(p: ReturnType<typeof problem>): { weights: number[][]; calls: number; leaked: number } {
  const variables = p.start.map((values) => tf.variable(tf.tensor1d(values)));
  const adam = new Adam(variables, config);
  const before = tf.memory().numTensors;
  const calls = wasmElementwiseStatus().calls;
  p.grads.forEach((step, t) => {
    const grads = step.map((g) => tf.tensor1d(g));
    adam.apply(grads, p.scales[t]);
    tf.dispose(grads);
  });
  const result = { weights: variables.map((variable) => Array.from(variable.dataSync())), calls: wasmElementwiseStatus().calls - calls, leaked: tf.memory().numTensors - before };
  adam.dispose();
  tf.dispose(variables);
  return result;
}

function worst(actual: number[][], expected: number[][]): number {
  return Math.max(...actual.flatMap((values, i) => values.map((x, j) => Math.abs(x - expected[i][j]))));
}

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  installWasmElementwise();
});
afterAll(() => setFusedMultiplyAdd(true));

describe('Adam', () => {
  it.each(['fma', 'simd'] as const)('on wasm, one fused kernel per variable and step (%s build), within float32 rounding of Adam in float64', (build) => {
    if (build === 'fma' && !relaxedSimdSupported()) return void console.log('fma build not checked: this engine has no relaxed SIMD');
    setFusedMultiplyAdd(build === 'fma');
    const p = problem(7);
    const { weights, calls, leaked } = run(p);
    expect(calls).toBe(sizes.length * steps);
    expect(leaked).toBe(0);
    // Weights near 1 after 6 steps of at most lr each: a few float32 ulps (1.2e-7) of rounding.
    expect(worst(weights, reference(p))).toBeLessThan(1e-6);
  });

  it('from tfjs ops on the cpu backend, the same update within float32 rounding', async () => {
    await tf.setBackend('cpu');
    try {
      const p = problem(7);
      const { weights, calls, leaked } = run(p);
      expect(calls).toBe(0);
      expect(leaked).toBe(0);
      expect(worst(weights, reference(p))).toBeLessThan(1e-6);
    } finally {
      await tf.setBackend('wasm');
    }
  });

  it('moves every weight: a kernel that skipped the tail or a vector would leave some where they started', () => {
    const p = problem(9);
    const { weights } = run(p);
    const expected = reference(p);
    weights.forEach((values, i) => values.forEach((x, j) => expect(Math.abs(x - p.start[i][j])).toBeGreaterThan(0.5 * Math.abs(expected[i][j] - p.start[i][j]))));
  });
});
