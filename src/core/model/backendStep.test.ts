import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepDifference, stepOn, stepTolerance } from './backendStep';
import { installWasmKernels } from './wasmKernels';

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  installWasmKernels();
});

afterAll(async () => {
  await tf.setBackend('wasm');
});

describe('one training step on two backends from the same weights', () => {
  it('agrees on wasm (our kernels, fused multiply-add) and cpu (plain tfjs) within the tolerance WebGPU is held to', async () => {
    const wasm = await stepOn('wasm', null);
    const cpu = await stepOn('cpu', wasm.weights);
    const difference = stepDifference(cpu, wasm);
    console.log(`cpu against wasm: loss ${difference.lossRelative.toExponential(1)}, worst gradient ${difference.worstGradient.name} ${difference.worstGradient.relative.toExponential(1)}`);
    expect(Number.isFinite(wasm.loss)).toBe(true);
    expect(difference.lossRelative).toBeLessThan(stepTolerance.lossRelative);
    expect(difference.worstGradient.relative).toBeLessThan(stepTolerance.gradientRelative);
  });

  it('catches a wrong step: other weights differ by far more than the tolerance', async () => {
    const wasm = await stepOn('wasm', null);
    const shifted = wasm.weights.map((w) => ({ ...w, data: w.data.map((v, i) => (i % 7 === 0 ? v + 0.05 : v)) }));
    const other = await stepOn('wasm', shifted);
    expect(stepDifference(other, wasm).worstGradient.relative).toBeGreaterThan(100 * stepTolerance.gradientRelative);
  });

  it('compares webgpu with wasm where an adapter exists (skipped in Node, which has no WebGPU; e2e/webgpu.spec.ts runs it in Chromium)', async (context) => {
    const gpu = (globalThis as { navigator?: { gpu?: { requestAdapter(): Promise<unknown> } } }).navigator?.gpu;
    const reason = !gpu ? 'navigator.gpu is absent (Node has no WebGPU)' : !(await gpu.requestAdapter()) ? 'no WebGPU adapter' : null;
    if (reason) {
      console.log(`webgpu step not checked: ${reason}`);
      context.skip(reason);
    }
    await import('@tensorflow/tfjs-backend-webgpu');
    const wasm = await stepOn('wasm', null);
    const webgpu = await stepOn('webgpu', wasm.weights);
    const difference = stepDifference(webgpu, wasm);
    expect(difference.lossRelative).toBeLessThan(stepTolerance.lossRelative);
    expect(difference.worstGradient.relative).toBeLessThan(stepTolerance.gradientRelative);
  });
});
