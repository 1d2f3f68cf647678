/**
 * Threads inside a step for the CLI (core/model/productThreads.ts): a worker thread that takes
 * part of every large product. PRL_KERNEL_THREADS=2 turns it on (tfBackend.ts); it is off by
 * default because the CLI's data-parallel trainers already put a gradient worker on the other
 * core, and the two would share it.
 */
import { Worker } from 'node:worker_threads';
import { startProductThreads, type ProductHelperInit, type ProductThreads } from '../core/model/productThreads';

const bootstrap = new URL('./tsWorker.mjs', import.meta.url);
const entry = new URL('./productHelper.worker.ts', import.meta.url).href;

function startHelper(init: ProductHelperInit): Promise<{ close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(bootstrap, { workerData: { entry, init } });
    // Blocked in Atomics.wait between products, it must not keep the process alive.
    worker.unref();
    worker.once('error', reject);
    worker.once('message', () =>
      resolve({
        async close() {
          await worker.terminate();
        },
      }),
    );
  });
}

/** Starts the helper thread; products of at least `minMacs` multiply-adds are split with it. */
export function startNodeProductThreads(options?: { share?: number; minMacs?: number; helperTimeoutMs?: number }): Promise<ProductThreads> {
  return startProductThreads(startHelper, options);
}
