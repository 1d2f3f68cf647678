/// <reference lib="webworker" />
/**
 * Web Worker entry of a generator (src/core/generators.ts: a policy copy that samples programs
 * for the trainer, with versioned weight sync), the page's counterpart of
 * src/cli/digitGenerator.worker.ts. The trainer worker starts these (nested workers). tfjs runs on wasm, one thread per generator; messages that arrive while it starts
 * are held, in order, until it is ready.
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmPlain from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import wasmSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import wasmThreaded from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import { serveGenerator } from '../core/generators';
import { installWasmKernels } from '../core/model/wasmKernels';

setWasmPaths({ 'tfjs-backend-wasm.wasm': wasmPlain, 'tfjs-backend-wasm-simd.wasm': wasmSimd, 'tfjs-backend-wasm-threaded-simd.wasm': wasmThreaded });
tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);

const ready = (async () => {
  if (!(await tf.setBackend('wasm').catch(() => false))) await tf.setBackend('cpu');
  await tf.ready();
  if (tf.getBackend() === 'wasm') console.log(`generator: ${installWasmKernels().join('; ')}`);
})();

serveGenerator({
  postMessage: (message) => self.postMessage(message),
  onMessage: (listener) => self.addEventListener('message', (event: MessageEvent) => void ready.then(() => listener(event.data))),
});
