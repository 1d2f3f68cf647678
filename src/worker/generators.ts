/**
 * Generators (src/core/generators.ts) as Web Workers started from the trainer worker (nested module
 * workers), one per generator; weight syncs cross as transferred ArrayBuffers.
 */
import type { GeneratorHandle } from '../core/generators';

function spawnGenerator(index: number): GeneratorHandle {
  const worker = new Worker(new URL('./generator.worker.ts', import.meta.url), { type: 'module', name: `generator ${index}` });
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.addEventListener('message', (event) => listener(event.data)),
    onError: (listener) => worker.addEventListener('error', (event) => listener(event.message || 'the generator worker failed to load')),
    terminate: () => worker.terminate(),
  };
}

export function createBrowserGenerators(size: number): GeneratorHandle[] {
  return Array.from({ length: size }, (_, index) => spawnGenerator(index));
}
