import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedPathOf, renderKernelModule } from '../../../scripts/buildKernels';
import { Rng } from '../rng';
import { elementwiseKernel } from './elementwiseKernel.generated';
import { compositeGelu, compositeLayerNorm, gelu, installWasmElementwise, layerNorm, wasmElementwiseStatus } from './wasmElementwise';
import { relaxedSimdSupported, setFusedMultiplyAdd, type MultiplyAdd } from './wasmKernelModule';

// Both builds of the kernels (wasmKernelModule.ts) are held to the same tolerances against float64:
// the fused multiply-add build rounds each a * b + c once where the plain SIMD build rounds the
// product and then the sum, so their results differ in the last bit or two (the polynomial has 6
// such steps, LayerNorm's sums d), far inside tolerances set by the approximations themselves.
const builds: MultiplyAdd[] = ['fma', 'simd'];

const rng = new Rng(5);
const uniform = (n: number, lo: number, hi: number) => Float32Array.from({ length: n }, () => lo + (hi - lo) * rng.next());

// GELU's tanh approximation and its derivative in float64, the reference.
const c = Math.sqrt(2 / Math.PI), a = 0.044715;
const geluRef = (x: number) => 0.5 * x * (1 + Math.tanh(c * (x + a * x ** 3)));
const geluGradRef = (x: number) => {
  const t = Math.tanh(c * (x + a * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * a * x * x);
};

function worstError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  return worst;
}

/** Runs f and returns its result and how many fused kernel calls it made. */
function counting<T>(f: () => T): { result: T; calls: number } {
  const before = wasmElementwiseStatus().calls;
  const result = f();
  return { result, calls: wasmElementwiseStatus().calls - before };
}

/**
 * Warms `step` up once, then runs `body` and expects the tensor count and the backend memory
 * unchanged by it; returns the kernel calls `body` made.
 */
function callsWithFlatMemory(step: () => tf.Tensor, body: () => void): number {
  step().dispose();
  const start = tf.memory();
  const { calls } = counting(body);
  expect(tf.memory().numTensors).toBe(start.numTensors);
  expect(tf.memory().numBytes).toBe(start.numBytes);
  return calls;
}

const sizes = [0, 1, 3, 4, 5, 17, 1000];

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
});

describe('wasm fused GELU kernels', () => {
  it('are built from elementwiseKernel.wat exactly as committed (npm run build:kernels)', async () => {
    expect(await renderKernelModule('elementwiseKernel')).toBe(readFileSync(generatedPathOf('elementwiseKernel'), 'utf8'));
  });

  it('compute the composite before they are installed, refuse while wasm is not the active backend, then install once', async () => {
    const x = tf.tensor1d([-1, 0.5, 2]);
    expect(wasmElementwiseStatus().active).toBe(false);
    expect(counting(() => gelu(x).dispose()).calls).toBe(0);
    await tf.setBackend('cpu');
    expect(installWasmElementwise()).toMatchObject({ active: false, reason: expect.stringContaining('not wasm') });
    await tf.setBackend('wasm');
    expect(installWasmElementwise().active).toBe(true);
    const kernel = tf.getKernel('PrlGelu', 'wasm')!.kernelFunc;
    expect(tf.getKernel('PrlGeluGrad', 'wasm')).toBeDefined();
    expect(installWasmElementwise().active).toBe(true);
    expect(tf.getKernel('PrlGelu', 'wasm')!.kernelFunc).toBe(kernel);
    expect(counting(() => gelu(x).dispose()).calls).toBe(1);
    x.dispose();
  });

  it.each(sizes)('computes gelu of %i floats on the kernel, within 1e-6 of float64 and of the composite', (n) => {
    installWasmElementwise();
    const values = uniform(n, -8, 8);
    const x = tf.tensor2d(values, [1, n]);
    const { result: y, calls } = counting(() => gelu(x));
    expect(calls).toBe(1);
    expect(y.shape).toEqual([1, n]);
    expect(y.dtype).toBe('float32');
    const got = y.dataSync();
    expect(worstError(got, Array.from(values, geluRef))).toBeLessThan(1e-6);
    const composite = compositeGelu(x);
    expect(worstError(got, composite.dataSync())).toBeLessThan(1e-6);
    tf.dispose([x, y, composite]);
  });

  it('stays within 1e-6 of float64 (value) and 3e-7 (derivative) over a dense grid of [-20, 20]', () => {
    installWasmElementwise();
    const n = 200_001;
    const x = tf.tensor1d(Float32Array.from({ length: n }, (_, i) => -20 + (40 * i) / (n - 1)));
    const xs = x.dataSync();
    const [y, dx] = tf.tidy(() => [gelu(x), tf.grad((v: tf.Tensor) => gelu(v).sum())(x)]);
    expect(worstError(y.dataSync(), Array.from(xs, geluRef))).toBeLessThan(1e-6);
    expect(worstError(dx.dataSync(), Array.from(xs, geluGradRef))).toBeLessThan(3e-7);
    tf.dispose([x, y, dx]);
  });

  it('gives exact limits for large |x| and NaN for NaN, in value and gradient', () => {
    installWasmElementwise();
    const inputs = [50, -50, 10.5, -10.5, 0, NaN, 1e30, -1e30, Infinity];
    const x = tf.tensor1d(inputs);
    const y = gelu(x).dataSync();
    const dx = tf.grad((v: tf.Tensor) => gelu(v).sum())(x).dataSync();
    expect(Array.from(y)).toEqual([50, -0, 10.5, -0, 0, NaN, 1e30, -0, Infinity].map(Math.fround));
    expect(Array.from(dx)).toEqual([1, 0, 1, 0, 0.5, NaN, 1, 0, 1]);
    // The composite agrees where it is finite.
    expect(Array.from(compositeGelu(x).dataSync().slice(0, 6))).toEqual(Array.from(y.slice(0, 6)));
    x.dispose();
  });

  it.each([[[0]], [[1]], [[3]], [[5]], [[17]], [[2, 3, 7]], [[40, 25]]])('gives gradients of shape %j equal to the composite\'s (tf.grads)', (shape) => {
    installWasmElementwise();
    const n = shape.reduce((p, v) => p * v, 1);
    const x = tf.tensor(uniform(n, -6, 6), shape);
    const weights = tf.tensor(uniform(n, -1, 1), shape);
    const loss = (op: (t: tf.Tensor) => tf.Tensor) => (v: tf.Tensor) => op(v).mul(weights).sum();
    const { result: [fused], calls } = counting(() => tf.grads(loss(gelu))([x]));
    expect(calls).toBe(2); // forward and gradient
    const [composite] = tf.grads(loss(compositeGelu))([x]);
    expect(fused.shape).toEqual(shape);
    expect(worstError(fused.dataSync(), composite.dataSync())).toBeLessThan(2e-6);
    const xs = x.dataSync(), ws = weights.dataSync();
    expect(worstError(fused.dataSync(), Array.from(xs, (v, i) => ws[i] * geluGradRef(v)))).toBeLessThan(1e-6);
    tf.dispose([x, weights, fused, composite]);
  });

  it('trains through tf.variableGrads and keeps the tensor count and the backend memory flat', () => {
    installWasmElementwise();
    const w = tf.variable(tf.tensor2d(uniform(12, -1, 1), [3, 4]));
    const input = tf.tensor2d(uniform(15, -2, 2), [5, 3]);
    const step = () => tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => gelu(tf.matMul(input, w)).square().sum() as tf.Scalar, [w]);
      w.assign(w.sub(grads[w.name].mul(0.01)));
      return value;
    });
    const calls = callsWithFlatMemory(step, () => {
      for (let i = 0; i < 20; i++) step().dispose();
    });
    expect(calls).toBe(40);
    tf.dispose([w, input]);
  });

  it('computes the composite, not the kernel, for int32 inputs and on the cpu backend', async () => {
    installWasmElementwise();
    const ints = tf.tensor1d([-2, 0, 3], 'int32');
    const { result: y, calls } = counting(() => gelu(ints));
    expect(calls).toBe(0);
    expect(Array.from(y.dataSync())).toEqual(Array.from(compositeGelu(ints).dataSync()));
    await tf.setBackend('cpu');
    try {
      const x = tf.tensor1d([-1, 0.25, 3]);
      const onCpu = counting(() => gelu(x));
      expect(onCpu.calls).toBe(0);
      expect(worstError(onCpu.result.dataSync(), [-1, 0.25, 3].map(geluRef))).toBeLessThan(1e-6);
    } finally {
      await tf.setBackend('wasm');
    }
    tf.dispose([ints, y]);
  });

  it.each(builds)('computes the same values and gradients from its %s build on a shared memory (for tfjs-wasm built with threads)', (build) => {
    // The page and the CLI run tfjs-wasm unthreaded, so the shared builds are exercised here directly.
    if (build === 'fma' && !relaxedSimdSupported()) return void console.log('fma build not checked: this engine has no relaxed SIMD');
    const run = (base64: string, shared: boolean) => {
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared });
      const kernels = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(base64, 'base64')), { env: { memory } }).exports as {
        gelu(x: number, y: number, n: number): void; geluGrad(x: number, dy: number, dx: number, n: number): void;
      };
      const heap = new Float32Array(memory.buffer);
      const n = 1003;
      const [xAt, dyAt, yAt, dxAt] = [0, 1024, 2048, 3072]; // float offsets
      heap.set(Float32Array.from({ length: n }, (_, i) => -9 + (18 * i) / n), xAt);
      heap.fill(1, dyAt, dyAt + n);
      kernels.gelu(4 * xAt, 4 * yAt, n);
      kernels.geluGrad(4 * xAt, 4 * dyAt, 4 * dxAt, n);
      const xs = heap.slice(xAt, xAt + n);
      expect(worstError(heap.slice(yAt, yAt + n), Array.from(xs, geluRef))).toBeLessThan(1e-6);
      expect(worstError(heap.slice(dxAt, dxAt + n), Array.from(xs, geluGradRef))).toBeLessThan(3e-7);
      expect(heap[yAt + n]).toBe(0); // nothing written past the end
      return [heap.slice(yAt, yAt + n), heap.slice(dxAt, dxAt + n)];
    };
    expect(run(elementwiseKernel[build].shared, true)).toEqual(run(elementwiseKernel[build].plain, false));
  });

  it('keeps both builds within 1e-6 of float64 (value) and 3e-7 (derivative) through the FMA switch, a few bits apart', () => {
    installWasmElementwise();
    const n = 20_001;
    const x = tf.tensor1d(Float32Array.from({ length: n }, (_, i) => -12 + (24 * i) / (n - 1)));
    const xs = x.dataSync();
    const outputs: Float32Array[][] = [];
    try {
      for (const on of [true, false]) {
        setFusedMultiplyAdd(on);
        const [y, dx] = tf.tidy(() => [gelu(x), tf.grad((v: tf.Tensor) => gelu(v).sum())(x)]);
        expect(wasmElementwiseStatus().build).toBe(on && relaxedSimdSupported() ? 'fma' : 'simd');
        expect(worstError(y.dataSync(), Array.from(xs, geluRef))).toBeLessThan(1e-6);
        expect(worstError(dx.dataSync(), Array.from(xs, geluGradRef))).toBeLessThan(3e-7);
        outputs.push([y.dataSync() as Float32Array, dx.dataSync() as Float32Array]);
        tf.dispose([y, dx]);
      }
    } finally {
      setFusedMultiplyAdd(true);
    }
    expect(worstError(outputs[0][0], outputs[1][0])).toBeLessThan(5e-7);
    expect(worstError(outputs[0][1], outputs[1][1])).toBeLessThan(5e-7);
    x.dispose();
  });
});

/** LayerNorm over the last axis in float64: y, and the gradients of sum(y w) in x, gamma and beta. */
function layerNormRef(x: ArrayLike<number>, gamma: ArrayLike<number>, beta: ArrayLike<number>, w: ArrayLike<number>, d: number) {
  const rows = x.length / d;
  const y = new Float64Array(x.length), dx = new Float64Array(x.length);
  const dgamma = new Float64Array(d), dbeta = new Float64Array(d);
  for (let r = 0; r < rows; r++) {
    const row = Array.from({ length: d }, (_, j) => x[r * d + j]);
    const mean = row.reduce((s, v) => s + v, 0) / d;
    const rstd = 1 / Math.sqrt(row.reduce((s, v) => s + (v - mean) ** 2, 0) / d + 1e-5);
    const xhat = row.map((v) => (v - mean) * rstd);
    const g = xhat.map((_, j) => w[r * d + j] * gamma[j]);
    const meanG = g.reduce((s, v) => s + v, 0) / d;
    const meanGX = g.reduce((s, v, j) => s + v * xhat[j], 0) / d;
    for (let j = 0; j < d; j++) {
      y[r * d + j] = xhat[j] * gamma[j] + beta[j];
      dx[r * d + j] = rstd * (g[j] - meanG - xhat[j] * meanGX);
      dgamma[j] += w[r * d + j] * xhat[j];
      dbeta[j] += w[r * d + j];
    }
  }
  return { y, dx, dgamma, dbeta };
}

describe('wasm fused LayerNorm kernels', () => {
  it.each([[[1, 1]], [[3, 4]], [[2, 5]], [[4, 3, 7]], [[2, 63, 128]], [[0, 8]], [[5, 131]]])('compute LayerNorm of shape %j and its gradients on the kernels, equal to float64 and to the composite', (shape) => {
    installWasmElementwise();
    const d = shape[shape.length - 1], n = shape.reduce((p, v) => p * v, 1);
    // Rows with an offset and a scale, so that the mean and the variance matter.
    const x = tf.tensor(Float32Array.from({ length: n }, (_, i) => (Math.floor(i / d) % 5) - 2 + (1 + (i % 3)) * (rng.next() - 0.5)), shape);
    const gamma = tf.tensor1d(uniform(d, 0.5, 1.5)), beta = tf.tensor1d(uniform(d, -1, 1));
    const w = tf.tensor(uniform(n, -1, 1), shape);
    const loss = (op: typeof layerNorm) => (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) => op(a, b, c).mul(w).sum();
    const { result: y, calls: forwardCalls } = counting(() => layerNorm(x, gamma, beta));
    expect(forwardCalls).toBe(1);
    const { result: grads, calls } = counting(() => tf.grads(loss(layerNorm))([x, gamma, beta]));
    expect(calls).toBe(2); // forward and gradient
    const ref = layerNormRef(x.dataSync(), gamma.dataSync(), beta.dataSync(), w.dataSync(), d);
    expect(y.shape).toEqual(shape);
    expect(grads.map((g) => g.shape)).toEqual([shape, [d], [d]]);
    expect(worstError(y.dataSync(), ref.y)).toBeLessThan(5e-6);
    expect(worstError(grads[0].dataSync(), ref.dx)).toBeLessThan(1e-5);
    expect(worstError(grads[1].dataSync(), ref.dgamma)).toBeLessThan(1e-5 * Math.max(1, n / d));
    expect(worstError(grads[2].dataSync(), ref.dbeta)).toBeLessThan(1e-5 * Math.max(1, n / d));
    const composite = compositeLayerNorm(x, gamma, beta);
    expect(worstError(y.dataSync(), composite.dataSync())).toBeLessThan(5e-6);
    const compositeGrads = tf.grads(loss(compositeLayerNorm))([x, gamma, beta]);
    compositeGrads.forEach((g, i) => expect(worstError(grads[i].dataSync(), g.dataSync()), `gradient ${i}`).toBeLessThan(1e-5 * Math.max(1, n / d)));
    tf.dispose([x, gamma, beta, w, y, composite, ...grads, ...compositeGrads]);
  });

  it('computes the composite, not the kernel, for a broadcast gamma, int32 inputs and on the cpu backend', async () => {
    installWasmElementwise();
    const x = tf.tensor2d(uniform(12, -1, 1), [3, 4]);
    const gamma = tf.ones([4]), beta = tf.zeros([4]);
    const notOurs = [
      () => layerNorm(x, tf.ones([1, 4]), beta),
      () => layerNorm(x.toInt(), gamma.toInt(), beta.toInt()),
    ];
    for (const f of notOurs) expect(counting(() => tf.tidy(() => void f())).calls).toBe(0);
    await tf.setBackend('cpu');
    try {
      expect(counting(() => tf.tidy(() => void layerNorm(x, gamma, beta))).calls).toBe(0);
    } finally {
      await tf.setBackend('wasm');
    }
    tf.dispose([x, gamma, beta]);
  });

  it('trains through tf.variableGrads and keeps the tensor count and the backend memory flat', () => {
    installWasmElementwise();
    const gamma = tf.variable(tf.ones([6])), beta = tf.variable(tf.zeros([6]));
    const x = tf.tensor3d(uniform(60, -2, 2), [2, 5, 6]);
    const step = () => tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => gelu(layerNorm(x, gamma, beta)).square().sum() as tf.Scalar, [gamma, beta]);
      gamma.assign(gamma.sub(grads[gamma.name].mul(0.01)));
      beta.assign(beta.sub(grads[beta.name].mul(0.01)));
      return value;
    });
    const calls = callsWithFlatMemory(step, () => {
      for (let i = 0; i < 20; i++) step().dispose();
      tf.tidy(() => void layerNorm(x, gamma, beta)); // no tape: no saved tensors
    });
    expect(calls).toBe(81);
    tf.dispose([gamma, beta, x]);
  });

  it.each(builds)('computes the same LayerNorm and gradients from its %s build on a shared memory (for tfjs-wasm built with threads)', (build) => {
    if (build === 'fma' && !relaxedSimdSupported()) return void console.log('fma build not checked: this engine has no relaxed SIMD');
    const [rows, d] = [7, 13];
    const x = uniform(rows * d, -3, 3), gamma = uniform(d, 0.5, 1.5), beta = uniform(d, -1, 1), w = uniform(rows * d, -1, 1);
    const run = (base64: string, shared: boolean) => {
      const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536, shared });
      const k = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(base64, 'base64')), { env: { memory } }).exports as {
        layerNorm(...args: number[]): void; layerNormGrad(...args: number[]): void;
      };
      const heap = new Float32Array(memory.buffer);
      const [xAt, gAt, bAt, yAt, mAt, rAt, dyAt, dxAt, dgAt, dbAt] = [0, 200, 300, 400, 600, 700, 800, 1000, 1200, 1300];
      heap.set(x, xAt); heap.set(gamma, gAt); heap.set(beta, bAt); heap.set(w, dyAt);
      k.layerNorm(4 * xAt, 4 * gAt, 4 * bAt, 4 * yAt, 4 * mAt, 4 * rAt, rows, d, 1e-5);
      k.layerNormGrad(4 * xAt, 4 * gAt, 4 * mAt, 4 * rAt, 4 * dyAt, 4 * dxAt, 4 * dgAt, 4 * dbAt, rows, d);
      const ref = layerNormRef(x, gamma, beta, w, d);
      const out = [heap.slice(yAt, yAt + rows * d), heap.slice(dxAt, dxAt + rows * d), heap.slice(dgAt, dgAt + d), heap.slice(dbAt, dbAt + d)];
      [ref.y, ref.dx, ref.dgamma, ref.dbeta].forEach((r, i) => expect(worstError(out[i], r), `output ${i}`).toBeLessThan(1e-5));
      return out;
    };
    expect(run(elementwiseKernel[build].shared, true)).toEqual(run(elementwiseKernel[build].plain, false));
  });
});
