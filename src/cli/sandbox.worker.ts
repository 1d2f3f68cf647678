/** Node worker_threads entry of a sandbox worker (see src/core/sandbox/sandboxWorker.ts). */
import { parentPort } from 'node:worker_threads';
import { serveSandbox } from '../core/sandbox/sandboxWorker';

if (!parentPort) throw new Error('sandbox.worker.ts must run in a worker thread');
const port = parentPort;
serveSandbox({
  postMessage: (message) => port.postMessage(message),
  onMessage: (listener) => port.on('message', listener),
});
