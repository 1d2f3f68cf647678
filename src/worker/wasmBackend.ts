/**
 * tfjs on wasm in the page's workers: the wasm files as the bundle ships them and the
 * single-threaded build (Vite's minifier breaks the threaded one, docs/architecture.md), for the
 * trainer worker and its helpers alike; the helpers (generators, gradient shards) start it with
 * our SIMD kernels, and cpu where wasm cannot start. tfjs-core and the backends a worker uses,
 * not the umbrella package: its layers, data, converter and webgl would be bundled into every
 * helper worker for nothing.
 */
import * as tf from '@tensorflow/tfjs-core';
// What the umbrella registered besides its packages: every op's gradient (training) and the
// chained ops (`tensor.slice()`), which core's code calls. Every worker that runs tfjs imports this file.
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import '@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops';
import '@tensorflow/tfjs-backend-cpu';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmPlain from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreaded from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import { installWasmKernels } from '../core/model/wasmKernels';

/** Where tfjs-wasm finds its files in the bundle, and its single-threaded build: before any wasm backend starts, in every worker. */
export function useBundledWasm(): void {
  setWasmPaths({ 'tfjs-backend-wasm.wasm': wasmPlain, 'tfjs-backend-wasm-simd.wasm': wasmSimd, 'tfjs-backend-wasm-threaded-simd.wasm': wasmThreaded });
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
}

/** Starts the backend; `who` names the worker in the console line that says which kernels run. */
export async function startWasmBackend(who: string, options: { fma?: boolean } = {}): Promise<void> {
  useBundledWasm();
  if (!(await tf.setBackend('wasm').catch(() => false))) await tf.setBackend('cpu');
  await tf.ready();
  if (tf.getBackend() === 'wasm') console.log(`${who}: ${installWasmKernels(options).join('; ')}`);
}
