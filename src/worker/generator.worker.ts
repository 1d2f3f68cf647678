/// <reference lib="webworker" />
/**
 * Web Worker entry of a generator (src/core/generators.ts: a policy copy that samples programs
 * for the trainer, with versioned weight sync), the page's counterpart of
 * src/cli/digitGenerator.worker.ts. The trainer worker starts these (nested workers). tfjs runs on
 * wasm, one thread per generator; messages that arrive while it starts are held, in order, until
 * it is ready.
 */
import { serveGenerator } from '../core/generators';
import { startWasmBackend } from './wasmBackend';

const ready = startWasmBackend('generator');

serveGenerator({
  postMessage: (message) => self.postMessage(message),
  onMessage: (listener) => self.addEventListener('message', (event: MessageEvent) => void ready.then(() => listener(event.data))),
});
