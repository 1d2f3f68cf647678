import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { expandRelaxedMultiplyAdd, generatedPath, renderKernelModule } from '../../../scripts/buildKernels';
import { Rng } from '../rng';
import { batchMatMulKernel } from './batchMatMulKernel.generated';
import { installWasmBatchMatMul, scratchBytes, wasmBatchMatMulStatus } from './wasmBatchMatMul';
import { relaxedMaddFuses, relaxedSimdSupported, setFusedMultiplyAdd, type MultiplyAdd } from './wasmKernelModule';

const rng = new Rng(11);
const random = (shape: number[]) => tf.tensor(Float32Array.from({ length: shape.reduce((p, v) => p * v, 1) }, () => rng.next() * 2 - 1), shape);

/** op(a) @ op(b) in float64 on the host, with a's and b's batch shapes broadcast like tfjs. */
function reference(a: tf.Tensor, b: tf.Tensor, transposeA: boolean, transposeB: boolean): { shape: number[]; values: Float64Array } {
  const av = a.dataSync(), bv = b.dataSync();
  const [ar, ac] = a.shape.slice(-2), [br, bc] = b.shape.slice(-2);
  const [m, k] = transposeA ? [ac, ar] : [ar, ac];
  const n = transposeB ? br : bc;
  const aBatch = a.shape.slice(0, -2), bBatch = b.shape.slice(0, -2);
  const batchShape = aBatch.map((v, i) => Math.max(v, bBatch[i]));
  const batch = batchShape.reduce((p, v) => p * v, 1);
  const aSize = aBatch.reduce((p, v) => p * v, 1), bSize = bBatch.reduce((p, v) => p * v, 1);
  const values = new Float64Array(batch * m * n);
  for (let t = 0; t < batch; t++) {
    const ao = (aSize === 1 ? 0 : t) * m * k, bo = (bSize === 1 ? 0 : t) * k * n;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let p = 0; p < k; p++) sum += av[ao + (transposeA ? p * m + i : i * k + p)] * bv[bo + (transposeB ? j * k + p : p * n + j)];
        values[(t * m + i) * n + j] = sum;
      }
    }
  }
  return { shape: [...batchShape, m, n], values };
}

/** op(a) @ op(b) in float64 with, per output, its float32 error bound gamma_K sum |a_k b_k| (see the tolerance test). */
function referenceWithBound(a: tf.Tensor, b: tf.Tensor, transposeA: boolean, transposeB: boolean): { values: Float64Array; bound: Float64Array } {
  const { values } = reference(a, b, transposeA, transposeB);
  const { values: magnitudes } = reference(tf.tidy(() => a.abs()), tf.tidy(() => b.abs()), transposeA, transposeB);
  const k = transposeA ? a.shape[a.rank - 2] : a.shape[a.rank - 1];
  const u = 2 ** -24, gamma = (k * u) / (1 - k * u);
  return { values, bound: magnitudes.map((s) => gamma * s + 1e-30) };
}

const builds: MultiplyAdd[] = ['fma', 'simd'];

/** Runs one build of the kernel directly on a fresh memory (plain or shared): the product of batched a and b as floats. */
function runBuild(build: MultiplyAdd, shared: boolean, a: tf.Tensor, b: tf.Tensor, ta: boolean, tb: boolean): Float32Array {
  const [batch, ar, ac] = a.shape, [, br, bc] = b.shape;
  const [m, k] = ta ? [ac, ar] : [ar, ac];
  const n = tb ? br : bc;
  const floats = [a.size, b.size, batch * m * n];
  const [aAt, bAt, cAt] = [0, floats[0], floats[0] + floats[1]];
  const scratchAt = (cAt + floats[2] + 3) & ~3;
  const bytes = 4 * scratchAt + scratchBytes(m, n, k);
  const pages = Math.ceil(bytes / 65536);
  const memory = new WebAssembly.Memory(shared ? { initial: pages, maximum: 65536, shared: true } : { initial: pages });
  const module = new WebAssembly.Module(Buffer.from(batchMatMulKernel[build][shared ? 'shared' : 'plain'], 'base64'));
  const kernel = new WebAssembly.Instance(module, { env: { memory } }).exports.batchMatMul as (...args: number[]) => void;
  const heap = new Float32Array(memory.buffer);
  heap.set(a.dataSync(), aAt);
  heap.set(b.dataSync(), bAt);
  kernel(4 * aAt, 4 * bAt, 4 * cAt, batch, m, n, k, ta ? 1 : k, ta ? m : 1, tb ? 1 : n, tb ? k : 1, 4 * scratchAt);
  return heap.slice(cAt, cAt + floats[2]);
}

function expectClose(actual: tf.Tensor, expected: { shape: number[]; values: ArrayLike<number> }) {
  expect(actual.shape).toEqual(expected.shape);
  const got = actual.dataSync();
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - expected.values[i]) / (1 + Math.abs(expected.values[i])));
  expect(worst).toBeLessThan(1e-5);
}

const transposes = [[false, false], [false, true], [true, false], [true, true]] as const;
const name = (ta: boolean, tb: boolean) => `${ta ? 'A^T' : 'A'} ${tb ? 'B^T' : 'B'}`;
const operandShapes = (batch: number[], m: number, k: number, n: number, ta: boolean, tb: boolean) =>
  [[...batch, ...(ta ? [k, m] : [m, k])], [...batch, ...(tb ? [n, k] : [k, n])]];

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
});

describe('wasm batched matMul kernel', () => {
  it('is built from batchMatMulKernel.wat exactly as committed (npm run build:kernels)', async () => {
    expect(await renderKernelModule()).toBe(readFileSync(generatedPath, 'utf8'));
  });

  it('has a plain SIMD build made by expanding each relaxed multiply-add (nested, across comments) into a multiply and an add', () => {
    const source = '(local.set $p (f32x4.relaxed_madd (local.get $p) ;; p f + 1\n (local.get $f) (f32x4.relaxed_nmadd $x (v128.const f32x4 1 1 1 1) (local.get $c))))';
    expect(expandRelaxedMultiplyAdd(source)).toBe(
      '(local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $f)) (f32x4.sub (local.get $c) (f32x4.mul $x (v128.const f32x4 1 1 1 1)))))',
    );
    expect(() => expandRelaxedMultiplyAdd('(f32x4.relaxed_madd (local.get 0) (local.get 1))')).toThrow(/three operands/);
  });

  it('reports inactive before it is installed, refuses while wasm is not the active backend, then installs once', async () => {
    expect(wasmBatchMatMulStatus().active).toBe(false);
    await tf.setBackend('cpu');
    expect(installWasmBatchMatMul()).toMatchObject({ active: false, reason: expect.stringContaining('not wasm') });
    await tf.setBackend('wasm');
    const status = installWasmBatchMatMul();
    expect(status.active).toBe(true);
    const kernel = tf.getKernel('BatchMatMul', 'wasm')!.kernelFunc;
    expect(installWasmBatchMatMul().active).toBe(true);
    expect(tf.getKernel('BatchMatMul', 'wasm')!.kernelFunc).toBe(kernel);
  });

  it.each(transposes)('computes batched products of edge sizes on the kernel (transposeA %s, transposeB %s)', (ta, tb) => {
    installWasmBatchMatMul();
    for (const m of [1, 7, 65]) {
      for (const k of [1, 3, 33]) {
        for (const n of [1, 5, 70]) {
          const [as, bs] = operandShapes([3], m, k, n, ta, tb);
          const a = random(as), b = random(bs);
          const before = wasmBatchMatMulStatus().calls;
          const c = tf.matMul(a, b, ta, tb);
          expect(wasmBatchMatMulStatus().calls, `${name(ta, tb)} m ${m} k ${k} n ${n}`).toBe(before + 1);
          expectClose(c, reference(a, b, ta, tb));
          tf.dispose([a, b, c]);
        }
      }
    }
  });

  it.each(transposes)('computes 4D batch shapes on the kernel (transposeA %s, transposeB %s)', (ta, tb) => {
    installWasmBatchMatMul();
    const [as, bs] = operandShapes([2, 3], 17, 16, 9, ta, tb);
    const a = random(as), b = random(bs);
    const before = wasmBatchMatMulStatus().calls;
    const c = tf.matMul(a, b, ta, tb);
    expect(wasmBatchMatMulStatus().calls).toBe(before + 1);
    expectClose(c, reference(a, b, ta, tb));
    tf.dispose([a, b, c]);
  });

  it('computes batch-1 and 2D products on the kernel, with or without a transpose flag, and leaves broadcasting to tfjs', () => {
    installWasmBatchMatMul();
    const cases: [number[], number[], boolean, boolean, boolean][] = [
      [[1, 7, 5], [1, 5, 9], false, false, true], // batch 1: ours, faster than XNNPACK
      [[7, 5], [5, 9], false, false, true], // 2D: the same
      [[7, 5], [9, 5], false, true, true], // 2D with a flag: tfjs-wasm's slow loop, so ours
      [[5, 7], [5, 9], true, false, true],
      [[1, 5, 7], [1, 9, 5], true, true, true],
      [[1, 7, 5], [3, 5, 9], false, false, false], // broadcast a
      [[3, 5, 7], [1, 9, 5], true, true, false], // broadcast b
    ];
    for (const [as, bs, ta, tb, ours] of cases) {
      const a = random(as), b = random(bs);
      const before = wasmBatchMatMulStatus().calls;
      const c = tf.matMul(a, b, ta, tb);
      expect(wasmBatchMatMulStatus().calls, `${as} x ${bs} ${name(ta, tb)}`).toBe(before + (ours ? 1 : 0));
      if (a.rank === 2) {
        expect(c.shape).toEqual([7, 9]);
        expectClose(c.expandDims(0), reference(a.expandDims(0), b.expandDims(0), ta, tb));
      } else {
        expectClose(c, reference(a, b, ta, tb));
      }
      tf.dispose([a, b, c]);
    }
  });

  it.each(transposes.flatMap(([ta, tb]) => [[[2, 3], ta, tb], [[], ta, tb]] as const))('gives gradients of a product of batch shape %j equal to the cpu backend (transposeA %s, transposeB %s)', async (batch, ta, tb) => {
    installWasmBatchMatMul();
    const [as, bs] = operandShapes([...batch], 13, 10, 11, ta, tb);
    const a = random(as), b = random(bs);
    const weights = random([...batch, 13, 11]);
    const loss = (x: tf.Tensor, y: tf.Tensor) => tf.matMul(x, y, ta, tb).mul(weights).sum();
    const before = wasmBatchMatMulStatus().calls;
    const [da, db] = tf.grads(loss)([a, b]);
    expect(wasmBatchMatMulStatus().calls).toBeGreaterThanOrEqual(before + 3); // the product and both gradients
    const wasmGrads = [da.arraySync(), db.arraySync()];
    await tf.setBackend('cpu');
    try {
      const cpuGrads = tf.grads(loss)([a, b]);
      cpuGrads.forEach((g, i) => expectClose(tf.tensor(wasmGrads[i] as number[]), { shape: g.shape, values: g.dataSync() }));
    } finally {
      await tf.setBackend('wasm');
    }
    tf.dispose([a, b, weights, da, db]);
  });

  it('computes the same products from its shared-memory builds (for tfjs-wasm built with threads)', () => {
    // The page and the CLI run tfjs-wasm unthreaded, so these builds are exercised here directly.
    const [batch, m, k, n] = [3, 7, 33, 70];
    for (const build of builds) {
      for (const [ta, tb] of transposes) {
        const [as, bs] = operandShapes([batch], m, k, n, ta, tb);
        const a = random(as), b = random(bs);
        const shared = runBuild(build, true, a, b, ta, tb), plain = runBuild(build, false, a, b, ta, tb);
        expect(shared, `${build} ${name(ta, tb)}`).toEqual(plain);
        expectClose(tf.tensor(shared, [batch, m, n]), reference(a, b, ta, tb));
        tf.dispose([a, b]);
      }
    }
  });

  // Tolerance of the two builds against float64. Each output is a float32 dot product of length K,
  // summed in order per lane; the plain SIMD build rounds twice per term (the product, then the
  // sum), the fused multiply-add build once (f32x4.relaxed_madd rounds a * b + c once). So the two
  // builds differ in the last bits, and by more as K grows: each of the K steps may round
  // differently. Both stay within the float32 dot product's error bound,
  // |computed - exact| <= gamma_K * sum |a_k b_k|, gamma_K = K u / (1 - K u), u = 2^-24 (Higham,
  // Accuracy and Stability of Numerical Algorithms, 3.1); the test checks that bound per output.
  it.each(builds)('keeps the %s build within the float32 dot-product error bound of float64, up to K = 2016', (build) => {
    if (build === 'fma' && !relaxedSimdSupported()) return void console.log('fma build not checked: this engine has no relaxed SIMD (vitest passes --experimental-wasm-relaxed-simd)');
    for (const [batch, m, k, n, ta, tb] of [[2, 13, 7, 21, false, false], [1, 9, 300, 17, true, false], [1, 12, 2016, 16, true, false], [4, 63, 32, 63, false, true]] as const) {
      const [as, bs] = operandShapes([batch], m, k, n, ta, tb);
      const a = random(as), b = random(bs);
      const got = runBuild(build, false, a, b, ta, tb);
      const { values, bound } = referenceWithBound(a, b, ta, tb);
      let worst = 0;
      for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - values[i]) / bound[i]);
      expect(worst, `${build} batch ${batch} m ${m} k ${k} n ${n} ${name(ta, tb)}`).toBeLessThanOrEqual(1);
      tf.dispose([a, b]);
    }
  });

  it('runs fused multiply-adds in its fma build where the CPU fuses them: the builds differ in the last bits, not more', () => {
    if (!relaxedSimdSupported() || !relaxedMaddFuses()) return void console.log(`not checked: relaxed SIMD ${relaxedSimdSupported() ? 'is computed unfused by this CPU' : 'is missing in this engine'}`);
    const [as, bs] = operandShapes([1], 16, 2016, 16, true, false);
    const a = random(as), b = random(bs);
    const fused = runBuild('fma', false, a, b, true, false), plain = runBuild('simd', false, a, b, true, false);
    let differ = 0, worst = 0;
    for (let i = 0; i < fused.length; i++) {
      if (fused[i] !== plain[i]) differ++;
      worst = Math.max(worst, Math.abs(fused[i] - plain[i]) / (Math.abs(plain[i]) + 1));
    }
    expect(differ).toBeGreaterThan(0);
    expect(worst).toBeLessThan(1e-5);
    tf.dispose([a, b]);
  });

  it('switches between its builds with the FMA switch, and the products stay within tolerance', () => {
    installWasmBatchMatMul();
    const a = random([40, 50]), b = random([50, 30]);
    const expected = reference(a.expandDims(0), b.expandDims(0), false, false);
    try {
      for (const on of [false, true, false]) {
        setFusedMultiplyAdd(on);
        const c = tf.matMul(a, b);
        expect(wasmBatchMatMulStatus().build).toBe(on && relaxedSimdSupported() ? 'fma' : 'simd');
        expectClose(c.expandDims(0), expected);
        c.dispose();
      }
    } finally {
      setFusedMultiplyAdd(true);
    }
    tf.dispose([a, b]);
  });

  it('keeps the tensor count and the backend memory flat over repeated products', () => {
    installWasmBatchMatMul();
    const a = random([4, 30, 20]), b = random([4, 25, 20]);
    tf.matMul(a, b, false, true).dispose();
    const start = tf.memory();
    for (let i = 0; i < 20; i++) tf.tidy(() => void tf.matMul(a, b, false, true).sum());
    expect(tf.memory().numTensors).toBe(start.numTensors);
    expect(tf.memory().numBytes).toBe(start.numBytes);
    tf.dispose([a, b]);
  });
});
