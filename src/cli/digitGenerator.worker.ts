/** Node worker_threads entry of a digit-task generator (src/core/generators.ts: a policy copy that samples for the trainer, with versioned weight sync). */
import { parentPort } from 'node:worker_threads';
import { serveGenerator } from '../core/generators';
import { initTensorflow } from './tfBackend';

if (!parentPort) throw new Error('digitGenerator.worker.ts must run in a worker thread');
const port = parentPort;
await initTensorflow('auto');
serveGenerator({
  postMessage: (message) => port.postMessage(message),
  onMessage: (listener) => port.on('message', listener),
});
