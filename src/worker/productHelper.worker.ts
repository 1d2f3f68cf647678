/// <reference lib="webworker" />
/**
 * The page's product helper (core/model/productThreads.ts): started by the trainer worker with the
 * shared staging memory as its one message; says it is ready, then computes its part of each
 * large product until told to quit. It blocks in Atomics.wait (allowed in a worker).
 */
import { runProductHelper, type ProductHelperInit } from '../core/model/productThreads';

self.addEventListener(
  'message',
  (event: MessageEvent<ProductHelperInit>) => {
    self.postMessage('ready');
    runProductHelper(event.data);
  },
  { once: true },
);
