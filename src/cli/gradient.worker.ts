/**
 * Node worker_threads entry of a gradient shard (core/gradientShards.ts): its own tfjs engine;
 * messages that arrive while it starts are held, in order, until it is ready.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ToShard } from '../core/gradientShards';
import { serveGradients } from '../core/gradientShardWorker';
import { initTensorflow } from './tfBackend';

if (!parentPort) throw new Error('gradient.worker.ts must run in a worker thread');
const port = parentPort;
const ready = initTensorflow((workerData as { backend: 'wasm' | 'cpu' }).backend);
serveGradients({
  postMessage: (message, transfer) => port.postMessage(message, transfer),
  onMessage: (listener) => port.on('message', (message: ToShard) => void ready.then(() => listener(message))),
});
