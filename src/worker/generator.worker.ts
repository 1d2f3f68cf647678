/// <reference lib="webworker" />
/**
 * Web Worker entry of a generator (src/core/generators.ts: a policy copy that samples programs
 * for the trainer, with versioned weight sync), the page's counterpart of
 * src/cli/digitGenerator.worker.ts. The trainer worker starts these (nested workers). tfjs runs on
 * wasm, one thread per generator; messages that arrive while it starts are held, in order, until
 * it is ready.
 */
import { serveGenerator, type FromGenerator } from '../core/generators';
import { startWasmBackend } from './wasmBackend';

const ready = startWasmBackend('generator');
// A backend that cannot start is said to the trainer (a rejection in a worker reaches no one), whose pool then fails with why instead of waiting for `ready` for good.
ready.catch((error: Error) => self.postMessage({ type: 'error', id: -1, message: `its tfjs backend did not start: ${error.message}` } satisfies FromGenerator));

serveGenerator({
  postMessage: (message) => self.postMessage(message),
  onMessage: (listener) => self.addEventListener('message', (event: MessageEvent) => void ready.then(() => listener(event.data))),
});
