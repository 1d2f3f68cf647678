/**
 * Gradient shards (src/core/gradientShards.ts) as Web Workers started from the trainer worker
 * (nested module workers): the page's data-parallel updates (the warm start's, reinforce's,
 * expert iteration's), as the CLI has them with worker_threads.
 */
import { startGradientShards, type GradientShardFactory, type ShardHandle } from '../core/gradientShards';

function spawnShard(index: number, flags: string): ShardHandle {
  const worker = new Worker(new URL('./gradient.worker.ts', import.meta.url), { type: 'module', name: `gradient shard ${index}${flags}` });
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.addEventListener('message', (event) => listener(event.data)),
    onFailure: (listener) => worker.addEventListener('error', (event) => listener(event.message || 'the gradient worker failed to load')),
    terminate: () => worker.terminate(),
  };
}

/** Starts shards whose kernels follow the page's `fma` flag (`flags`: '' or '?fma=0'). */
export function browserGradientShards(flags: string): GradientShardFactory {
  return (count, policy, grammar) => startGradientShards(Array.from({ length: count }, (_, i) => spawnShard(i, flags)), policy, grammar);
}
