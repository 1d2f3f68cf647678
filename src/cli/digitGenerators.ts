/**
 * Digit-task generators over Node worker_threads: one thread per generator, each with its own
 * tfjs (wasm, one thread) and policy copy. Workers run TypeScript through tsx (tsWorker.mjs),
 * so the same entry works under `npm run digits` and under vitest. Weight syncs cross as
 * transferred ArrayBuffers.
 */
import { Worker } from 'node:worker_threads';
import { GeneratorPool, type GeneratorHandle } from '../core/generators';

const bootstrap = new URL('./tsWorker.mjs', import.meta.url);
const entry = new URL('./digitGenerator.worker.ts', import.meta.url).href;

function spawnGenerator(): GeneratorHandle {
  const worker = new Worker(bootstrap, { workerData: { entry } });
  worker.unref();
  let closing = false;
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.on('message', listener),
    onError: (listener) => {
      worker.on('error', (error) => listener(error.message));
      worker.on('exit', (code) => {
        if (!closing) listener(`exited with code ${code}`);
      });
    },
    terminate: () => {
      closing = true;
      void worker.terminate();
    },
  };
}

export function createNodeGeneratorPool(size: number): GeneratorPool {
  return new GeneratorPool(Array.from({ length: size }, spawnGenerator));
}
