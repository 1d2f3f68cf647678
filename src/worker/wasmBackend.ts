/**
 * tfjs on wasm for the page's helper workers (generators, gradient shards): the wasm files as the
 * bundle ships them, the single-threaded build (Vite's minifier breaks the threaded one,
 * docs/architecture.md), our SIMD kernels, and cpu where wasm cannot start.
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmPlain from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreaded from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import { installWasmKernels } from '../core/model/wasmKernels';

/** Starts the backend; `who` names the worker in the console line that says which kernels run. */
export async function startWasmBackend(who: string, options: { fma?: boolean } = {}): Promise<void> {
  setWasmPaths({ 'tfjs-backend-wasm.wasm': wasmPlain, 'tfjs-backend-wasm-simd.wasm': wasmSimd, 'tfjs-backend-wasm-threaded-simd.wasm': wasmThreaded });
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm').catch(() => false))) await tf.setBackend('cpu');
  await tf.ready();
  if (tf.getBackend() === 'wasm') console.log(`${who}: ${installWasmKernels(options).join('; ')}`);
}
