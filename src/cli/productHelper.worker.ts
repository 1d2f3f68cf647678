/**
 * Node worker_threads entry of the product helper (core/model/productThreads.ts): says it is
 * ready, then computes its part of each large product on the shared staging memory until told
 * to quit. It blocks in Atomics.wait, so it answers no messages after 'ready'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runProductHelper, type ProductHelperInit } from '../core/model/productThreads';

if (!parentPort) throw new Error('productHelper.worker.ts must run in a worker thread');
parentPort.postMessage('ready');
runProductHelper(workerData.init as ProductHelperInit);
