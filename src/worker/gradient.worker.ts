/// <reference lib="webworker" />
/**
 * Web Worker entry of a gradient shard (src/core/gradientShards.ts: a policy copy that computes
 * part of each update's gradients), the page's counterpart of
 * src/cli/gradient.worker.ts, started by the trainer worker (nested workers). Its name carries
 * the page's `fma=0` so that both halves of an update run the same kernels; messages that arrive
 * while it starts are held, in order, until it is ready.
 */
import type { FromShard, ToShard } from '../core/gradientShards';
import { serveGradients } from '../core/gradientShardWorker';
import { startWasmBackend } from './wasmBackend';

const ready = startWasmBackend(self.name, { fma: !/[?&]fma=0\b/.test(self.name) });
// A backend that cannot start is said to the trainer (a rejection in a worker reaches no one), which then trains on its own thread.
ready.catch((error: Error) => self.postMessage({ type: 'error', message: `its tfjs backend did not start: ${error.message}` } satisfies FromShard));

serveGradients({
  postMessage: (message, transfer) => self.postMessage(message, transfer),
  onMessage: (listener) => self.addEventListener('message', (event: MessageEvent<ToShard>) => void ready.then(() => listener(event.data))),
});
