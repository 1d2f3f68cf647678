/**
 * Gradient shards (core/gradientShards.ts) over Node worker_threads: how the CLI's warm start and
 * RL updates use more than one core (tfjs-wasm in Node is single-threaded). Each shard is a
 * worker with its own tfjs engine; a worker that dies fails its request with its reason rather
 * than hanging it, and the step is redone on the trainer's thread.
 */
import { Worker } from 'node:worker_threads';
import { startGradientShards, type GradientShards, type ShardHandle } from '../core/gradientShards';
import type { GrammarSpec } from '../core/grammar';
import type { PolicyConfig } from '../core/model/transformer';

const bootstrap = new URL('./tsWorker.mjs', import.meta.url);
const entry = new URL('./gradient.worker.ts', import.meta.url).href;

function spawnShard(backend: 'wasm' | 'cpu'): ShardHandle {
  const worker = new Worker(bootstrap, { workerData: { entry, backend } });
  let terminating = false;
  return {
    postMessage: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.on('message', listener),
    onFailure: (listener) => {
      worker.on('error', (error) => listener(error.message));
      worker.on('exit', (code) => terminating || listener(`it exited with code ${code}`));
    },
    terminate: async () => {
      terminating = true;
      await worker.terminate();
    },
  };
}

export async function createNodeGradientShards(count: number, policyConfig: PolicyConfig, backend: 'wasm' | 'cpu', grammar: GrammarSpec = { task: 'kolmogorov' }): Promise<GradientShards> {
  return startGradientShards(Array.from({ length: count }, () => spawnShard(backend)), policyConfig, grammar);
}
